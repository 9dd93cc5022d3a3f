import ActivationConfiguration
import ActivationDiscoveryProtocol
import AsyncHTTPClient
import Foundation
import NIOCore

/// The client side of a discovery service's admin API (`/admin/v1`, a bearer token): what the
/// `activate discovery …` commands send. Answers are JSON values; errors are `ConfigurationError`s
/// carrying the service's own message, never the token.
package struct DiscoveryAdminClient: Sendable {
    /// The service's base URL: https, or http to a loopback address.
    package let base: String
    private let token: String
    package var timeout: Duration = .seconds(30)
    /// Answers larger than this are refused (a listing of 10,000 codes fits).
    package var maxResponseBytes = 16 << 20

    /// A client of the service at `serviceURL` presenting `token`.
    ///
    /// - Throws: `ConfigurationError` for a URL that is not https (http only to a loopback address),
    ///   or that has a user name, query or fragment.
    package init(serviceURL: String, token: String) throws {
        base = try DiscoveryServiceProvider.checkedServiceBase(serviceURL, allowInsecureLoopback: true)
        self.token = token
    }

    /// Reads the token from `path` (the first line that is not empty or a `#` comment); the file
    /// must be readable by its owner only.
    package static func token(file path: String) throws -> String {
        let text = String(decoding: try FileIO.readSecret(path, limit: 64 << 10, what: "the token file"), as: UTF8.self)
        guard let token = text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            .first(where: { !$0.isEmpty && !$0.hasPrefix("#") }) else {
            throw ConfigurationError(.invalidKey, source: path, "no token in the file")
        }
        return token
    }

    /// `path` below `/admin/v1/`, each segment percent-encoded.
    package static func path(_ segments: [String]) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
    }

    /// Sends one call and returns the answer's JSON.
    ///
    /// - Throws: `ConfigurationError`: `serviceUnavailable` when the service cannot be reached,
    ///   answers 5xx or not JSON; `notFound` for 404; `invalidKey` for a refused token (401);
    ///   `rateLimited` for 429; `invalidValue` for another refusal, with the service's message and key path.
    package enum Method: String, Sendable { case get = "GET", put = "PUT", post = "POST", delete = "DELETE" }

    package func call(_ method: Method, _ path: String, query: [(String, String)] = [], body: ConfigurationValue? = nil,
                      rawBody: [UInt8]? = nil) async throws -> ConfigurationValue {
        var url = "\(base)/admin/v1/\(path)"
        if !query.isEmpty {
            url += "?" + query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        switch method {
        case .get: request.method = .GET
        case .put: request.method = .PUT
        case .post: request.method = .POST
        case .delete: request.method = .DELETE
        }
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let bytes = rawBody ?? body.map({ Array(JSONWriter.compact($0).utf8) }) {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let shown = "\(base)/admin/v1/\(path)"
        let status: UInt, bytes: [UInt8]
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .init(timeout))
            status = response.status.code
            bytes = Array(buffer: try await response.body.collect(upTo: maxResponseBytes))
        } catch {
            throw ConfigurationError(.serviceUnavailable, source: shown, "the discovery service could not be reached (\(DiscoveryServiceProvider.describe(error)))")
        }
        guard status >= 300 else {
            do {
                return try JSONReader(maxBytes: maxResponseBytes).parse(bytes, source: shown)
            } catch let error as ConfigurationError {
                throw ConfigurationError(.serviceUnavailable, source: shown, "the answer is not JSON (\(error.message))")
            }
        }
        // The protocol's error code decides; an answer without one (a proxy's page) is judged by its status.
        guard let error = DiscoveryErrorBody(json: bytes)?.error else {
            throw ConfigurationError(status < 500 ? .invalidValue : .serviceUnavailable, source: shown, "HTTP \(status)")
        }
        let code: ConfigurationError.Code = switch error.code {
        case .unauthorized: .invalidKey
        case .notFound: .notFound
        case .rateLimited: .rateLimited
        case .unavailable, .notReady, .busy: .serviceUnavailable
        case .expired, .used, .revoked, .badRequest, .invalidDocument, .invalidSettings, .methodNotAllowed, .tooLarge, .tooLong: .invalidValue
        }
        throw ConfigurationError(code, source: shown, keyPath: error.keyPath, error.code == .unauthorized ? "the token was refused" : error.message)
    }
}
