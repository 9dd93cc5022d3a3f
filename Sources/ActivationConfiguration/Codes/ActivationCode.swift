import Crypto
import Foundation

/// What an `AC1:` code says about itself (CWT claims, RFC 8392).
public struct ActivationCodeClaims: Sendable, Hashable {
    /// `iss`: a short id of who issued the code.
    public var issuer: String?
    /// `aud`: the app ids that may use the code; empty for any app.
    public var audience: [String]
    /// `exp`: the code is refused after this (mandatory).
    public var expires: Date
    /// `nbf`: the code is refused before this.
    public var notBefore: Date?
    /// `iat`: when the code was made.
    public var issuedAt: Date?
    /// `cti`: 8 random bytes that tell codes apart.
    public var codeID: [UInt8]

    /// Claims for a new code; `codeID` defaults to 8 random bytes.
    public init(
        issuer: String? = nil, audience: [String] = [], expires: Date, notBefore: Date? = nil,
        issuedAt: Date? = Date(), codeID: [UInt8]? = nil
    ) {
        self.issuer = issuer
        self.audience = audience
        self.expires = expires
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        var random = SystemRandomNumberGenerator()
        self.codeID = codeID ?? (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
}

/// The compact signed activation code, `AC1:` + Base45(COSE_Sign1(CWT claims + DEFLATE(compact
/// configuration))), docs/activation-codes.md. A signed code with an expiry that fits a smaller QR code
/// than today's unsigned JSON.
///
/// Reading follows a fixed order, and nothing past the COSE frame is parsed or inflated before the
/// signature holds: length and alphabet → prefix → strict Base45 → strict CBOR of the frame →
/// algorithm and key id in the trust list → signature → claims (`exp`, `nbf` with ±5 minutes,
/// `aud`, `iss`) → inflate (32 KiB cap) → compact configuration → the document, which the caller
/// then checks against its policy and the key's allowed hosts.
///
/// ```swift
/// let trust = try TrustList(contentsOf: "trust.json")
/// let code = try ActivationCode.verify(
///     scannedText, trustList: trust, applicationID: "com.example.app", source: "scan")
/// let document = try ConfigurationDocument(from: code.document, source: "scan")
/// ```
public enum ActivationCode {
    /// The text every activation code starts with.
    public static let prefix = "AC1:"
    /// The most characters a QR code holds in alphanumeric mode.
    public static let maxLength = 4296
    /// The most bytes the configuration may inflate to.
    public static let maxInflatedBytes = 32 << 10
    /// How far apart the signer's and reader's clocks may be.
    public static let clockSkew: TimeInterval = 5 * 60
    /// The expiry `generate` gives a code unless told otherwise, and the most it allows.
    public static let defaultLifetime: TimeInterval = 14 * 86_400
    /// The longest lifetime `generate` gives a code (30 days).
    public static let maxLifetime: TimeInterval = 30 * 86_400

    /// Whether `text` is meant as an `AC1:` code (and is judged as one, never as plain text).
    public static func isActivationCode(_ text: some StringProtocol) -> Bool {
        text.hasPrefix(prefix)
    }

    /// A code verified from start to end.
    public struct Verified: Sendable, Hashable {
        /// The configuration document, in its JSON shape, for ``ConfigurationDocument/init(from:source:limits:)``.
        public var document: ConfigurationValue
        /// Issuer, audience, validity and id, as signed.
        public var claims: ActivationCodeClaims
        /// The algorithm of the signature (`EdDSA` or `ES256`).
        public var algorithm: SignatureAlgorithm
        /// The trust-list entry of the key that signed it.
        public var trustEntry: TrustList.Entry
    }

    // MARK: - Making

    /// Signs `document` into an `AC1:` code.
    ///
    /// - Throws: ``ConfigurationError``: `invalidKey` for a key that cannot sign `AC1:` codes
    ///   (only Ed25519 and P-256 can), `invalidValue` for claims that make no sense (expiry
    ///   before the start) or a value the compact form cannot carry.
    public static func make(
        _ document: ConfigurationDocument, claims: ActivationCodeClaims, signingKey: SigningKey,
        source: String
    ) throws -> String {
        guard let algorithm = signingKey.verificationKey.activationCodeAlgorithm else {
            throw ConfigurationError(
                .invalidKey, source: source,
                "an \(signingKey.verificationKey.kind) key cannot sign AC1 codes (Ed25519 or EC P-256 only)")
        }
        if let start = claims.notBefore ?? claims.issuedAt, claims.expires <= start {
            throw ConfigurationError(.invalidValue, source: source, "the code would expire before it becomes valid")
        }
        guard claims.codeID.count <= 64, (claims.issuer?.utf8.count ?? 0) <= 256, claims.audience.count <= 16 else {
            throw ConfigurationError(.invalidValue, source: source, "the code's issuer, audience or id is too long")
        }
        let configuration = try CompactConfiguration.encode(document, source: source).encoded
        var entries: [CBOR.Entry] = [
            .init(.integer(4), .integer(Int(claims.expires.timeIntervalSince1970))),
            .init(.integer(7), .bytes(claims.codeID)),
            .init(.integer(Claim.configuration), .bytes(try RawDeflate.deflate(configuration))),
        ]
        if let issuer = claims.issuer { entries.append(.init(.integer(1), .text(issuer))) }
        if claims.audience.count == 1 { entries.append(.init(.integer(3), .text(claims.audience[0]))) }
        if claims.audience.count > 1 { entries.append(.init(.integer(3), .array(claims.audience.map(CBOR.text)))) }
        if let notBefore = claims.notBefore {
            entries.append(.init(.integer(5), .integer(Int(notBefore.timeIntervalSince1970))))
        }
        if let issuedAt = claims.issuedAt {
            entries.append(.init(.integer(6), .integer(Int(issuedAt.timeIntervalSince1970))))
        }
        let frame = try COSESign1(signing: CBOR.map(entries).encoded, with: signingKey, algorithm: algorithm)
        let text = prefix + Base45.encode(frame.encoded)
        guard text.utf8.count <= maxLength else {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                "the code is \(text.utf8.count) characters; a QR code holds at most \(maxLength)")
        }
        return text
    }

    // MARK: - Reading

    /// Verifies a code against a trust list, in the reading order above.
    ///
    /// - Parameters:
    ///   - text: the scanned text, `AC1:` and Base45.
    ///   - trustList: the keys that may have signed it.
    ///   - now: the reader's clock.
    ///   - applicationID: the app's id, when known: a code that names audiences must name it.
    ///   - source: names the input in errors.
    /// - Throws: ``ConfigurationError``, one code per refusal: `inputTooLarge`, `invalidBase45`,
    ///   `invalidCBOR` (and the CBOR limits), `unsupportedAlgorithm`, `unknownKey`,
    ///   `signatureInvalid`, `missingKey` (no `exp`), `expired`, `notYetValid`, `audienceMismatch`,
    ///   `issuerMismatch`.
    public static func verify(
        _ text: String, trustList: TrustList, at now: Date = Date(), applicationID: String? = nil,
        source: String
    ) throws -> Verified {
        let frame = try frame(of: text, source: source)
        guard let entry = trustList.entry(keyID: frame.keyID) else {
            throw ConfigurationError(
                .unknownKey, source: source,
                """
                the code is signed by key \(Hex.encode(frame.keyID)), which is not in the trust list \
                (unknown or revoked)
                """
            )
        }
        guard entry.algorithm == frame.algorithm else {
            throw ConfigurationError(
                .signatureInvalid, source: source,
                "the code says \(frame.algorithm.rawValue), but key \(entry.keyID) signs \(entry.algorithm.rawValue)")
        }
        guard entry.key.verify(frame.signature, for: frame.signedBytes, algorithm: frame.algorithm) else {
            throw ConfigurationError(
                .signatureInvalid, source: source,
                """
                the \(frame.algorithm.rawValue) signature does not verify with key \(entry.keyID) \
                (the code was altered or forged)
                """
            )
        }
        if !entry.isValid(at: now) {
            throw ConfigurationError(
                .unknownKey, source: source,
                "key \(entry.keyID) is outside its validity period in the trust list (\(Self.period(entry)))")
        }
        // The signature holds: only now are the claims read.
        let (claims, compressed) = try Self.claims(frame.payload, source: source)
        if now.timeIntervalSince(claims.expires) > clockSkew {
            throw ConfigurationError(
                .expired, source: source, "the code expired at \(Self.show(claims.expires)); ask for a new one")
        }
        if let notBefore = claims.notBefore, notBefore.timeIntervalSince(now) > clockSkew {
            throw ConfigurationError(
                .notYetValid, source: source, "the code is not valid before \(Self.show(notBefore))")
        }
        if let issuedAt = claims.issuedAt, issuedAt.timeIntervalSince(now) > clockSkew {
            throw ConfigurationError(
                .notYetValid, source: source,
                "the code was issued in the future (\(Self.show(issuedAt))); check this device's clock")
        }
        if let applicationID, !claims.audience.isEmpty, !claims.audience.contains(applicationID) {
            throw ConfigurationError(
                .audienceMismatch, source: source,
                "the code is for \(claims.audience.joined(separator: ", ")), not for \(applicationID)")
        }
        if let issuer = entry.issuer, claims.issuer != issuer {
            let named = claims.issuer.map { "\"\($0)\"" } ?? "none"
            throw ConfigurationError(
                .issuerMismatch, source: source,
                "key \(entry.keyID) speaks for issuer \"\(issuer)\", but the code names \(named)"
            )
        }
        return Verified(
            document: try configuration(compressed, source: source), claims: claims, algorithm: frame.algorithm,
            trustEntry: entry)
    }

    /// Checks only the signature of a code with one known key, and returns its document: for a
    /// store that recorded a code verified earlier (its expiry no longer matters then).
    ///
    /// - Throws: ``ConfigurationError`` as ``verify(_:trustList:at:applicationID:source:)``.
    public static func document(of text: String, signedBy key: VerificationKey, source: String) throws
        -> ConfigurationValue
    {
        let frame = try frame(of: text, source: source)
        guard frame.keyID == key.keyIDBytes,
            key.verify(frame.signature, for: frame.signedBytes, algorithm: frame.algorithm)
        else {
            throw ConfigurationError(
                .signatureInvalid, source: source, "the code's signature does not verify with key \(key.keyID)")
        }
        return try configuration(try claims(frame.payload, source: source).compressed, source: source)
    }

    /// Steps 1–4: length, alphabet, prefix, Base45, the COSE frame.
    static func frame(of text: String, source: String) throws -> COSESign1 {
        let characters = text.utf8
        guard characters.count <= maxLength else {
            throw ConfigurationError(
                .inputTooLarge, source: source, "\(characters.count) characters; an AC1 code has at most \(maxLength)")
        }
        if let index = characters.firstIndex(where: { !Base45.isAlphabet($0) }) {
            let position = characters.distance(from: characters.startIndex, to: index) + 1
            throw ConfigurationError(
                .invalidBase45, source: source,
                "character \(position) is not in the QR alphanumeric set an AC1 code uses"
            )
        }
        guard isActivationCode(text) else {
            throw ConfigurationError(.invalidBase45, source: source, "an AC1 code starts with \(prefix)")
        }
        let bytes = try Base45.decode(text.dropFirst(prefix.count), source: source)
        return try COSESign1(bytes, source: source)
    }

    /// The claim keys (RFC 8392, and ours for the configuration).
    enum Claim {
        static let configuration = -65537
    }

    /// Step 7: the claims map (after the signature holds), and the compressed configuration.
    static func claims(_ payload: [UInt8], source: String) throws -> (claims: ActivationCodeClaims, compressed: [UInt8])
    {
        let map = try CBORReader(maxDepth: 2, maxItems: 64, maxBytes: 4096).read(
            payload, what: "the code's claims", source: source)
        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError(.invalidCBOR, source: source, "the code's claims: \(message)")
        }
        guard map.mapValue != nil else { throw fail("not a map") }
        func date(_ key: Int, _ name: String) throws -> Date? {
            guard let item = map[key] else { return nil }
            guard case .unsigned(let seconds) = item, seconds < 1 << 40 else {
                throw fail("\(name) is not a time in whole seconds")
            }
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        guard let expires = try date(4, "exp") else {
            throw ConfigurationError(.missingKey, source: source, "the code has no expiry (exp); AC1 codes must expire")
        }
        var audience: [String] = []
        switch map[3] {
        case nil: break
        case .text(let one)?: audience = [one]
        case .array(let items)? where items.allSatisfy({ $0.textValue != nil }):
            audience = items.compactMap(\.textValue)
        default: throw fail("aud is not text or an array of text")
        }
        var issuer: String?
        if let item = map[1] {
            guard let text = item.textValue else { throw fail("iss is not text") }
            issuer = text
        }
        guard let compressed = map[Claim.configuration]?.bytesValue else {
            throw fail("the configuration (\(Claim.configuration)) is missing or not a byte string")
        }
        let claims = ActivationCodeClaims(
            issuer: issuer, audience: audience, expires: expires, notBefore: try date(5, "nbf"),
            issuedAt: try date(6, "iat"), codeID: map[7]?.bytesValue ?? [])
        return (claims, compressed)
    }

    /// Steps 8–9: inflate (capped) and read the compact configuration.
    static func configuration(_ compressed: [UInt8], source: String) throws -> ConfigurationValue {
        let inflated = try RawDeflate.inflate(
            compressed, limit: maxInflatedBytes, what: "the code's configuration", source: source)
        let compact = try CBORReader(maxDepth: 8, maxItems: 4096, maxBytes: maxInflatedBytes).read(
            inflated, what: "the code's configuration", source: source)
        return try CompactConfiguration.decode(compact, source: source)
    }

    static func show(_ date: Date) -> String { date.formatted(.iso8601) }

    static func period(_ entry: TrustList.Entry) -> String {
        "\(entry.notBefore.map(show) ?? "any time") to \(entry.notAfter.map(show) ?? "any time")"
    }
}
