import Foundation

/// Makes the payload of an activation code from a configuration document: checked as `scan` and
/// `inspect` would check the code, normalised, and written as canonical compact JSON, a signed
/// JWS, or a compact signed `AC1:` code.
public enum ConfigurationCode {
    /// How the configuration is written into the code.
    public enum Form: Sendable {
        /// Canonical compact JSON, unsigned (what SAP Mobile Services prints).
        case json
        /// A compact JWS over the JSON (SAP's signed QR code), `kid` = the key id.
        case jws(SigningKey)
        /// A compact signed `AC1:` code with these claims.
        case activationCode(SigningKey, ActivationCodeClaims)
    }

    /// The longest an `AC1:` code that carries an OAuth passcode may stay valid: the passcode
    /// itself lives about 30 seconds.
    public static let maxPasscodeLifetime: TimeInterval = 10 * 60

    /// Reads a document (any format ``PayloadRecognizer`` reads), checks it against the
    /// recognizer's policy and the default transformation, and returns the text to put in the
    /// QR code.
    ///
    /// - Parameters:
    ///   - bytes: the document, in any format ``PayloadRecognizer`` reads.
    ///   - source: names the input in errors.
    ///   - recognizer: reads the document and checks it with its policy.
    ///   - form: the code to make: plain JSON, a JWS, or a compact signed `AC1:` code.
    ///   - applicationID: the app id, for a document that names none (as `scan --app-id` supplies it).
    ///   - allowPasscode: a document with an OAuth passcode (a short-lived secret) is refused
    ///     unless this is set: a printed code outlives any passcode. An `AC1:` code that carries
    ///     one must expire within ``maxPasscodeLifetime``.
    /// - Throws: ``ConfigurationError`` when the input is no valid configuration, or one the
    ///   reading side would refuse.
    public static func make(
        from bytes: [UInt8], source: String, recognizer: PayloadRecognizer, form: Form = .json,
        applicationID: String? = nil, allowPasscode: Bool = false
    ) throws -> String {
        try makeCode(
            from: bytes, source: source, recognizer: recognizer, form: form, applicationID: applicationID,
            allowPasscode: allowPasscode
        ).text
    }

    /// A code's text and the checked document it carries.
    public struct Code: Sendable, Hashable {
        /// What goes into the QR code.
        public var text: String
        /// The document, normalised, with the app id filled in.
        public var document: ConfigurationDocument
    }

    /// Like ``make(from:source:recognizer:form:applicationID:allowPasscode:)``, also returning the
    /// document (for labels and reports).
    public static func makeCode(
        from bytes: [UInt8], source: String, recognizer: PayloadRecognizer, form: Form = .json,
        applicationID: String? = nil, allowPasscode: Bool = false
    ) throws -> Code {
        // The input is the administrator's own unsigned document, so it is checked as optional-signature.
        var unsigned = recognizer
        unsigned.policy.signature = .optional
        let payload = try unsigned.recognize(bytes: bytes, source: source)
        guard var document = payload.document else {
            throw ConfigurationError(
                .notConfiguration, source: source, "\(payload.summary), not an onboarding configuration")
        }
        if document.appID == nil { document.appID = applicationID }
        // What a scanner does next: the transformation needs an app id, a supported sign-in, ….
        _ = try ActivationReport(document: document, signature: .unsigned, source: source)
        let hasPasscode = document.auth.contains { item in
            if case .oauth2(let settings) = item.method { return settings.clients.contains { $0.passcode != nil } }
            return false
        }
        let hasClientSecret = document.auth.contains { item in
            if case .oauth2(let settings) = item.method { return settings.clients.contains { $0.clientSecret != nil } }
            return false
        }
        if hasClientSecret {
            // Anyone who sees a code reads it: a client secret in one is a secret no longer.
            throw ConfigurationError(
                .passcodeRefused, source: source,
                """
                the document carries an OAuth client secret, which never goes into a code; \
                give it to apps by file or managed configuration
                """
            )
        }
        if hasPasscode && !allowPasscode {
            throw ConfigurationError(
                .passcodeRefused, source: source,
                "the document carries an OAuth passcode, a short-lived secret, and passcodes are not allowed")
        }
        switch form {
        case .json:
            return Code(text: document.canonicalJSON(includeSecrets: true), document: document)
        case .jws(let key):
            return Code(
                text: try CompactJWS.sign(
                    Array(document.canonicalJSON(includeSecrets: true).utf8), with: key, keyID: key.keyID),
                document: document)
        case .activationCode(let key, let claims):
            if hasPasscode, claims.expires.timeIntervalSince(claims.issuedAt ?? Date()) > maxPasscodeLifetime {
                throw ConfigurationError(
                    .passcodeRefused, source: source,
                    "a code that carries a passcode must expire within \(Int(maxPasscodeLifetime / 60)) minutes")
            }
            return Code(
                text: try ActivationCode.make(document, claims: claims, signingKey: key, source: source),
                document: document)
        }
    }
}
