import ActivationConfiguration

/// The error type of `ActivationSecureStore`: why a store did not open, change or save.
///
/// `code` is for programs (match the code, never the text); `source` is the store's path;
/// `reason` is the sentence for people. Reading and writing the files can also fail with the file
/// codes of `ConfigurationError` (`fileUnreadable`, `fileUnwritable`, …), as every file goes
/// through `FileIO`; the contents' configuration is checked with `ConfigurationError` codes too.
/// Messages say what happened, never what to type: that advice is the app's.
///
/// Two errors are equal when their codes are.
public struct SecureStoreError: LocatedError {
    /// A stable identifier of the kind of failure, from a closed set.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case wrongPasscode = "wrong-passcode"
            case passcodeRequired = "passcode-required"
            case passcodeRejected = "passcode-rejected"
            case passcodeExpired = "passcode-expired"
            case storeBlocked = "store-blocked"
            case storeWiped = "store-wiped"
            case storeChanged = "store-changed"
            case storeDamaged = "store-damaged"
            case notAStore = "not-a-store"
            case storeExists = "store-exists"
            case contentsTooLarge = "contents-too-large"
            case invalidWorkFactor = "invalid-work-factor"
            case nothingToMove = "nothing-to-move"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `wrong-passcode`: what `--json` output and the documentation show.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The passcode does not open the store (another try may be left; the reason says how many).
        public static let wrongPasscode = Code(.wrongPasscode)
        /// The store needs a passcode and none was given.
        public static let passcodeRequired = Code(.passcodeRequired)
        /// A new passcode breaks the passcode policy (the reason names every rule), repeats the current
        /// one, or is missing where the policy requires a store to have one.
        public static let passcodeRejected = Code(.passcodeRejected)
        /// The passcode is older than the policy allows and must be changed before the store opens.
        public static let passcodeExpired = Code(.passcodeExpired)
        /// The store does not open: the device has been without contact with the server for too long.
        public static let storeBlocked = Code(.storeBlocked)
        /// The store was deleted: too many wrong passcodes, or too long without contact with the server.
        public static let storeWiped = Code(.storeWiped)
        /// Another process changed or deleted the store since it was opened; nothing was written.
        public static let storeChanged = Code(.storeChanged)
        /// The store, its state file or its device secret is damaged.
        public static let storeDamaged = Code(.storeDamaged)
        /// The file at the store's path is not a secure store (not an age file with a passphrase
        /// recipient); it is neither opened nor deleted.
        public static let notAStore = Code(.notAStore)
        /// A store is already there and the caller did not ask to replace it.
        public static let storeExists = Code(.storeExists)
        /// The contents would make a store larger than can be read back; nothing was written.
        public static let contentsTooLarge = Code(.contentsTooLarge)
        /// The scrypt work factor is outside 1 to ``SecureStore/maxWorkFactor``.
        public static let invalidWorkFactor = Code(.invalidWorkFactor)
        /// There is no plaintext configuration of an earlier version to move into a secure store.
        public static let nothingToMove = Code(.nothingToMove)
    }

    /// What went wrong, for programs.
    public var code: Code
    /// The store's path (or the file at fault beside it), when there is one.
    public var source: String?
    /// The key path inside the store's contents, when the error is about one value, e.g.
    /// `configuration.document.host`.
    public var keyPath: String?
    /// What went wrong, without the source and key path.
    public var message: String

    /// Makes an error; control or bidirectional characters in every part become
    /// visible escapes (`UntrustedText`), as paths and stored values are untrusted.
    ///
    /// - Parameters:
    ///   - code: what went wrong, for programs.
    ///   - source: the store's path, or the file at fault.
    ///   - keyPath: the key path of the value at fault inside the contents.
    ///   - message: what went wrong, for people, without the source and key path.
    public init(_ code: Code, source: String? = nil, keyPath: String? = nil, _ message: String) {
        self.code = code
        (self.source, self.keyPath, self.message) = Self.escaped(source: source, keyPath: keyPath, message: message)
    }
}
