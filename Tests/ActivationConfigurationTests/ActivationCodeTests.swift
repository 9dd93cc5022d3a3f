import Foundation
import Testing

@testable import ActivationConfiguration

/// Codes made with the library's own parts, including ones a correct signer would never make.
enum CodeForge {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func document() throws -> ConfigurationDocument {
        try #require(
            try PayloadRecognizer().recognize(
                bytes: try Fixture.bytes("documents/oauth-authorization-code.json"), source: "doc"
            ).document)
    }

    static func trust(_ key: SigningKey, issuer: String? = nil, hosts: [String] = [], notAfter: Date? = nil) throws
        -> TrustList
    {
        try TrustList([
            TrustList.Entry(key: key.verificationKey, issuer: issuer, notAfter: notAfter, allowedHosts: hosts)
        ])
    }

    /// A correctly made code.
    static func code(
        _ key: SigningKey, issuer: String? = nil, audience: [String] = [], expires: TimeInterval = 86_400,
        notBefore: Date? = nil, issuedAt: Date? = now, document: ConfigurationDocument? = nil
    ) throws -> String {
        try ActivationCode.make(
            try document ?? self.document(),
            claims: ActivationCodeClaims(
                issuer: issuer, audience: audience, expires: now.addingTimeInterval(expires),
                notBefore: notBefore, issuedAt: issuedAt),
            signingKey: key, source: "test")
    }

    /// A signed code with any claims and any configuration bytes.
    static func forged(_ key: SigningKey, claims: [CBOR.Entry]) throws -> String {
        let frame = try COSESign1(signing: CBOR.map(claims).encoded, with: key, algorithm: key.algorithm)
        return ActivationCode.prefix + Base45.encode(frame.encoded)
    }

    static func configurationClaim(_ bytes: [UInt8]) throws -> CBOR.Entry {
        .init(.integer(ActivationCode.Claim.configuration), .bytes(try RawDeflate.deflate(bytes)))
    }

    static func compactConfiguration() throws -> [UInt8] {
        try CompactConfiguration.encode(try document(), source: "t").encoded
    }
}

@Suite("AC1 codes: make, verify, refuse")
struct ActivationCodeTests {
    static let keys = [("ed25519", SignatureAlgorithm.EdDSA), ("ec256", .ES256)]

    func verify(_ code: String, _ trust: TrustList, at date: Date = CodeForge.now, app: String? = nil) throws
        -> ActivationCode.Verified
    {
        try ActivationCode.verify(code, trustList: trust, at: date, applicationID: app, source: "code.png")
    }

    func refusal(_ code: String, _ trust: TrustList, at date: Date = CodeForge.now, app: String? = nil)
        -> ConfigurationError?
    {
        do {
            _ = try verify(code, trust, at: date, app: app)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test("a code signed with Ed25519 or P-256 verifies and gives back the document and claims", arguments: keys)
    func roundTrip(name: String, algorithm: SignatureAlgorithm) throws {
        let key = try Fixture.privateKey(name)
        let code = try CodeForge.code(key, issuer: "acme-it", audience: ["com.example.fieldservice"])
        #expect(code.hasPrefix("AC1:"))
        #expect(code.utf8.allSatisfy(Base45.isAlphabet))
        let verified = try verify(code, try CodeForge.trust(key, issuer: "acme-it"), app: "com.example.fieldservice")
        #expect(verified.algorithm == algorithm)
        #expect(verified.claims.issuer == "acme-it")
        #expect(verified.claims.audience == ["com.example.fieldservice"])
        #expect(verified.claims.expires == CodeForge.now.addingTimeInterval(86_400))
        #expect(verified.claims.codeID.count == 8)
        #expect(verified.trustEntry.keyID == key.keyID)
        #expect(try ConfigurationDocument(from: verified.document, source: "code") == CodeForge.document())
    }

    @Test("the key id is the first 8 bytes of SHA-256 over the SubjectPublicKeyInfo DER")
    func keyID() throws {
        // openssl pkey -pubin -in ed25519.pub.pem -outform DER | sha256sum | cut -c1-16
        let key = try Fixture.publicKey("ed25519")
        let der = try #require(
            Data(
                base64Encoded: try Fixture.text("keys/ed25519.pub.pem").split(separator: "\n").dropFirst().dropLast()
                    .joined()))
        #expect(Array(der) == key.derRepresentation)
        #expect(key.keyID.count == 16)
        #expect(key.keyID == (try Fixture.privateKey("ed25519")).keyID)
        #expect(key.keyIDBytes.count == 8)
    }

    @Test("each refusal has its own code and reason")
    func refusals() throws {
        let key = try Fixture.privateKey("ed25519")
        let other = SigningKey(generating: .ed25519)
        let trust = try CodeForge.trust(key)
        let good = try CodeForge.code(key)

        let unknown = refusal(try CodeForge.code(other), trust)
        #expect(unknown?.code == .unknownKey)
        #expect(
            unknown?.reason
                == """
                code.png: the code is signed by key \(other.keyID), which is not in the trust list (unknown or revoked)
                """
        )

        // One altered character in the signature (the code's end).
        var altered = Array(good)
        altered[altered.count - 5] = altered[altered.count - 5] == "A" ? "B" : "A"
        let forgedError = refusal(String(altered), trust)
        #expect(
            forgedError?.code == .signatureInvalid || forgedError?.code == .invalidBase45,
            "\(forgedError?.reason ?? "")")

