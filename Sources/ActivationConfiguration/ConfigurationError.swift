/// The one error type of the `ActivationConfiguration` layer.
///
/// `code` says what went wrong in a way a program can switch on; `reason` is the sentence a person
/// reads. Reasons name the input (file name, or `-` for standard input) and, for documents, the key
/// path, e.g. `config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL`. They never
/// contain secrets.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `file-not-found`.
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file does not exist.
        public static let fileNotFound = Code("file-not-found")
        /// The file exists but cannot be read (permissions, a directory, an I/O error).
        public static let fileUnreadable = Code("file-unreadable")
        /// The input is larger than the cap the caller set.
        public static let inputTooLarge = Code("input-too-large")
        /// The output file exists and the caller did not ask to replace it.
        public static let fileExists = Code("file-exists")
        /// The output file could not be written.
        public static let fileUnwritable = Code("file-unwritable")
    }

    /// What went wrong, for programs.
    public var code: Code
    /// What went wrong, for people: names the input and, where there is one, the key path.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
