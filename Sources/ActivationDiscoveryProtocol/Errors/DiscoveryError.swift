import Foundation

/// The `error.code` of every error answer of the discovery service: a closed set, so that clients
/// can act on it without reading messages.
public enum DiscoveryErrorCode: String, Codable, Sendable, CaseIterable {
    /// 404: no such document, domain, code, application or resource.
    case notFound = "not-found"
    /// 410: the onboarding code expired.
    case expired
    /// 410: the onboarding code was used as often as it may be.
    case used
    /// 410: the onboarding code was revoked.
    case revoked
    /// 429: past the guessing limits; `Retry-After` says when to try again.
    case rateLimited = "rate-limited"
    /// 401: no valid admin token.
    case unauthorized
    /// 400: a malformed call, path, query or body.
    case badRequest = "bad-request"
    /// 400: a configuration document that does not pass the checks of `activate inspect`.
    case invalidDocument = "invalid-document"
    /// 400: client policies that are no valid `settingsExchange` document.
    case invalidSettings = "invalid-settings"
    /// 405: a method the route does not answer.
    case methodNotAllowed = "method-not-allowed"
    /// 413: a body larger than allowed (lookups carry none).
    case tooLarge = "too-large"
    /// 414: a request target over ``DiscoveryRoute/maxTargetLength`` bytes.
    case tooLong = "too-long"
    /// 503: the database cannot complete the request.
    case unavailable
    /// 503 from `/ready`: the database cannot be reached.
    case notReady = "not-ready"
    /// 503: more connections than the service takes.
    case busy

    /// The HTTP status every answer with this code has.
    public var httpStatus: Int {
        switch self {
        case .notFound: 404
        case .expired, .used, .revoked: 410
        case .rateLimited: 429
        case .unauthorized: 401
        case .badRequest, .invalidDocument, .invalidSettings: 400
        case .methodNotAllowed: 405
        case .tooLarge: 413
        case .tooLong: 414
        case .unavailable, .notReady, .busy: 503
        }
    }
}

/// Why an onboarding code that existed is answered with 410.
public enum GoneReason: String, Codable, Sendable, CaseIterable {
    /// Past its expiry time.
    case expired
    /// Used as often as it may be.
    case used
    /// Revoked by an administrator.
    case revoked

    /// The error code of the 410.
    public var errorCode: DiscoveryErrorCode {
        switch self {
        case .expired: .expired
        case .used: .used
        case .revoked: .revoked
        }
    }

    /// The reason an error code names, if it is one.
    public init?(errorCode: DiscoveryErrorCode) {
        self.init(rawValue: errorCode.rawValue)
    }

    /// The sentence the service sends with the 410.
    public var message: String {
        switch self {
        case .expired: "this onboarding code has expired"
        case .used: "this onboarding code was already used"
        case .revoked: "this onboarding code was revoked"
        }
    }
}

/// Where an onboarding code stands, as the admin API lists it: a revoked code is revoked whatever
/// else holds, a used-up one used.
public enum CodeStatus: String, Codable, Sendable, CaseIterable {
    /// Can still be used.
    case active
    /// Used as often as it may be.
    case used
    /// Past its expiry time, with uses left.
    case expired
    /// Revoked by an administrator.
    case revoked
}

/// The body of every error answer: `{"error": {"code": …, "message": …, "keyPath": …}}`.
public struct DiscoveryErrorBody: Codable, Sendable, Hashable {
    /// What went wrong.
    public struct Detail: Codable, Sendable, Hashable {
        /// For programs.
        public var code: DiscoveryErrorCode
        /// For people.
        public var message: String
        /// The key path of the value at fault in the request body, when there is one.
        public var keyPath: String?

        /// An error's detail.
        public init(code: DiscoveryErrorCode, message: String, keyPath: String? = nil) {
            self.code = code
            self.message = message
            self.keyPath = keyPath
        }
    }

    /// The one member of the body.
    public var error: Detail

    /// An error answer's body.
    public init(_ code: DiscoveryErrorCode, _ message: String, keyPath: String? = nil) {
        error = Detail(code: code, message: message, keyPath: keyPath)
    }

    /// The body as the service sends it: compact JSON, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self))
            ?? #"{"error":{"code":"unavailable","message":""}}"#
    }

    /// Reads an error answer's body; nil when it is not one (a proxy's page, a newer code).
    public init?(json bytes: some Collection<UInt8>) {
        guard bytes.count <= 64 << 10, let body = try? JSONDecoder().decode(Self.self, from: Data(bytes)) else {
            return nil
        }
        self = body
    }
}
