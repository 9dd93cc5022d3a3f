/// The COSE_Sign1 frame of an `AC1:` code (RFC 9052 §4.2):
/// `18([protected: bstr {1: alg, 4: kid}, unprotected: {}, payload: bstr, signature: bstr])`.
/// Parsing stops at the frame: the payload stays opaque bytes until the signature holds.
struct COSESign1: Sendable, Hashable {
    /// COSE algorithm identifiers.
    static let algorithmIDs: [SignatureAlgorithm: Int] = [.EdDSA: -8, .ES256: -7]
    static let tag: UInt64 = 18

    var algorithm: SignatureAlgorithm
    /// The 8-byte key id.
    var keyID: [UInt8]
    /// The protected header exactly as received (the signature covers these bytes).
    var protectedBytes: [UInt8]
    var payload: [UInt8]
    var signature: [UInt8]

    /// The bytes signed: `["Signature1", protected, h'', payload]`.
    var signedBytes: [UInt8] {
        CBOR.array([.text("Signature1"), .bytes(protectedBytes), .bytes([]), .bytes(payload)]).encoded
    }

    /// A frame for `payload`, signed with `key`.
    init(signing payload: [UInt8], with key: SigningKey, algorithm: SignatureAlgorithm) throws {
        self.algorithm = algorithm
        keyID = key.verificationKey.keyIDBytes
        protectedBytes =
            CBOR.map([
                .init(.integer(1), .integer(Self.algorithmIDs[algorithm] ?? 0)), .init(.integer(4), .bytes(keyID)),
            ]).encoded
        self.payload = payload
        signature = []
        signature = try key.sign(signedBytes)
    }

    var encoded: [UInt8] {
        CBOR.tagged(Self.tag, .array([.bytes(protectedBytes), .map([]), .bytes(payload), .bytes(signature)])).encoded
    }

    /// Reads the frame (strict CBOR: depth 8, 256 items, tag 18 only).
    ///
    /// - Throws: ``ConfigurationError``: `invalidCBOR` (and the reader's limits),
    ///   `unsupportedAlgorithm` for any algorithm but EdDSA and ES256.
    init(_ bytes: [UInt8], source: String) throws {
        let frame = try CBORReader(maxDepth: 8, maxItems: 256, maxBytes: 4096, allowedTags: [Self.tag])
            .read(bytes, what: "the code's COSE_Sign1 frame", source: source)
        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError(.invalidCBOR, source: source, "the code's COSE_Sign1 frame: \(message)")
        }
        guard case .tagged(Self.tag, .array(let parts)) = frame, parts.count == 4 else {
            throw fail("not a tagged COSE_Sign1 array of 4 parts")
        }
        guard let protectedBytes = parts[0].bytesValue, let payload = parts[2].bytesValue,
            let signature = parts[3].bytesValue
        else {
            throw fail("the protected header, payload and signature must be byte strings")
        }
        guard parts[1] == .map([]) else {
            throw fail("the unprotected header must be empty (kid and alg are protected)")
        }
        let header = try CBORReader(maxDepth: 1, maxItems: 8, maxBytes: 64)
            .read(protectedBytes, what: "the code's protected header", source: source)
        guard let entries = header.mapValue, entries.count == 2, let id = header[1]?.intValue,
            let keyID = header[4]?.bytesValue
        else {
            throw fail("the protected header must hold exactly alg (1) and kid (4)")
        }
        guard let algorithm = Self.algorithmIDs.first(where: { $0.value == id })?.key else {
            throw ConfigurationError(
                .unsupportedAlgorithm, source: source,
                "the code's algorithm \(id) is not accepted (accepted: EdDSA -8, ES256 -7)")
        }
        guard keyID.count == 8 else { throw fail("the key id is \(keyID.count) bytes, not 8") }
        guard signature.count == 64 else {
            throw fail("the signature is \(signature.count) bytes; \(algorithm.rawValue) signatures are 64")
        }
        self.algorithm = algorithm
        self.keyID = keyID
        self.protectedBytes = protectedBytes
        self.payload = payload
        self.signature = signature
    }
}
