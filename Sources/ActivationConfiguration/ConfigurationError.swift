/// The one error type of the `ActivationConfiguration` layer.
///
/// `code` says what went wrong in a way a program can switch on (match the code, never the text);
/// `source` (file, provider, URL) and `keyPath` say where; `reason` is the sentence a person reads,
/// e.g. `config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL`. Errors never contain
/// secrets, and say only what went wrong: advice on what to do (a command-line option, a command)
/// is the caller's to give.
///
/// Two errors are equal when their codes are: the code is the identity, the rest is the report.
/// The other libraries have error types of their own (`SecureStoreError`, `ImagingError`,
/// `OnboardingError`, …); the file errors of every library are this type's `file…` codes, as
/// every file is read and written through ``FileIO``.
public struct ConfigurationError: LocatedError {
    /// A stable identifier of the kind of failure, from a closed set: a switch over the static
    /// members needs no guess at codes of other libraries.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The closed set of kinds; the static members below are the only codes.
        private enum Kind: String, Sendable {
            case fileNotFound = "file-not-found"
            case fileUnreadable = "file-unreadable"
            case inputTooLarge = "input-too-large"
            case fileExists = "file-exists"
            case fileUnwritable = "file-unwritable"
            case invalidJSON = "invalid-json"
            case invalidUTF8 = "invalid-utf8"
            case invalidPropertyList = "invalid-property-list"
            case tooDeep = "too-deep"
            case tooManyItems = "too-many-items"
            case wrongType = "wrong-type"
            case missingKey = "missing-key"
            case invalidValue = "invalid-value"
            case invalidHost = "invalid-host"
            case invalidURL = "invalid-url"
            case unsupportedAuth = "unsupported-auth"
            case insecureURL = "insecure-url"
            case hostNotAllowed = "host-not-allowed"
            case signatureRequired = "signature-required"
            case signatureForbidden = "signature-forbidden"
            case signatureInvalid = "signature-invalid"
            case unsupportedAlgorithm = "unsupported-algorithm"
            case malformedSignedPayload = "malformed-signed-payload"
            case invalidKey = "invalid-key"
            case passcodeRefused = "passcode-refused"
            case notFound = "not-found"
            case expired = "expired"
            case codeUsed = "code-used"
            case codeRevoked = "code-revoked"
            case rateLimited = "rate-limited"
            case serviceUnavailable = "service-unavailable"
            case storeDamaged = "store-damaged"
            case passcodeRejected = "passcode-rejected"
            case notConfiguration = "not-configuration"
            case noCodeFound = "no-code-found"
            case invalidBase45 = "invalid-base45"
            case invalidCBOR = "invalid-cbor"
            case unknownKey = "unknown-key"
            case notYetValid = "not-yet-valid"
            case audienceMismatch = "audience-mismatch"
            case issuerMismatch = "issuer-mismatch"
            case invalidTrustList = "invalid-trust-list"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `file-not-found`: what `--json` output and the documentation show.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The file does not exist.
        public static let fileNotFound = Code(.fileNotFound)
        /// The file exists but cannot be read (permissions, a directory, an I/O error).
        public static let fileUnreadable = Code(.fileUnreadable)
        /// The input is larger than the cap the caller set.
        public static let inputTooLarge = Code(.inputTooLarge)
        /// The output file exists and the caller did not ask to replace it.
        public static let fileExists = Code(.fileExists)
        /// The output file could not be written.
        public static let fileUnwritable = Code(.fileUnwritable)

        // Reading documents
        /// The text is not valid JSON (the reason gives line and column).
        public static let invalidJSON = Code(.invalidJSON)
        /// The bytes are not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// The bytes are not a valid property list.
        public static let invalidPropertyList = Code(.invalidPropertyList)
        /// Arrays and objects are nested deeper than the cap.
        public static let tooDeep = Code(.tooDeep)
        /// More auth items, clients, or values in one document than the cap.
        public static let tooManyItems = Code(.tooManyItems)

