import ActivationConfiguration
import ActivationDiscoveryProtocol
import AsyncHTTPClient
import FileAccess
import Foundation
import NIOCore

/// Fetches an application's client policies, SAP's `settingsExchange` document, from a mobile
/// services server or a discovery service, at the path SAP's clients read them from:
/// `/mobileservices/application/{appID}/storage/v1/runtime/application/{appID}/global/mobileservices/settingsExchange`.
///
/// The server must be https; plain http is accepted only for a loopback host and only when
/// ``allowInsecureLoopback`` is set. Redirects are not followed, so the credentials go to the
/// server named and nowhere else. Errors name the URL, never the credentials.
public struct SettingsExchangeClient: Sendable {
    /// How the request signs in: as the configuration's authentication asks.
    public enum Credentials: Sendable, Hashable {
        /// HTTP basic authentication (`basic.default`).
        case basic(user: String, password: String)
        /// SAP's API key header for Mobile Services service keys, `X-API-Key` (`apikeyonly`).
        case apiKey(String)
        /// An OAuth 2.0 access token, as `Authorization: Bearer` (`oauth2`).
        case bearer(String)

        /// The request header that carries these credentials.
        public var header: (name: String, value: String) {
            switch self {
            case .basic(let user, let password):
                ("Authorization", "Basic " + Base64.encode(Array("\(user):\(password)".utf8)))
            case .apiKey(let key): ("X-API-Key", key)
            case .bearer(let token): ("Authorization", "Bearer " + token)
            }
        }
    }

    /// The server's base URL, e.g. `https://mobile.example.com`.
    public var serverURL: String
    /// The application whose policies are asked for.
    public var applicationID: String
    /// Sent with the request; nil: none.
    public var credentials: Credentials?
    /// The whole request, connection included, must finish within this.
    public var timeout: Duration
    /// Accept plain http when the server's host is a loopback address.
    public var allowInsecureLoopback: Bool

    /// A client for `applicationID`'s policies on `serverURL`; https only unless `allowInsecureLoopback`.
    public init(
        serverURL: String, applicationID: String, credentials: Credentials? = nil, timeout: Duration = .seconds(10),
        allowInsecureLoopback: Bool = false
    ) {
        self.serverURL = serverURL
        self.applicationID = applicationID
        self.credentials = credentials
        self.timeout = timeout
        self.allowInsecureLoopback = allowInsecureLoopback
    }

    /// The path of `applicationID`'s `settingsExchange` document, the id percent-encoded.
    public static func path(applicationID: String) -> String {
        DiscoveryRoute.settingsPath(appID: applicationID)
    }

    /// The request URL.
    ///
    /// - Throws: `ConfigurationError` for a server URL that is not https (http only to an allowed
    ///   loopback address), or that has a user name, query or fragment.
    public func url() throws -> String {
        do {
            return try DiscoveryServiceProvider.checkedServiceBase(
                serverURL, allowInsecureLoopback: allowInsecureLoopback)
                + Self.path(applicationID: applicationID)
        } catch let error as ConfigurationError {
            throw ConfigurationError(error.code, source: CanonicalURL.shown(serverURL), error.message)
        }
    }

    /// Asks the server for the policies.
    ///
    /// - Throws: ``DiscoveryClientError`` naming the URL: `unreachable` when the server cannot be
    ///   reached, answers 5xx, a redirect or another unexpected status; `notFound` for 404 (it
    ///   keeps no policies for the application); `unauthorized` for 401 or 403 (the credentials
    ///   were refused or missing); `invalidAnswer` past `ClientPolicies.maxDocumentBytes`. The
    ///   policy reader's `ConfigurationError`, with the key path, for a document that is no valid
    ///   `settingsExchange`; `ConfigurationError` for a URL the checks of ``url()`` refuse.
    public func fetch() async throws -> ClientPolicies {
        let url = try url()
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        if let header = credentials?.header { request.headers.add(name: header.name, value: header.value) }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // One request of a command: a server that cannot be reached is said at once, not retried
        // until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let answer: Result<(UInt, ByteBuffer), DiscoveryClientError>
        do {
            let response = try await client.execute(request, timeout: .init(timeout))
            answer = .success(
                (response.status.code, try await response.body.collect(upTo: ClientPolicies.maxDocumentBytes)))
        } catch is NIOTooManyBytesError {
            answer = .failure(
                DiscoveryClientError(
                    .invalidAnswer, source: url,
                    "the answer exceeds the \(ByteCount(ClientPolicies.maxDocumentBytes)) limit"))
        } catch {
            answer = .failure(
                DiscoveryClientError(
                    .unreachable, source: url,
                    "the server could not be reached (\(DiscoveryServiceProvider.describe(error)))"))
        }
        try? await client.shutdown()
        let (status, body) = try answer.get()
        switch status {
        case 200:
            return try ClientPolicies(json: Array(buffer: body), source: url)
        case 404:
            throw DiscoveryClientError(
                .notFound, source: url, "the server keeps no client policies for \(applicationID)")
        case 401, 403:
            throw DiscoveryClientError(
                .unauthorized, source: url,
                credentials == nil
                    ? "the server asks for credentials (HTTP \(status))"
                    : "the server refused the credentials (HTTP \(status))")
        case 300..<400:
            throw DiscoveryClientError(
                .unreachable, source: url,
                "the server answered with a redirect (HTTP \(status)), which is not followed")
        default:
            throw DiscoveryClientError(.unreachable, source: url, "the server answered HTTP \(status)")
        }
    }
}
