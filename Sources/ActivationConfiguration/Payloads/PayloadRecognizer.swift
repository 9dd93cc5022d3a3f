import FileAccess
import Foundation

/// Whether and how a configuration was signed.
public enum SignatureStatus: Sendable, Hashable {
    /// No signature (plain JSON, a link, a file).
    case unsigned
    /// A signature that verified with a key the caller trusts.
    case verified(algorithm: SignatureAlgorithm, keyFingerprint: String, keyID: String?)

    /// `unsigned` or `verified`.
    public var name: String {
        switch self {
        case .unsigned: "unsigned"
        case .verified: "verified"
        }
    }
}

/// The evidence behind a verified signature: the signed code as it was received and the public
/// key that verified it. A store keeps it, so that `restore` can verify the signature again
/// instead of trusting a recorded "verified".
public struct SignatureProof: Sendable, Hashable {
    /// The compact JWS, `header.payload.signature`.
    public var signedCode: String
    /// The public key that verified it.
    public var key: VerificationKey

    /// A proof: `signedCode`, verified with `key`.
    public init(signedCode: String, key: VerificationKey) {
        self.signedCode = signedCode
        self.key = key
    }
}

/// What a payload (scanned text or a file's content) turned out to be.
public struct RecognizedPayload: Sendable, Hashable {
    /// The kinds of payload told apart. Only ``configuration`` carries a document.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An onboarding configuration (plain or signed JSON, a property list, an activation link).
        case configuration
        /// `AppParameters.plist` of a generated iOS project: app id and destinations, no server.
        case appParameters = "app-parameters"
        /// A web address.
        case url
        /// Wi-Fi network settings (`WIFI:S:…;`).
        case wifi
        /// A one-time-password secret (`otpauth://`).
        case otpauth
        /// A contact card (vCard, MECARD).
        case contact
        /// A product code (GTIN/EAN/UPC digits).
        case productCode = "product-code"
        /// Any other text.
        case text
    }

    /// The formats a configuration arrives in.
    public enum Format: String, Sendable, Hashable {
        /// A JSON document.
        case json
        /// A JWS in compact serialisation whose payload is the JSON document.
        case jws
        /// An XML property list.
        case xmlPropertyList = "xml-plist"
        /// A binary property list (`bplist00`).
        case binaryPropertyList = "binary-plist"
        /// A Mobile Development Kit activation link.
        case mdkLink = "mdk-link"
        /// A Mobile Cards activation link.
        case mobileCardsLink = "mobile-cards-link"
        /// Flattened MDM keys (`auth.0.type`, …), as MDM consoles store them.
        case mdmKeys = "mdm-keys"
        /// A compact signed activation code (`AC1:`).
        case activationCode = "ac1"
    }

    /// What the payload is.
    public var kind: Kind
    /// How a configuration was written; `nil` for other kinds.
    public var format: Format?
    /// The normalised, policy-checked document (``Kind/configuration`` only).
    public var document: ConfigurationDocument?
    /// The app parameters (``Kind/appParameters`` only).
    public var appParameters: AppParameters?
    /// Whether the payload was signed, and by which key if the signature was verified.
    public var signature: SignatureStatus
    /// One line saying what the payload is, for people; never contains secrets.
    public var summary: String
    /// For a verified signature: the signed code and the key that verified it.
    public var signatureProof: SignatureProof? = nil
    /// For an `AC1:` code: its issuer, audience, validity and id.
    public var claims: ActivationCodeClaims? = nil
}

/// Tells what a payload is and, for configurations, checks it against a ``SecurityPolicy``.
///
/// ```swift
/// let recognizer = PayloadRecognizer(policy: SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts))
/// let payload = try recognizer.recognize(text: scannedText, source: "activation.png")
/// if let document = payload.document { print("You will be connected to:", document.host) }
/// ```
public struct PayloadRecognizer: Sendable {
    /// The policy every configuration is checked against.
    public var policy: SecurityPolicy
    /// The clock that judges the validity of `AC1:` codes.
    public var clock: @Sendable () -> Date

