import ActivationConfiguration
import ActivationDiscoveryProtocol
import AsyncHTTPClient
import FileAccess
import Foundation
import NIOCore
import NIOPosix

/// Looks the configuration up in a discovery service, by e-mail address (the service answers for
/// the address's domain) or by onboarding code (reference §7).
///
/// The default paths are the documented legacy lookup,
/// `/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// and the same function with `OnboardingCode='<code>'`; both are templates, because the hosted
/// service's paths are not public. A 404 or an empty answer means "not found"; 410 a code that
/// expired, was used up or revoked (each its own error code: `expired`, `code-used`,
/// `code-revoked`); 429 too many failed attempts (`rate-limited`). The service must be https;
/// plain http is accepted only for a loopback host (`localhost`, `127.0.0.0/8`, `::1`) and only
/// when ``allowInsecureLoopback`` is set.
public struct DiscoveryServiceProvider: ConfigurationProvider {
    /// The ``identifier`` of every discovery-service provider.
    public static let defaultIdentifier = "com.sap.configuration.provider.discoveryservice"
    /// The default ``emailPath``: the legacy lookup by e-mail address.
    public static let emailPathTemplate = LookupCall.emailPathTemplate
    /// The default ``codePath``: the legacy lookup by onboarding code.
    public static let codePathTemplate = LookupCall.codePathTemplate

    public let identifier = DiscoveryServiceProvider.defaultIdentifier
    /// The service's base URL, e.g. `https://discovery.example.com`.
    public var serviceURL: String
    /// The application id, sent as `AppConfigID='<applicationID>:<applicationVersion>'`.
    public var applicationID: String
    /// The application version, sent after the `:` of `AppConfigID`; `1.0` by default.
    public var applicationVersion: String
    /// Path templates; `{appConfigID}`, `{emailAddress}` and `{onboardingCode}` are replaced, percent-encoded.
    public var emailPath: String
    /// The path template for lookups by onboarding code, appended to ``serviceURL`` like ``emailPath``.
    public var codePath: String
    /// The whole request, connection included, must finish within this.
    public var timeout: Duration
    /// Answers larger than this are refused.
    public var maxResponseBytes: Int
    /// Accept plain http when the service URL's host is a loopback address; off by default, so only
    /// https is accepted (`activate onboard` turns it on).
    public var allowInsecureLoopback: Bool
    /// Checks what the service returns.
    public var recognizer: PayloadRecognizer
    /// Input given up front (the CLI's `--email`/`--code`); without it the loader asks.
    public var presetInput: ProviderInput?

    /// Makes a provider. Defaults: version `1.0`, the legacy paths, a 10-second timeout, the default
    /// document size limit, https only, and no preset input (the loader asks).
    public init(
        serviceURL: String, applicationID: String, applicationVersion: String = "1.0",
        emailPath: String = DiscoveryServiceProvider.emailPathTemplate,
        codePath: String = DiscoveryServiceProvider.codePathTemplate,
        timeout: Duration = .seconds(10), maxResponseBytes: Int = ConfigurationLimits.default.maxDocumentBytes,
        allowInsecureLoopback: Bool = false, recognizer: PayloadRecognizer = PayloadRecognizer(),
        presetInput: ProviderInput? = nil
    ) {
        self.serviceURL = serviceURL
        self.applicationID = applicationID
        self.applicationVersion = applicationVersion
        self.emailPath = emailPath
        self.codePath = codePath
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.allowInsecureLoopback = allowInsecureLoopback
        self.recognizer = recognizer
        self.presetInput = presetInput
    }