        let expired = refusal(
            try CodeForge.code(key, expires: 60), trust, at: CodeForge.now.addingTimeInterval(60 + 301))
        #expect(expired?.code == .expired)
        #expect(expired?.reason.hasPrefix("code.png: the code expired at ") == true)
        // Within the 5-minute skew: still accepted.
        #expect(
            refusal(try CodeForge.code(key, expires: 60), trust, at: CodeForge.now.addingTimeInterval(60 + 299)) == nil)

        let early = refusal(try CodeForge.code(key, notBefore: CodeForge.now.addingTimeInterval(3600)), trust)
        #expect(early?.code == .notYetValid)
        let future = refusal(try CodeForge.code(key, issuedAt: CodeForge.now.addingTimeInterval(3600)), trust)
        #expect(future?.code == .notYetValid)
        #expect(future?.reason.contains("issued in the future") == true)

        let audience = refusal(
            try CodeForge.code(key, audience: ["com.example.other"]), trust, app: "com.example.fieldservice")
        #expect(audience?.code == .audienceMismatch)
        #expect(audience?.reason == "code.png: the code is for com.example.other, not for com.example.fieldservice")
        // Without a known app id the audience cannot be checked, and is not.
        #expect(refusal(try CodeForge.code(key, audience: ["com.example.other"]), trust) == nil)

        let issuer = refusal(try CodeForge.code(key, issuer: "mallory"), try CodeForge.trust(key, issuer: "acme-it"))
        #expect(issuer?.code == .issuerMismatch)

        let retired = refusal(good, try CodeForge.trust(key, notAfter: CodeForge.now.addingTimeInterval(-1)))
        #expect(retired?.code == .unknownKey)
        #expect(retired?.reason.contains("outside its validity period") == true)
    }

    @Test("a code without exp is refused, after its signature holds")
    func missingExpiry() throws {
        let key = try Fixture.privateKey("ec256")
        let code = try CodeForge.forged(
            key, claims: [try CodeForge.configurationClaim(try CodeForge.compactConfiguration())])
        let error = refusal(code, try CodeForge.trust(key))
        #expect(error?.code == .missingKey)
        #expect(error?.reason == "code.png: the code has no expiry (exp); AC1 codes must expire")
    }

    @Test("a decompression bomb with a bad signature is refused for the signature, without being inflated")
    func bombWithBadSignature() throws {
        let key = try Fixture.privateKey("ed25519")
        let mallory = SigningKey(generating: .ed25519)
        let bomb = [
            CBOR.Entry(.integer(4), .integer(Int(CodeForge.now.timeIntervalSince1970) + 3600)),
            try CodeForge.configurationClaim([UInt8](repeating: 0, count: 1 << 20)),
        ]
        // Mallory signs it, but claims to be the trusted key: same kid, wrong signature.
        var frame = try COSESign1(signing: CBOR.map(bomb).encoded, with: mallory, algorithm: .EdDSA)
        frame.keyID = key.verificationKey.keyIDBytes
        frame.protectedBytes =
            CBOR.map([.init(.integer(1), .integer(-8)), .init(.integer(4), .bytes(frame.keyID))]).encoded
        let code = ActivationCode.prefix + Base45.encode(frame.encoded)
        #expect(code.utf8.count < 4296)
        let error = refusal(code, try CodeForge.trust(key))
        #expect(error?.code == .signatureInvalid, "\(error?.reason ?? "")")

        // Signed by the trusted key, the same bomb is refused at the 32 KiB cap.
        let signed = try CodeForge.forged(key, claims: bomb)
        let capped = refusal(signed, try CodeForge.trust(key))
        #expect(capped?.code == .inputTooLarge)
        #expect(
            capped?.reason == "code.png: the code's configuration inflates to more than 32 KiB (the limit); refused")
    }

    @Test("malformed text and frames are refused before any key is looked at")
    func malformed() throws {
        let trust = try CodeForge.trust(try Fixture.privateKey("ed25519"))
        #expect(refusal("AC1:GGW", trust)?.code == .invalidBase45)
        #expect(refusal("AC1:abc", trust)?.code == .invalidBase45)
        #expect(refusal("AC1:" + String(repeating: "0", count: 4300), trust)?.code == .inputTooLarge)
        #expect(refusal("AC1:" + Base45.encode([0x01]), trust)?.code == .invalidCBOR)
        #expect(
            refusal("AC1:" + Base45.encode(CBOR.tagged(18, .array([])).encoded), trust)?.reason
                == "code.png: the code's COSE_Sign1 frame: not a tagged COSE_Sign1 array of 4 parts")
        #expect(
            refusal("AC1:" + Base45.encode(CBOR.tagged(99, .null).encoded), trust)?.reason.contains(
                "tag 99 is not allowed") == true)
        let deep = [UInt8]([0xD2]) + [UInt8](repeating: 0x81, count: 12) + [0x00]
        #expect(refusal("AC1:" + Base45.encode(deep), trust)?.code == .tooDeep)
        // An RS256-style algorithm id in an otherwise well-formed frame.
        let header = CBOR.map([
            .init(.integer(1), .integer(-257)), .init(.integer(4), .bytes([UInt8](repeating: 1, count: 8))),
        ]).encoded
        let rsa = CBOR.tagged(
            18, .array([.bytes(header), .map([]), .bytes([0xA0]), .bytes([UInt8](repeating: 0, count: 64))])
        ).encoded
        #expect(refusal("AC1:" + Base45.encode(rsa), trust)?.code == .unsupportedAlgorithm)
    }

    @Test("the recognizer verifies AC1 codes against the policy: trust list, key hosts, signature requirement")
    func recognizer() throws {
        let key = try Fixture.privateKey("ed25519")
        let code = try CodeForge.code(key, issuer: "acme-it")
        let fixed: @Sendable () -> Date = { CodeForge.now }
        let accepted = try PayloadRecognizer(policy: SecurityPolicy(trustList: try CodeForge.trust(key)), clock: fixed)
            .recognize(text: code, source: "s")
        #expect(accepted.format == .activationCode)
        #expect(accepted.signature == .verified(algorithm: .EdDSA, keyFingerprint: key.keyID, keyID: key.keyID))
        #expect(accepted.claims?.issuer == "acme-it")
        #expect(accepted.signatureProof?.signedCode == code)
        // The reports' signature record: the key, and the claims as ISO 8601 text.
        let record = SignatureRecord(accepted.signature, claims: accepted.claims)
        #expect(
            record.status == "verified" && record.algorithm == "EdDSA" && record.keyFingerprint == key.keyID
                && record.keyID == key.keyID)
        #expect(
            record.issuer == "acme-it" && record.expires == "2027-01-16T08:00:00Z"
                && record.issuedAt == "2027-01-15T08:00:00Z")
        #expect(record.notBefore == nil && record.audience == nil && record.publicKey == nil)
        #expect(InspectReport(try ActivationReport(payload: accepted, source: "s")).configuration?.signature == record)

        // The same key as a plain public key (--public-key) verifies too.
        #expect(
            try PayloadRecognizer(policy: SecurityPolicy(verificationKeys: [key.verificationKey]), clock: fixed)
                .recognize(text: code, source: "s").document != nil)

        func refused(_ policy: SecurityPolicy, _ text: String = code) -> ConfigurationError? {
            do {
                _ = try PayloadRecognizer(policy: policy, clock: fixed).recognize(text: text, source: "s")
                return nil
            } catch {
                return error as? ConfigurationError
            }
        }
        let bound = refused(SecurityPolicy(trustList: try CodeForge.trust(key, hosts: ["other.example.com"])))
        #expect(bound?.code == .hostNotAllowed)
        #expect(
            bound?.reason.contains("the trust list allows key \(key.keyID) only for these hosts") == true,
            "\(bound?.reason ?? "")")
        #expect(refused(SecurityPolicy(trustList: try CodeForge.trust(key, hosts: ["hana.ondemand.com"]))) == nil)

        let noKeys = refused(SecurityPolicy())
        #expect(noKeys?.code == .unknownKey)
        #expect(
            noKeys?.reason
                == "s: the code is signed by key \(key.keyID), and no trust list or public key was given to verify it")
        #expect(
            refused(SecurityPolicy(signature: .forbidden, trustList: try CodeForge.trust(key)))?.code
                == .signatureForbidden)
        let unsigned = refused(
            SecurityPolicy(signature: .required, trustList: try CodeForge.trust(key)),
            try CodeForge.document().canonicalJSON())
        #expect(unsigned?.code == .signatureRequired)
    }

    @Test("an Ed25519 or P-256 key signs; P-384 and RSA keys are refused with what they are")
    func keyKinds() throws {
        let document = try CodeForge.document()
        for name in ["ec384", "rsa"] {
            let error = #expect(throws: ConfigurationError.self) {
                try ActivationCode.make(
                    document, claims: ActivationCodeClaims(expires: CodeForge.now),
                    signingKey: try Fixture.privateKey(name), source: "k.pem")
            }
            #expect(error?.code == .invalidKey)
            #expect(
                error?.reason.contains(
                    name == "rsa" ? "an RSA-2048 key cannot sign AC1 codes" : "an EC P-384 key cannot sign AC1 codes")
                    == true, "\(error?.reason ?? "")")
        }
    }

    @Test("the 625-byte style sample becomes a code of at most 483 characters (QR version 13 at EC M)")
    func size() throws {
        let key = try Fixture.privateKey("ed25519")
        let code = try CodeForge.code(key, issuer: "acme-it", audience: ["com.example.fieldservice"])
        #expect(code.utf8.count <= 483, "\(code.utf8.count)")
    }
}

