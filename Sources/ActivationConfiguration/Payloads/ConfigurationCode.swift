/// Makes the payload of an activation code from a configuration document: checked, normalised,
/// written as canonical compact JSON, and optionally signed (JWS).
public enum ConfigurationCode {
    /// Reads a document (any format ``PayloadRecognizer`` reads), checks it against the
    /// recognizer's policy, and returns the text to put in the QR code.
    ///
    /// - Parameters:
    ///   - signingKey: sign the JSON into a compact JWS with this key.
    ///   - allowPasscode: a document with an OAuth passcode (a short-lived secret) is refused
    ///     unless this is set: a printed code outlives any passcode.
    /// - Throws: ``ConfigurationError`` when the input is no valid configuration.
    public static func make(from bytes: [UInt8], source: String, recognizer: PayloadRecognizer,
                            signingKey: SigningKey? = nil, allowPasscode: Bool = false) throws -> String {
        // The input is the administrator's own unsigned document, so it is checked as optional-signature.
        var policy = recognizer.policy
        policy.signature = .optional
        let payload = try PayloadRecognizer(policy: policy).recognize(bytes: bytes, source: source)
        guard let document = payload.document else {
            throw ConfigurationError(.notConfiguration, "\(source): \(payload.summary), not an onboarding configuration")
        }
        let hasPasscode = document.auth.contains { item in
            if case .oauth2(let settings) = item.method { return settings.clients.contains { $0.passcode != nil } }
            return false
        }
        if hasPasscode && !allowPasscode {
            throw ConfigurationError(.invalidValue, "\(source): the document carries an OAuth passcode, a short-lived secret; pass --allow-passcode to encode it anyway")
        }
        let json = document.canonicalJSON(includeSecrets: true)
        guard let signingKey else { return json }
        return try CompactJWS.sign(Array(json.utf8), with: signingKey)
    }
}
