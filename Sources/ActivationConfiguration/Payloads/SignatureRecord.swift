import Foundation

/// A signature as the reports print it: `configuration.signature` of ``InspectReport`` and
/// `signature` of ``RestoreReport`` (docs/generating-and-inspecting.md, "inspect --json";
/// docs/onboarding.md, "restore --json"). The store file keeps the same record, with the signed
/// code added. Absent fields are left out of the JSON.
public struct SignatureRecord: Codable, Sendable, Hashable {
    /// `unsigned` or `verified` (``SignatureStatus/name``).
    public var status: String
    /// The algorithm of a verified signature (``SignatureAlgorithm``'s raw value: `ES256`, `EdDSA`, …).
    public var algorithm: String?
    /// The key id of the key that verified it: the first 16 hex digits of SHA-256 over its
    /// SubjectPublicKeyInfo.
    public var keyFingerprint: String?
    /// The `kid` the signed code names, if it names one.
    public var keyID: String?
    /// An `AC1:` code's issuer (`iss`).
    public var issuer: String?
    /// An `AC1:` code's expiry (`exp`), ISO 8601 in UTC.
    public var expires: String?
    /// An `AC1:` code's start of validity (`nbf`), ISO 8601 in UTC.
    public var notBefore: String?
    /// When an `AC1:` code was made (`iat`), ISO 8601 in UTC.
    public var issuedAt: String?
    /// The app ids an `AC1:` code is limited to (`aud`); absent when it is for any app.
    public var audience: [String]?
    /// The public key that verified a stored signature, base64 DER (``RestoreReport`` only).
    public var publicKey: String?

    /// The record of `status`, with an `AC1:` code's `claims` and, for a stored configuration, the
    /// public key of its `proof` (never the signed code, which carries the document unredacted).
    public init(_ status: SignatureStatus, claims: ActivationCodeClaims? = nil, proof: SignatureProof? = nil) {
        self.status = status.name
        if case .verified(let algorithm, let fingerprint, let keyID) = status {
            self.algorithm = algorithm.rawValue
            keyFingerprint = fingerprint
            self.keyID = keyID
        }
        if let claims {
            issuer = claims.issuer
            expires = claims.expires.formatted(.iso8601)
            notBefore = claims.notBefore?.formatted(.iso8601)
            issuedAt = claims.issuedAt?.formatted(.iso8601)
            audience = claims.audience.isEmpty ? nil : claims.audience
        }
        publicKey = proof.map { Base64.encode($0.key.derRepresentation) }
    }

    /// The record in the store file's key order, with `signedCode` before `publicKey` as the store
    /// has always written them (files stay byte for byte what earlier versions wrote).
    func storeValue(signedCode: String?) -> ConfigurationObject {
        var object: ConfigurationObject = ["status": .string(status)]
        let texts: [(String, String?)] = [
            ("algorithm", algorithm), ("keyFingerprint", keyFingerprint), ("keyID", keyID), ("issuer", issuer),
            ("expires", expires), ("notBefore", notBefore), ("issuedAt", issuedAt),
        ]
        for (key, text) in texts { object[key] = text.map(ConfigurationValue.string) }
        object["audience"] = audience.map { .array($0.map(ConfigurationValue.string)) }
        object["signedCode"] = signedCode.map(ConfigurationValue.string)
        object["publicKey"] = publicKey.map(ConfigurationValue.string)
        return object
    }
}
