/// The one error type of the `ActivationConfiguration` layer.
///
/// `code` says what went wrong in a way a program can switch on (match the code, never the text);
/// `source` (file, provider, URL) and `keyPath` say where; `reason` is the sentence a person reads,
/// e.g. `config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL`. Errors never contain
/// secrets, and say only what went wrong: advice on what to do (a command-line option, a command)
/// is the caller's to give.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of failure. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The identifier, e.g. `file-not-found`.
        public let rawValue: String
        /// A code with the identifier `rawValue`; define your own as static constants, as the built-in ones are.
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

        // Reading documents
        /// The text is not valid JSON (the reason gives line and column).
        public static let invalidJSON = Code("invalid-json")
        /// The bytes are not valid UTF-8.
        public static let invalidUTF8 = Code("invalid-utf8")
        /// The bytes are not a valid property list.
        public static let invalidPropertyList = Code("invalid-property-list")
        /// Arrays and objects are nested deeper than the cap.
        public static let tooDeep = Code("too-deep")
        /// More auth items, clients, or values in one document than the cap.
        public static let tooManyItems = Code("too-many-items")

        // Document content (reasons name the key path)
        /// A key holds the wrong kind of value.
        public static let wrongType = Code("wrong-type")
        /// A required key is missing.
        public static let missingKey = Code("missing-key")
        /// A value has the right type but is not acceptable (a port of 0, an unknown grant type).
        public static let invalidValue = Code("invalid-value")
        /// `host` holds a scheme or path, or a URL has no usable host.
        public static let invalidHost = Code("invalid-host")
        /// A URL is not valid.
        public static let invalidURL = Code("invalid-url")
        /// No auth item has a type this toolkit supports.
        public static let unsupportedAuth = Code("unsupported-auth")

        // Policy
        /// A URL is not https (or has user info or an IP literal) and the policy does not allow it.
        public static let insecureURL = Code("insecure-url")
        /// A host is not on the policy's allow list.
        public static let hostNotAllowed = Code("host-not-allowed")
        /// The policy requires a signature and the payload has none.
        public static let signatureRequired = Code("signature-required")
        /// The policy forbids signed payloads and this one is signed.
        public static let signatureForbidden = Code("signature-forbidden")
        /// The signature does not verify with the given key.
        public static let signatureInvalid = Code("signature-invalid")
        /// The signature algorithm is `none` or not one this toolkit accepts.
        public static let unsupportedAlgorithm = Code("unsupported-algorithm")
        /// A JWS that is not three base64url parts with JSON header and payload.
        public static let malformedSignedPayload = Code("malformed-signed-payload")
        /// A key file is not a usable PEM public or private key.
        public static let invalidKey = Code("invalid-key")
        /// A configuration carries an OAuth passcode (a short-lived secret) where the caller did
        /// not allow one, or in a code that lives too long.
        public static let passcodeRefused = Code("passcode-refused")

        // Providers and the store
        /// A provider found nothing (no file, no such e-mail domain or code).
        public static let notFound = Code("not-found")
        /// An onboarding code or a signed activation code has expired.
        public static let expired = Code("expired")
        /// The onboarding code was used as many times as it may be.
        public static let codeUsed = Code("code-used")
        /// The onboarding code was revoked by an administrator.
        public static let codeRevoked = Code("code-revoked")
        /// The service refused the request for now: too many failed attempts from this client.
        public static let rateLimited = Code("rate-limited")
        /// A discovery service could not be reached or answered with an error.
        public static let serviceUnavailable = Code("service-unavailable")
        /// The stored configuration is damaged.
        public static let storeDamaged = Code("store-damaged")

        // The secure store
        /// The passcode does not open the store (another try may be left; the reason says how many).
        public static let wrongPasscode = Code("wrong-passcode")
        /// The store needs a passcode and none was given.
        public static let passcodeRequired = Code("passcode-required")
        /// A new passcode breaks the passcode policy (the reason names every rule), repeats the current
        /// one, or is missing where the policy requires a store to have one.
        public static let passcodeRejected = Code("passcode-rejected")
        /// The passcode is older than the policy allows and must be changed before the store opens.
        public static let passcodeExpired = Code("passcode-expired")
        /// The store does not open: the device has been without contact with the server for too long.
        public static let storeBlocked = Code("store-blocked")
        /// The store was deleted: too many wrong passcodes, or too long without contact with the server.
        public static let storeWiped = Code("store-wiped")
        /// Another process changed or deleted the store since it was opened; nothing was written.
        public static let storeChanged = Code("store-changed")

        // Payloads
        /// The text is something else (a URL, Wi-Fi settings, a product code), not a configuration.
        public static let notConfiguration = Code("not-configuration")
        /// An image holds no QR code or barcode at all.
        public static let noCodeFound = Code("no-code-found")

        // Compact signed codes (`AC1:`) and trust lists
        /// The text after `AC1:` is not valid Base45.
        public static let invalidBase45 = Code("invalid-base45")
        /// The bytes are not CBOR of the strict profile activation codes use (the reason says where).
        public static let invalidCBOR = Code("invalid-cbor")
        /// The code's key id is in no trust list given, or the key is outside its validity period.
        public static let unknownKey = Code("unknown-key")
        /// The code is not valid yet (`nbf`, or issued in the future), beyond the allowed clock skew.
        public static let notYetValid = Code("not-yet-valid")
        /// The code names audiences (app ids) and the app is not one of them.
        public static let audienceMismatch = Code("audience-mismatch")
        /// The code's issuer is not the one the trust list binds its key to.
        public static let issuerMismatch = Code("issuer-mismatch")
        /// A trust list is not valid (the reason names the entry and key).
        public static let invalidTrustList = Code("invalid-trust-list")
    }

    /// What went wrong, for programs.
    public var code: Code
    /// Where the input came from, when there is one: a file path (`-` for standard input), a
    /// provider (`discovery service`, `managed configuration`), or a URL.
    public var source: String?
    /// The key path inside the document, e.g. `auth[0].config.oauth2.tokenEndpoint`, when the error
    /// is about one value.
    public var keyPath: String?
    /// What went wrong, without the source and key path.
    public var message: String

    /// What went wrong, for people: `source: keyPath: message`, e.g.
    /// `config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL`.
    public var reason: String {
        [source, keyPath].compactMap { $0 }.map { $0 + ": " }.joined() + message
    }

    /// Makes an error; control or bidirectional characters in every part (they quote untrusted
    /// input) are replaced by visible escapes (``UntrustedText``).
    ///
    /// - Parameters:
    ///   - code: what went wrong, for programs.
    ///   - source: the file, provider or URL the input came from.
    ///   - keyPath: the key path of the value at fault.
    ///   - message: what went wrong, for people, without the source and key path.
    public init(_ code: Code, source: String? = nil, keyPath: String? = nil, _ message: String) {
        self.code = code
        self.source = source.map { UntrustedText.escaped($0) }
        self.keyPath = keyPath.map { UntrustedText.escaped($0) }
        self.message = UntrustedText.escaped(message)
    }

    /// Makes an error about the value at `path` of a document from `source` (the document itself
    /// when `path` is the root).
    public init(_ code: Code, source: String, at path: ConfigurationPath, _ message: String) {
        self.init(code, source: source, keyPath: path.components.isEmpty ? nil : path.description, message)
    }

    /// Makes an error whose message has several lines (a summary, then one line per cause); each
    /// line is escaped on its own, so only these line breaks remain.
    public init(_ code: Code, lines: [String]) {
        self.code = code
        self.message = lines.map { UntrustedText.escaped($0) }.joined(separator: "\n")
    }

    public var description: String { reason }
}