@Suite("Keys and trust lists")
struct KeyAndTrustListTests {
    @Test(
        "a wrong key file says what it holds",
        arguments: [
            ("rsa1024.pem", true, "an RSA-1024 private key is not a usable private key"),
            ("ed25519.pub.pem", true, "an Ed25519 public key is not a usable private key"),
            (
                "ec256.cert.pem", true,
                "a certificate (give its public key: openssl x509 -pubkey -noout) is not a usable private key"
            ),
            ("x25519.pem", true, "an X25519 (key agreement, not signing) private key is not a usable private key"),
            ("ed25519.pem", false, "an Ed25519 private key is not a usable public key"),
            ("rsa1024.pem", false, "an RSA-1024 private key is not a usable public key"),
        ])
    func wrongKinds(file: String, asPrivate: Bool, message: String) throws {
        let pem = try Fixture.text("keys/\(file)")
        let error = #expect(throws: ConfigurationError.self) {
            if asPrivate {
                _ = try SigningKey(pem: pem, source: file)
            } else {
                _ = try VerificationKey(pem: pem, source: file)
            }
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.reason.hasPrefix("\(file): \(message)") == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains("MII") == false)  // never key material
    }

    @Test("Ed25519 keys read, write and sign JWS (EdDSA)")
    func ed25519() throws {
        let key = try Fixture.privateKey("ed25519")
        #expect(key.algorithm == .EdDSA)
        #expect(try SigningKey(pem: key.pemRepresentation).keyID == key.keyID)
        #expect(try VerificationKey(pem: key.verificationKey.pemRepresentation) == (try Fixture.publicKey("ed25519")))
        let jws = try CompactJWS.sign(Array("{}".utf8), with: key, keyID: key.keyID)
        let parts = try CompactJWS.parse(jws, source: "s")
        #expect(parts.algorithm == .EdDSA && parts.keyID == key.keyID)
        #expect(
            try CompactJWS.verify(parts, with: [try Fixture.publicKey("ed25519")], source: "s")
                == (try Fixture.publicKey("ed25519")))
    }

    @Test("a trust list round-trips through its JSON, and its errors name the entry and key")
    func trustListFile() throws {
        let ed = try Fixture.publicKey("ed25519")
        let ec = try Fixture.publicKey("ec256")
        let list = try TrustList([
            TrustList.Entry(
                key: ed, issuer: "acme-it", notBefore: Date(timeIntervalSince1970: 1_800_000_000),
                allowedHosts: ["Example.COM."]),
            TrustList.Entry(key: ec, notAfter: Date(timeIntervalSince1970: 1_900_000_000)),
        ])
        #expect(list.entries[0].allowedHosts == ["example.com"])
        #expect(try TrustList(json: Array(list.json.utf8), source: "t.json") == list)
        #expect(list.entry(keyID: ed.keyIDBytes)?.issuer == "acme-it")

        func error(_ json: String) -> String {
            do {
                _ = try TrustList(json: Array(json.utf8), source: "t.json")
                return "accepted"
            } catch {
                return (error as? ConfigurationError)?.reason ?? "\(error)"
            }
        }
        let pem = ed.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        #expect(error(#"{"kid":"x"}"#) == "t.json: a trust list is a JSON array of keys, not an object")
        #expect(
            error(#"[{"kid":"0000000000000000","alg":"EdDSA","publicKey":"\#(pem)"}]"#).hasPrefix(
                "t.json: [0].kid: \"0000000000000000\" is not the key's id (\(ed.keyID)"))
        #expect(
            error(#"[{"kid":"\#(ed.keyID)","alg":"ES256","publicKey":"\#(pem)"}]"#)
                == "t.json: [0].alg: \"ES256\" does not match the key (an Ed25519 key signs EdDSA)")
        #expect(
            error(#"[{"kid":"\#(ed.keyID)","publicKey":"\#(pem)","notAfter":"soon"}]"#).hasPrefix(
                "t.json: [0].notAfter: \"soon\" is not an RFC 3339 date"))
        #expect(
            error(#"[{"kid":"\#(ed.keyID)","publicKey":"\#(pem)","allowedHosts":["*.x"]}]"#).hasPrefix(
                "t.json: [0]: allowedHosts: "))
        #expect(
            error(#"[{"kid":"\#(ed.keyID)","publicKey":"\#(pem)","hosts":[]}]"#).hasPrefix(
                "t.json: [0].hosts: unknown key"))
        #expect(
            error(#"[{"kid":"\#(ed.keyID)","publicKey":"\#(pem)"},{"kid":"\#(ed.keyID)","publicKey":"\#(pem)"}]"#)
                == "t.json: the key \(ed.keyID) is in the trust list already")
        let rsa = try Fixture.publicKey("rsa")
        #expect(
            error(
                #"""
                [{"kid":"\#(rsa.keyID)","publicKey":\#
                "\#(rsa.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n"))"}]
                """#
            )
                == "t.json: [0]: an RSA-2048 key cannot sign AC1 codes (Ed25519 or EC P-256 only)")
    }
}
