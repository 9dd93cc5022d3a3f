import ActivationConfiguration
import ActivationDiscoveryProtocol

/// The error type of `ActivationDiscovery`'s HTTP clients: a server that could not be asked, or
/// that answered with a refusal (``DiscoveryAdminClient``, ``SettingsExchangeClient``).
///
/// `code` is for programs (match the code, never the text); `source` is the URL asked (never with
/// a token or password); `reason` is the sentence for people. A URL that the security policy
/// refuses, and a document that cannot be read, are `ConfigurationError`s, as everywhere else; so
/// are the errors of ``DiscoveryServiceProvider``, which the configuration loader gathers.
///
/// Two errors are equal when their codes are.
public struct DiscoveryClientError: LocatedError {
    /// A stable identifier of the kind of failure, from a closed set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case unreachable = "unreachable"
            case invalidAnswer = "invalid-answer"
            case unauthorized = "unauthorized"
            case notFound = "not-found"
            case rateLimited = "rate-limited"
            case refused = "refused"
            case noToken = "no-token"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `unreachable`: what the documentation shows.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The server could not be reached, timed out, answered with a redirect (never followed)
        /// or failed (5xx, or the service said it is unavailable, not ready or busy).
        public static let unreachable = Code(.unreachable)
        /// The answer is not what the protocol says: not its JSON, or larger than the client reads.
        public static let invalidAnswer = Code(.invalidAnswer)
        /// The server refused or asked for the credentials or token (HTTP 401 or 403).
        public static let unauthorized = Code(.unauthorized)
        /// The server has no such thing (HTTP 404): no client policies for the application, or no
        /// such document, domain, code or application.
        public static let notFound = Code(.notFound)
        /// Too many failed attempts from this client: the service refuses for now (HTTP 429).
        public static let rateLimited = Code(.rateLimited)
        /// The service refused the request for another reason; ``DiscoveryClientError/refusal``
        /// holds its error code (an invalid document, a code that is used up, …).
        public static let refused = Code(.refused)
        /// A token file holds no token.
        public static let noToken = Code(.noToken)
    }

    /// What went wrong, for programs.
    public var code: Code
    /// The URL asked, or the file read.
    public var source: String?
    /// The key path of the value the service refused, when it named one.
    public var keyPath: String?
    /// The service's own error code, when it answered with one.
    public var refusal: DiscoveryErrorCode?
    /// What went wrong, without the source and key path.
    public var message: String

    /// Makes an error; control or bidirectional characters in every part (a service's message is
    /// untrusted text) become visible escapes (`UntrustedText`).
    ///
    /// - Parameters:
    ///   - code: what went wrong, for programs.
    ///   - source: the URL asked, or the file read.
    ///   - keyPath: the key path of the value the service refused.
    ///   - refusal: the service's own error code.
    ///   - message: what went wrong, for people, without the source and key path.
    public init(
        _ code: Code, source: String? = nil, keyPath: String? = nil, refusal: DiscoveryErrorCode? = nil,
        _ message: String
    ) {
        self.code = code
        (self.source, self.keyPath, self.message) = Self.escaped(source: source, keyPath: keyPath, message: message)
        self.refusal = refusal
    }
}