        // Document content (reasons name the key path)
        /// A key holds the wrong kind of value.
        public static let wrongType = Code(.wrongType)
        /// A required key is missing.
        public static let missingKey = Code(.missingKey)
        /// A value has the right type but is not acceptable (a port of 0, an unknown grant type).
        public static let invalidValue = Code(.invalidValue)
        /// `host` holds a scheme or path, or a URL has no usable host.
        public static let invalidHost = Code(.invalidHost)
        /// A URL is not valid.
        public static let invalidURL = Code(.invalidURL)
        /// No auth item has a type this toolkit supports.
        public static let unsupportedAuth = Code(.unsupportedAuth)

        // Policy
        /// A URL is not https (or has user info or an IP literal) and the policy does not allow it.
        public static let insecureURL = Code(.insecureURL)
        /// A host is not on the policy's allow list.
        public static let hostNotAllowed = Code(.hostNotAllowed)
        /// The policy requires a signature and the payload has none.
        public static let signatureRequired = Code(.signatureRequired)
        /// The policy forbids signed payloads and this one is signed.
        public static let signatureForbidden = Code(.signatureForbidden)
        /// The signature does not verify with the given key.
        public static let signatureInvalid = Code(.signatureInvalid)
        /// The signature algorithm is `none` or not one this toolkit accepts.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// A JWS that is not three base64url parts with JSON header and payload.
        public static let malformedSignedPayload = Code(.malformedSignedPayload)
        /// A key file is not a usable PEM public or private key.
        public static let invalidKey = Code(.invalidKey)
        /// A configuration carries an OAuth passcode (a short-lived secret) where the caller did
        /// not allow one, or in a code that lives too long.
        public static let passcodeRefused = Code(.passcodeRefused)

        // Providers and the store
        /// A provider found nothing (no file, no such e-mail domain or code).
        public static let notFound = Code(.notFound)
        /// An onboarding code or a signed activation code has expired.
        public static let expired = Code(.expired)
        /// The onboarding code was used as many times as it may be.
        public static let codeUsed = Code(.codeUsed)
        /// The onboarding code was revoked by an administrator.
        public static let codeRevoked = Code(.codeRevoked)
        /// The service refused the request for now: too many failed attempts from this client.
        public static let rateLimited = Code(.rateLimited)
        /// A discovery service could not be reached or answered with an error.
        public static let serviceUnavailable = Code(.serviceUnavailable)
        /// The stored configuration is damaged.
        public static let storeDamaged = Code(.storeDamaged)

        // Passcodes (the secure store has its own errors: SecureStoreError in ActivationSecureStore)
        /// A passcode breaks the passcode policy (``PasscodePolicy/check(_:source:)``; the reason
        /// names every rule it breaks).
        public static let passcodeRejected = Code(.passcodeRejected)

        // Payloads
        /// The text is something else (a URL, Wi-Fi settings, a product code), not a configuration.
        public static let notConfiguration = Code(.notConfiguration)
        /// An image holds no QR code or barcode at all.
        public static let noCodeFound = Code(.noCodeFound)

        // Compact signed codes (`AC1:`) and trust lists
        /// The text after `AC1:` is not valid Base45.
        public static let invalidBase45 = Code(.invalidBase45)
        /// The bytes are not CBOR of the strict profile activation codes use (the reason says where).
        public static let invalidCBOR = Code(.invalidCBOR)
        /// The code's key id is in no trust list given, or the key is outside its validity period.
        public static let unknownKey = Code(.unknownKey)
        /// The code is not valid yet (`nbf`, or issued in the future), beyond the allowed clock skew.
        public static let notYetValid = Code(.notYetValid)
        /// The code names audiences (app ids) and the app is not one of them.
        public static let audienceMismatch = Code(.audienceMismatch)
        /// The code's issuer is not the one the trust list binds its key to.
        public static let issuerMismatch = Code(.issuerMismatch)
        /// A trust list is not valid (the reason names the entry and key).
        public static let invalidTrustList = Code(.invalidTrustList)
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
        (self.source, self.keyPath, self.message) = Self.escaped(source: source, keyPath: keyPath, message: message)
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
}
