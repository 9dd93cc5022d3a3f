import Foundation

/// The SAP-style signed configuration code: a JWS in compact serialisation,
/// `base64url(header).base64url(payload).base64url(signature)`, whose payload is the JSON document.
public enum CompactJWS {
    /// A JWS taken apart, before its signature is checked.
    public struct Parts: Sendable, Hashable {
        /// The header's `alg`.
        public var algorithm: SignatureAlgorithm
        /// `kid`, if the header names one.
        public var keyID: String?
        /// The payload, decoded from base64url: the JSON document.
        public var payload: [UInt8]
        var signingInput: [UInt8]
        var signature: [UInt8]
    }

    /// Whether `text` is shaped like a JWS: base64url parts joined by dots, the first a JSON header
    /// with `alg`. Such text is judged as a JWS (and rejected if broken), never as plain text.
    public static func looksLikeJWS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.count <= 5, parts.allSatisfy({ $0.allSatisfy(Base64.isURLCharacter) }),
            let header = Base64.decodeURL(parts[0]), header.first == UInt8(ascii: "{")
        else { return false }
        return String(decoding: header, as: UTF8.self).contains("\"alg\"")
    }

    /// Splits and decodes a JWS, and checks its algorithm is one of ``SignatureAlgorithm``.
    ///
    /// - Throws: ``ConfigurationError``: `malformedSignedPayload`, `unsupportedAlgorithm` (also for `none`).
    public static func parse(_ text: String, source: String) throws -> Parts {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw ConfigurationError(
                .malformedSignedPayload, source: source,
                "a signed code (JWS) has 3 parts separated by dots; this one has \(parts.count) (truncated?)")
        }
        guard let headerBytes = Base64.decodeURL(parts[0]), let payload = Base64.decodeURL(parts[1]),
            let signature = Base64.decodeURL(parts[2])
        else {
            throw ConfigurationError(
                .malformedSignedPayload, source: source, "a signed code (JWS) part is not valid base64url")
        }
        let header: ConfigurationObject
        do {
            guard
                let object = try JSONReader(maxBytes: 4096, maxDepth: 4).parse(
                    headerBytes, source: "\(source) JWS header"
                ).objectValue
            else {
                throw ConfigurationError(.malformedSignedPayload, source: source, "the JWS header is not a JSON object")
            }
            header = object
        } catch let error as ConfigurationError where error.code != .malformedSignedPayload {
            throw ConfigurationError(.malformedSignedPayload, source: source, "the JWS header is not valid JSON")
        }
        guard let name = header["alg"]?.stringValue else {
            throw ConfigurationError(.malformedSignedPayload, source: source, "the JWS header has no alg")
        }
        guard let algorithm = SignatureAlgorithm(rawValue: name) else {
            let accepted = SignatureAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(
                .unsupportedAlgorithm, source: source,
                "the JWS algorithm \"\(name)\" is not accepted (accepted: \(accepted))")
        }
        if let critical = header["crit"] {
            throw ConfigurationError(
                .malformedSignedPayload, source: source,
                "the JWS header has critical extensions (\(critical.kindDescription)) this reader does not know")
        }
        guard !signature.isEmpty else {
            throw ConfigurationError(.malformedSignedPayload, source: source, "the JWS signature is empty")
        }
        return Parts(
            algorithm: algorithm, keyID: header["kid"]?.stringValue, payload: payload,
            signingInput: Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8), signature: signature)
    }

    /// Verifies `parts` against the keys; returns the key that verified.
    ///
    /// - Throws: ``ConfigurationError`` (`signatureInvalid`) when no key of the right type verifies it,
    ///   or (`unknownKey`) when no key was given at all.
    public static func verify(_ parts: Parts, with keys: [VerificationKey], source: String) throws -> VerificationKey {
        let candidates = keys.filter { $0.supports(parts.algorithm) }
        if keys.isEmpty {
            throw ConfigurationError(
                .unknownKey, source: source,
                "the code is signed (\(parts.algorithm.rawValue)) and no public key was given to verify it")
        }
        guard
            let key = candidates.first(where: {
                $0.verify(parts.signature, for: parts.signingInput, algorithm: parts.algorithm)
            })
        else {
            let why =
                candidates.isEmpty
                ? "none of the given public keys can verify \(parts.algorithm.rawValue) signatures"
                : "the \(parts.algorithm.rawValue) signature does not verify with the given public key"
            throw ConfigurationError(.signatureInvalid, source: source, "\(why)")
        }
        return key
    }

    /// Signs `payload` into a compact JWS with the key's algorithm.
    public static func sign(_ payload: [UInt8], with key: SigningKey, keyID: String? = nil) throws -> String {
        var header = #"{"alg":"\#(key.algorithm.rawValue)","typ":"JWT""#
        if let keyID { header += #","kid":\#(JSONWriter.compact(.string(keyID)))"# }
        header += "}"
        let signingInput = Base64.encodeURL(Array(header.utf8)) + "." + Base64.encodeURL(payload)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature)
    }
}
