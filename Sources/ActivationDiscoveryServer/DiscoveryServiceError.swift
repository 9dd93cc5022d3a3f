import ActivationConfiguration

/// The error type of `ActivationDiscoveryServer`: why a ``DiscoveryService`` does not start
/// (its database, its token file, its code secret, the folder it serves).
///
/// `code` is for programs (match the code, never the text); `source` is the file or database at
/// fault (a database URL without its password); `reason` is the sentence for people. Documents,
/// client policies and files are checked with `ConfigurationError`, as everywhere else. Requests
/// never end in an error of this type: they are answered with the protocol's error codes.
///
/// Two errors are equal when their codes are.
public struct DiscoveryServiceError: LocatedError {
    /// A stable identifier of the kind of failure, from a closed set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidDatabaseURL = "invalid-database-url"
            case databaseUnavailable = "database-unavailable"
            case databaseUnwritable = "database-unwritable"
            case schemaTooNew = "schema-too-new"
            case invalidTokenFile = "invalid-token-file"
            case invalidSecret = "invalid-secret"
            case invalidFolder = "invalid-folder"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `database-unavailable`: what the documentation shows.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The database is named in a form the service does not take (`sqlite:PATH`,
        /// `postgres://user@host/database` or `none`), or `none` without a folder to serve.
        public static let invalidDatabaseURL = Code(.invalidDatabaseURL)
        /// The PostgreSQL server cannot be reached, refuses the credentials, or fails its check.
        public static let databaseUnavailable = Code(.databaseUnavailable)
        /// The SQLite file cannot be opened for writing, or fails its check.
        public static let databaseUnwritable = Code(.databaseUnwritable)
        /// The database has a schema newer than this version of the service knows.
        public static let schemaTooNew = Code(.schemaTooNew)
        /// The admin token file holds no token, or a line that is no token.
        public static let invalidTokenFile = Code(.invalidTokenFile)
        /// The onboarding-code secret is too short or not base64.
        public static let invalidSecret = Code(.invalidSecret)
        /// The folder's `discovery.json` is not what the service serves (the key path says where).
        public static let invalidFolder = Code(.invalidFolder)
    }

    /// What went wrong, for programs.
    public var code: Code
    /// The file or database at fault.
    public var source: String?
    /// The key path inside `discovery.json`, when the error is about one value.
    public var keyPath: String?
    /// What went wrong, without the source and key path.
    public var message: String

    /// Makes an error; control or bidirectional characters in every part become visible escapes
    /// (`UntrustedText`).
    ///
    /// - Parameters:
    ///   - code: what went wrong, for programs.
    ///   - source: the file or database at fault.
    ///   - keyPath: the key path of the value at fault.
    ///   - message: what went wrong, for people, without the source and key path.
    public init(_ code: Code, source: String? = nil, keyPath: String? = nil, _ message: String) {
        self.code = code
        (self.source, self.keyPath, self.message) = Self.escaped(source: source, keyPath: keyPath, message: message)
    }
}
