import ActivationConfiguration
import ActivationDiscoveryProtocol
import AsyncHTTPClient
import Foundation
import NIOCore

/// A client of a discovery service's admin API (`/admin/v1`, a bearer token), one method per
/// operation of the OpenAPI document, with the bodies of ActivationDiscoveryProtocol: what the
/// `activate discovery …` commands, an MDM or a provisioning script use.
///
/// ```swift
/// let admin = try DiscoveryAdminClient(serviceURL: "https://discovery.example.com",
///                                      token: try DiscoveryAdminClient.token(file: "admin-token"))
/// let issued = try await admin.issueCodes(
///     appID: "com.example.app", CodeOrder(document: "fieldservice.json", count: 20))
/// ```
///
/// Errors are ``DiscoveryClientError``s mapped from the protocol's error codes, carrying the
/// service's message, key path and code, never the token: `unreachable` when the service cannot be
/// reached or answers 5xx; `invalidAnswer` when it answers not the expected JSON; `notFound` for
/// 404; `unauthorized` for a refused token; `rateLimited` for 429; `refused` for another refusal.
public struct DiscoveryAdminClient: Sendable {
    /// The service's base URL: https, or http to a loopback address.
    public let base: String
    private let token: String
    /// How long one call may take.
    public var timeout: Duration = .seconds(30)
    /// Answers larger than this are refused (a listing of 10,000 codes fits).
    public var maxResponseBytes = 16 << 20

    /// A client of the service at `serviceURL` presenting `token`.
    ///
    /// - Throws: `ConfigurationError` for a URL that is not https (http only to a loopback address),
    ///   or that has a user name, query or fragment.
    public init(serviceURL: String, token: String) throws {
        base = try DiscoveryServiceProvider.checkedServiceBase(serviceURL, allowInsecureLoopback: true)
        self.token = token
    }

    /// Reads the token from `path` (the first line that is not empty or a `#` comment); the file
    /// must be readable by its owner only.
    public static func token(file path: String) throws -> String {
        let text = String(decoding: try FileIO.readSecret(path, limit: 64 << 10, what: "the token file"), as: UTF8.self)
        guard
            let token = text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { !$0.isEmpty && !$0.hasPrefix("#") })
        else {
            throw DiscoveryClientError(.noToken, source: path, "no token in the file")
        }
        return token
    }

    // MARK: - Operations

    /// Every application the service knows, with its counts.
    public func applications() async throws -> ApplicationList {
        try await call(.listApplications)
    }

    /// The audit trail from `since` on (the service's default: the last day), newest first.
    public func audit(since: Date? = nil) async throws -> AuditList {
        try await call(.listAudit, query: since.map { ["since": $0.formatted(.iso8601)] } ?? [:])
    }

    /// An application's documents, each summarised as `activate inspect` would.
    public func documents(appID: String) async throws -> DocumentList {
        try await call(.listDocuments, appID)
    }

    /// Creates or replaces the document `name`; the service checks it first.
    public func putDocument(appID: String, name: String, json: [UInt8]) async throws -> DocumentListing {
        try await call(.putDocument, appID, name, body: json)
    }

    /// An application's e-mail domains.
    public func domains(appID: String) async throws -> DomainList {
        try await call(.listDomains, appID)
    }

    /// Serves `document` to the addresses of `domain` and its subdomains.
    public func putDomain(appID: String, domain: String, document: String) async throws -> DomainMapping {
        try await call(
            .putDomain, appID, domain, body: Array(AdminJSON.text(DomainAssignment(document: document)).utf8))
    }

    /// Stops serving `domain`.
    public func deleteDomain(appID: String, domain: String) async throws -> Deletion {
        try await call(.deleteDomain, appID, domain)
    }

    /// An application's codes (never the codes themselves), newest first, of one status or all.
    public func codes(appID: String, status: CodeStatus? = nil) async throws -> CodeList {
        try await call(.listCodes, appID, query: status.map { ["status": $0.rawValue] } ?? [:])
    }

    /// Issues codes: the only answer that holds them.
    public func issueCodes(appID: String, _ order: CodeOrder) async throws -> IssuedCodeList {
        try await call(.issueCodes, appID, body: Array(AdminJSON.text(order).utf8))
    }

    /// Revokes the code `id`: its lookups answer 410 revoked from now on.
    public func revokeCode(appID: String, id: Int64) async throws -> Revocation {
        try await call(.revokeCode, appID, String(id))
    }

    /// An application's client policies as stored.
    public func settings(appID: String) async throws -> SettingsRecord {
        try await call(.getSettings, appID)
    }

    /// Creates or replaces an application's client policies: SAP's `settingsExchange` JSON.
    public func putSettings(appID: String, json: [UInt8]) async throws -> SettingsRecord {
        try await call(.putSettings, appID, body: json)
    }

    /// Removes an application's client policies.
    public func deleteSettings(appID: String) async throws -> Deletion {
        try await call(.deleteSettings, appID)
    }

    // MARK: - HTTP

    /// Sends one call of `operation` and decodes its answer.
    func call<Answer: Decodable>(
        _ operation: AdminOperation, _ parameters: String..., query: [String: String] = [:],
        body: [UInt8]? = nil
    ) async throws -> Answer {
        let bytes = try await send(operation, path: operation.path(parameters), query: query, body: body)
        do {
            return try AdminJSON.decoder().decode(Answer.self, from: Data(bytes))
        } catch {
            throw DiscoveryClientError(
                .invalidAnswer, source: "\(base)\(operation.template)",
                "the answer is not the JSON of \(operation.rawValue)")
        }
    }

    /// Sends one call and returns the answer's bytes; a refusal is thrown as its error code says.
    func send(_ operation: AdminOperation, path: String, query: [String: String], body: [UInt8]?) async throws
        -> [UInt8]
    {
        let shown = base + path
        var url = shown
        if !query.isEmpty {
            url +=
                "?"
                + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(PercentEncoding.encodeSegment($0.value))" }
                .joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = .init(rawValue: operation.method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let status: UInt
        let bytes: [UInt8]
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
            status = response.status.code
            bytes = Array(buffer: try await response.body.collect(upTo: maxResponseBytes))
        } catch {
            throw DiscoveryClientError(
                .unreachable, source: shown,
                "the discovery service could not be reached (\(DiscoveryServiceProvider.describe(error)))")
        }
        guard status >= 300 else { return bytes }
        // The protocol's error code decides; an answer without one (a proxy's page) is judged by its status.
        guard let error = DiscoveryErrorBody(json: bytes)?.error else {
            throw DiscoveryClientError(status < 500 ? .refused : .unreachable, source: shown, "HTTP \(status)")
        }
        let code: DiscoveryClientError.Code =
            switch error.code {
            case .unauthorized: .unauthorized
            case .notFound: .notFound
            case .rateLimited: .rateLimited
            case .unavailable, .notReady, .busy: .unreachable
            case .expired, .used, .revoked, .badRequest, .invalidDocument, .invalidSettings, .methodNotAllowed,
                .tooLarge, .tooLong:
                .refused
            }
        throw DiscoveryClientError(
            code, source: shown, keyPath: error.keyPath, refusal: error.code,
            error.code == .unauthorized ? "the token was refused" : error.message)
    }
}