    /// A recognizer that checks with `policy` (by default: https only, any host, signatures optional).
    ///
    /// - Parameters:
    ///   - policy: what a configuration must satisfy.
    ///   - clock: the time `AC1:` codes are judged at; the system clock unless a test fixes it.
    public init(policy: SecurityPolicy = SecurityPolicy(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.clock = clock
    }

    /// Recognises the content of a file or a scanned code: property lists by their bytes,
    /// everything else as UTF-8 text.
    ///
    /// - Throws: ``ConfigurationError`` when the bytes are a configuration that is broken or that
    ///   the policy rejects, or not valid UTF-8 text.
    public func recognize(bytes: [UInt8], source: String) throws -> RecognizedPayload {
        try checkSize(bytes.count, source: source)
        if PropertyListReader.looksLikePropertyList(bytes) {
            let value = try PropertyListReader.parse(bytes, source: source, limits: policy.limits)
            let format: RecognizedPayload.Format =
                bytes.starts(with: Array("bplist".utf8)) ? .binaryPropertyList : .xmlPropertyList
            if let object = value.objectValue, let parameters = try AppParameters(object, source: source) {
                return RecognizedPayload(
                    kind: .appParameters, format: format, appParameters: parameters, signature: .unsigned,
                    summary: "AppParameters.plist for \(parameters.applicationID)")
            }
            return try configuration(value, format: format, signature: .unsigned, source: source)
        }
        var text = bytes
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }  // a BOM some editors write
        return try recognize(text: try InputText.utf8(text, source: source), source: source)
    }

    /// Recognises scanned or pasted text.
    ///
    /// - Throws: ``ConfigurationError`` when the text is a configuration that is broken or that the
    ///   policy rejects. Text that is no configuration (a URL, Wi-Fi settings, a product code) is
    ///   returned with its kind, not thrown.
    public func recognize(text: String, source: String) throws -> RecognizedPayload {
        try checkSize(text.utf8.count, source: source)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)