    public var inputKeys: [ProviderInputKey] { presetInput == nil ? [.emailAddress, .onboardingCode] : [] }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        let answers = presetInput ?? input
        let (url, what) = try lookupURL(answers)
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        let shown = Self.withoutLookup(url)
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
        } catch {
            throw ConfigurationError(
                .serviceUnavailable, source: shown,
                "the discovery service could not be reached (\(Self.describe(error)))")
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maxResponseBytes)
        } catch is NIOTooManyBytesError {
            throw ConfigurationError(
                .inputTooLarge, source: shown, "the answer exceeds the \(ByteCount(maxResponseBytes)) limit")
        } catch {
            throw ConfigurationError(
                .serviceUnavailable, source: shown, "the answer was cut off (\(Self.describe(error)))")
        }
        switch response.status.code {
        case 200 where body.readableBytes > 0:
            var provided = try recognizer.configuration(from: Array(buffer: body), source: shown)
            provided.origin = shown
            return provided
        case 200, 204, 404:
            throw ConfigurationError(.notFound, source: shown, "the discovery service has no configuration for \(what)")
        case 410:
            // The service says why: expired, used or revoked (an unknown or missing reason: expired).
            switch DiscoveryErrorBody(json: Array(buffer: body)).flatMap({ GoneReason(errorCode: $0.error.code) }) {
            case .used?:
                throw ConfigurationError(
                    .codeUsed, source: shown, "\(what) was already used; ask your administrator for a new one")
            case .revoked?:
                throw ConfigurationError(
                    .codeRevoked, source: shown, "\(what) was revoked; ask your administrator for a new one")
            case .expired?, nil:
                throw ConfigurationError(
                    .expired, source: shown, "\(what) has expired; ask your administrator for a new one")
            }
        case 429:
            let wait = response.headers.first(name: "Retry-After").flatMap(Int.init).map { " in \($0) s" } ?? " later"
            throw ConfigurationError(
                .rateLimited, source: shown,
                "the discovery service refuses further attempts for now (too many failed lookups); try again\(wait)")
        default:
            throw ConfigurationError(
                .serviceUnavailable, source: shown, "the discovery service answered HTTP \(response.status.code)")
        }
    }

    /// The request URL for the given input (e-mail preferred) and how to name the lookup in messages.
    func lookupURL(_ input: ProviderInput) throws -> (url: String, what: String) {
        let base = try Self.checkedServiceBase(serviceURL, allowInsecureLoopback: allowInsecureLoopback)
        let appConfigID = "\(applicationID):\(applicationVersion)"
        if let email = input[.emailAddress]?.trimmingCharacters(in: .whitespaces), !email.isEmpty {
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
                !parts[1].hasSuffix(".")
            else {
                throw ConfigurationError(
                    .invalidValue, source: "e-mail address", "\"\(email)\" does not look like local@domain")
            }
            let path = emailPath.replacingOccurrences(of: "{appConfigID}", with: Self.encode(appConfigID))
                .replacingOccurrences(of: "{emailAddress}", with: Self.encode(email))
            return (base + path, "the e-mail domain \(parts[1].lowercased())")
        }
        if let code = input[.onboardingCode]?.trimmingCharacters(in: .whitespaces), !code.isEmpty {
            guard code.count <= 256 else {
                throw ConfigurationError(.invalidValue, source: "onboarding code", "longer than 256 characters")
            }
            // Sent as the service files it: `abcd-efgh jkmn` as `ABCDEFGHJKMN` (a code of another
            // alphabet goes as typed).
            let sent = OnboardingCode(typed: code)?.canonical ?? code
            let path = codePath.replacingOccurrences(of: "{appConfigID}", with: Self.encode(appConfigID))
                .replacingOccurrences(of: "{onboardingCode}", with: Self.encode(sent))
            return (base + path, "this onboarding code")
        }
        throw ConfigurationError(
            .notFound, source: "discovery service", "no e-mail address or onboarding code was given")
    }

    /// A discovery service's base URL, judged in canonical form like every server URL
    /// (``CanonicalURL``): https, or plain http to a loopback host when allowed; no user name,
    /// query or fragment.
    static func checkedServiceURL(_ url: String, allowInsecureLoopback: Bool) throws -> CanonicalURL {
        let service: CanonicalURL
        do {
            service = try CanonicalURL(parsing: url)
        } catch let error as ConfigurationError {
            throw ConfigurationError(error.code, source: "discovery service", error.reason)
        }
        if service.hasUserInfo || service.query != nil || service.fragment != nil {
            throw ConfigurationError(
                .invalidURL, source: "discovery service",
                "\(CanonicalURL.shown(url)): give the base URL only, without user name, query or fragment")
        }
        if service.scheme != "https" {
            guard allowInsecureLoopback, service.host.isLoopback else {
                throw ConfigurationError(
                    .insecureURL, source: "discovery service",
                    "\(service) is not https (plain http is accepted only for a loopback address given explicitly)")
            }
        }
        return service
    }

    /// ``checkedServiceURL(_:allowInsecureLoopback:)`` as the base that request paths are
    /// appended to: without a trailing `/`.
    static func checkedServiceBase(_ url: String, allowInsecureLoopback: Bool) throws -> String {
        let service = try checkedServiceURL(url, allowInsecureLoopback: allowInsecureLoopback)
        return service.path.hasSuffix("/") ? String(service.description.dropLast()) : service.description
    }

    /// Percent-encodes everything but unreserved characters and `@` (the quotes of the template stay raw).
    static func encode(_ value: String) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~@:")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The URL up to the lookup function's arguments, which hold the e-mail or code: messages and
    /// logs name the service, not the person or the code.
    static func withoutLookup(_ url: String) -> String {
        guard let open = url.firstIndex(of: "(") else { return url }
        return String(url[..<open]) + "(…)"
    }

    /// What went wrong with a request, for people, from the error's type: never by matching its text.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error):
            return "timed out"
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return "the connection was closed"
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.first { return describe(failure.error) }
            return error.dnsAError != nil || error.dnsAAAAError != nil
                ? "its host name does not resolve" : "no address to connect to"
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return "connection refused"
        case is SocketAddressError:
            return "its host name does not resolve"
        default:
            let text = String(describing: error)
            return text.count > 120 ? String(text.prefix(120)) + "…" : text
        }
    }
}