        if trimmed.hasPrefix("{") {
            let value = try JSONReader(
                maxBytes: policy.limits.maxDocumentBytes, maxDepth: policy.limits.maxDepth,
                maxValues: policy.limits.maxValues
            )
            .parse(Array(trimmed.utf8), source: source)
            let format: RecognizedPayload.Format =
                value.objectValue?.keys.contains { $0.contains("/") } == true ? .mdmKeys : .json
            return try configuration(value, format: format, signature: .unsigned, source: source)
        }
        if CompactJWS.looksLikeJWS(trimmed) {
            return try signedConfiguration(trimmed, source: source)
        }
        if ActivationCode.isActivationCode(trimmed) {
            return try activationCode(trimmed, source: source)
        }
        if let style = ActivationLink.style(of: trimmed) {
            let value = try ActivationLink.document(from: trimmed, style: style, source: source)
            return try configuration(
                value, format: style == .mdk ? .mdkLink : .mobileCardsLink, signature: .unsigned, source: source)
        }
        return Self.other(trimmed)
    }

    // MARK: - Configurations

    private func configuration(
        _ value: ConfigurationValue, format: RecognizedPayload.Format, signature: SignatureStatus,
        proof: SignatureProof? = nil, source: String
    ) throws -> RecognizedPayload {
        if signature == .unsigned && policy.signature == .required {
            throw ConfigurationError(
                .signatureRequired, source: source,
                "the configuration is not signed, and the policy requires a signature")
        }
        let document = try ConfigurationDocument(from: value, source: source, limits: policy.limits)
        try policy.check(document, source: source)
        return RecognizedPayload(
            kind: .configuration, format: format, document: document, signature: signature,
            summary: "onboarding configuration for \(document.host)", signatureProof: proof)
    }

    private func signedConfiguration(_ text: String, source: String) throws -> RecognizedPayload {
        let parts = try CompactJWS.parse(text, source: source)
        if policy.signature == .forbidden {
            throw ConfigurationError(
                .signatureForbidden, source: source,
                "the configuration is signed (\(parts.algorithm.rawValue)), and the policy forbids signed codes")
        }
        let key = try CompactJWS.verify(parts, with: policy.verificationKeys, source: source)
        // Only now, with the signature holding, is the payload parsed.
        let value = try JSONReader(
            maxBytes: policy.limits.maxDocumentBytes, maxDepth: policy.limits.maxDepth,
            maxValues: policy.limits.maxValues
        )
        .parse(parts.payload, source: "\(source) (signed payload)")
        let status = SignatureStatus.verified(
            algorithm: parts.algorithm, keyFingerprint: key.fingerprint, keyID: parts.keyID)
        return try configuration(
            value, format: .jws, signature: status, proof: SignatureProof(signedCode: text, key: key), source: source)
    }

    private func activationCode(_ text: String, source: String) throws -> RecognizedPayload {
        if policy.signature == .forbidden {
            throw ConfigurationError(
                .signatureForbidden, source: source,
                "the configuration is a signed AC1 code, and the policy forbids signed codes")
        }
        let keys = policy.activationCodeKeys
        if keys.entries.isEmpty {
            // A broken code is reported as broken first (reading order), then the missing keys.
            let frame = try ActivationCode.frame(of: text, source: source)
            throw ConfigurationError(
                .unknownKey, source: source,
                """
                the code is signed by key \(Hex.encode(frame.keyID)), \
                and no trust list or public key was given to verify it
                """
            )
        }
        let code = try ActivationCode.verify(
            text, trustList: keys, at: clock(), applicationID: policy.applicationID, source: source)
        let entry = code.trustEntry
        let status = SignatureStatus.verified(
            algorithm: code.algorithm, keyFingerprint: entry.keyID, keyID: entry.keyID)
        var payload = try configuration(
            code.document, format: .activationCode, signature: status,
            proof: SignatureProof(signedCode: text, key: entry.key), source: source)
        if let document = payload.document { try policy.check(document, signedBy: entry, source: source) }
        payload.claims = code.claims
        return payload
    }

    private func checkSize(_ count: Int, source: String) throws {
        if count > policy.limits.maxDocumentBytes {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                "\(ByteCount(count)) exceeds the \(ByteCount(policy.limits.maxDocumentBytes)) limit for a configuration"
            )
        }
    }

    // MARK: - Everything else

    static func other(_ text: String) -> RecognizedPayload {
        let lowered = text.lowercased()
        func result(_ kind: RecognizedPayload.Kind, _ summary: String) -> RecognizedPayload {
            RecognizedPayload(
                kind: kind, signature: .unsigned, summary: UntrustedText.escaped(summary, maxCharacters: 200))
        }
        if lowered.hasPrefix("wifi:") {
            let ssid =
                text.components(separatedBy: ";").first {
                    $0.uppercased().hasPrefix("WIFI:S:") || $0.uppercased().hasPrefix("S:")
                }
                .map { String($0.split(separator: ":").last ?? "") } ?? ""
            return result(
                .wifi, "Wi-Fi settings\(ssid.isEmpty ? "" : " for the network \"\(ssid)\"") (the password is not shown)"
            )
        }
        if lowered.hasPrefix("otpauth://") {
            return result(.otpauth, "a one-time-password secret (otpauth; not shown)")
        }
        if lowered.hasPrefix("begin:vcard") || lowered.hasPrefix("mecard:") {
            return result(.contact, "a contact card")
        }
        if lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), let url = try? CanonicalURL(parsing: text) {
            return result(.url, "a web address on \(url.host)")
        }
        if [8, 12, 13, 14].contains(text.count), text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            return result(.productCode, "a product code (\(text))")
        }
        return result(.text, "plain text (\(text.count) character\(text.count == 1 ? "" : "s"))")
    }
}
