import ActivationConfiguration
import Crypto
import CryptoExtras
import Foundation
import Testing

@Suite("Signed codes (JWS) and policy")
struct SignatureTests {
    static let document =
        #"""
        {"host":"mobile-demo.example.hana.ondemand.com","appID":"com.example.fieldservice","auth":[{"type":"basic"}]}
        """#

    func policy(_ keys: [VerificationKey], _ signature: SignatureRequirement = .optional) -> SecurityPolicy {
        SecurityPolicy(signature: signature, verificationKeys: keys)
    }

    @Test("round trip with every key type the signer takes", arguments: ["ec256", "ec384", "ec521", "rsa"])
    func roundTrip(key: String) throws {
        let signer = try Fixture.privateKey(key)
        let jws = try CompactJWS.sign(Array(Self.document.utf8), with: signer)
        let payload = try PayloadRecognizer(policy: policy([try Fixture.publicKey(key)], .required)).recognize(
            text: jws, source: "code")
        #expect(payload.format == .jws)
        guard case .verified(let algorithm, let fingerprint, _) = payload.signature else {
            Issue.record("not verified")
            return
        }
        #expect(algorithm == signer.algorithm)
        #expect(fingerprint == (try Fixture.publicKey(key)).fingerprint)
        #expect(payload.document?.host == "mobile-demo.example.hana.ondemand.com")
    }

    @Test("RS384 and RS512 signatures verify")
    func rsaVariants() throws {
        let privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: try Fixture.text("keys/rsa.pem"))
        for (name, hash) in [
            (
                "RS384",
                { (data: [UInt8]) in try privateKey.signature(for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5)
                }
            ),
            (
                "RS512",
                { (data: [UInt8]) in try privateKey.signature(for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
                }
            ),
        ] {
            let input = Self.b64(Array(#"{"alg":"\#(name)"}"#.utf8)) + "." + Self.b64(Array(Self.document.utf8))
            let jws = input + "." + Self.b64(Array(try hash(Array(input.utf8)).rawRepresentation))
            let payload = try PayloadRecognizer(policy: policy([try Fixture.publicKey("rsa")])).recognize(
                text: jws, source: "code")
            #expect(payload.signature.name == "verified", "\(name)")
        }
    }

    static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        ).replacingOccurrences(of: "=", with: "")
    }

    static func signed(_ key: String = "ec256") throws -> String {
        try CompactJWS.sign(Array(document.utf8), with: try Fixture.privateKey(key))
    }

    static func reject(_ text: String, _ policy: SecurityPolicy) -> ConfigurationError? {
        #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer(policy: policy).recognize(text: text, source: "code")
        }
    }

    @Test("a tampered payload is rejected")
    func tampered() throws {
        var parts = try Self.signed().split(separator: ".").map(String.init)
        parts[1] = Self.b64(Array(Self.document.replacingOccurrences(of: "mobile-demo", with: "phishing").utf8))
        let error = Self.reject(parts.joined(separator: "."), policy([try Fixture.publicKey("ec256")]))
        #expect(error?.code == .signatureInvalid)
        #expect(error?.reason == "code: the ES256 signature does not verify with the given public key")
    }

    @Test("a forged signature is rejected")
    func forged() throws {
        var parts = try Self.signed().split(separator: ".").map(String.init)
        parts[2] = Self.b64([UInt8](repeating: 7, count: 64))
        #expect(
            Self.reject(parts.joined(separator: "."), policy([try Fixture.publicKey("ec256")]))?.code
                == .signatureInvalid)
    }

    @Test("the wrong key is rejected, of the same or another type")
    func wrongKey() throws {
        #expect(
            Self.reject(try Self.signed(), policy([try Fixture.publicKey("other-ec256")]))?.code == .signatureInvalid)
        #expect(
            Self.reject(try Self.signed("rsa"), policy([try Fixture.publicKey("other-rsa")]))?.code == .signatureInvalid
        )
        let error = Self.reject(try Self.signed(), policy([try Fixture.publicKey("rsa")]))
        #expect(error?.reason == "code: none of the given public keys can verify ES256 signatures")
    }

    @Test("alg none and unknown algorithms are rejected before anything else")
    func algorithms() throws {
        let body = Self.b64(Array(Self.document.utf8))
        for alg in ["none", "HS256", "PS256", "ES256K", "Ed25519"] {
            let jws = Self.b64(Array(#"{"alg":"\#(alg)"}"#.utf8)) + "." + body + "." + (alg == "none" ? "" : "c2ln")
            let error = Self.reject(jws, policy([try Fixture.publicKey("ec256")]))
            #expect(error?.code == .unsupportedAlgorithm, "\(alg)")
            #expect(error?.reason.contains(#""\#(alg)" is not accepted"#) == true, "\(alg)")
        }
    }

    @Test("a truncated JWS is named as such")
    func truncated() throws {
        let parts = try Self.signed().split(separator: ".")
        let error = Self.reject(parts[0] + "." + parts[1], policy([try Fixture.publicKey("ec256")]))
        #expect(error?.code == .malformedSignedPayload)
        #expect(error?.reason == "code: a signed code (JWS) has 3 parts separated by dots; this one has 2 (truncated?)")
    }

    @Test("signature policy: required refuses unsigned, forbidden refuses signed, optional needs a key for signed")
    func policies() throws {
        #expect(Self.reject(Self.document, policy([], .required))?.code == .signatureRequired)
        #expect(
            Self.reject(try Self.signed(), policy([try Fixture.publicKey("ec256")], .forbidden))?.code
                == .signatureForbidden)
        #expect(Self.reject(try Self.signed(), policy([]))?.code == .unknownKey)
        #expect(
            try PayloadRecognizer(policy: policy([], .forbidden)).recognize(text: Self.document, source: "x").document
                != nil)
    }

    @Test("the host allow list applies at label boundaries, to signed codes too")
    func allowList() throws {
        let allowed = SecurityPolicy(
            allowedHosts: SecurityPolicy.sapCloudHosts, verificationKeys: [try Fixture.publicKey("ec256")])
        #expect(try PayloadRecognizer(policy: allowed).recognize(text: try Self.signed(), source: "x").document != nil)
        #expect(allowed.isAllowed(host: "hana.ondemand.com"))
        #expect(!allowed.isAllowed(host: "evilhana.ondemand.com"))
        #expect(!allowed.isAllowed(host: "hana.ondemand.com.evil.example"))
        let strict = SecurityPolicy(allowedHosts: ["example.org"], verificationKeys: [try Fixture.publicKey("ec256")])
        #expect(Self.reject(try Self.signed(), strict)?.code == .hostNotAllowed)
    }

    @Test("http is accepted only when the policy allows it")
    func allowHTTP() throws {
        let text = #"{"host":"127.0.0.1","protocol":"http","port":8080,"appID":"a"}"#
        #expect(Self.reject(text, SecurityPolicy())?.code == .insecureURL)
        let lax = SecurityPolicy(allowHTTP: true, allowIPLiterals: true)
        #expect(
            try PayloadRecognizer(policy: lax).recognize(text: text, source: "x").document?.baseURL
                == "http://127.0.0.1:8080")
    }

    @Test("keys: a private key given as public key, and garbage, are clear errors without key material")
    func keyErrors() throws {
        let pem = try Fixture.text("keys/ec256.pem")
        let error = #expect(throws: ConfigurationError.self) { try VerificationKey(pem: pem, source: "signer.pem") }
        #expect(
            error?.reason
                == """
                signer.pem: an EC P-256 private key is not a usable public key (accepted: Ed25519, EC P-256/384/521, \
                or RSA of 2048 bits or more)
                """
        )
        #expect(error.map { !$0.reason.contains(pem.split(separator: "\n")[1]) } == true)
        #expect(throws: ConfigurationError.self) {
            try SigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", source: "k")
        }
        #expect(
            String(describing: try Fixture.privateKey("ec256"))
                == "SigningKey(ES256, \(try Fixture.publicKey("ec256").keyID))")
    }
}

@Suite("Payload recognition")
struct RecognitionTests {
    @Test(
        "what is not a configuration is reported as what it is",
        arguments: [
            ("https://example.com/page", RecognizedPayload.Kind.url),
            ("WIFI:S:Office;T:WPA;P:secret-password;;", .wifi),
            ("otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP", .otpauth),
            ("BEGIN:VCARD\nVERSION:3.0\nFN:Alice\nEND:VCARD", .contact),
            ("MECARD:N:Alice;;", .contact),
            ("4006381333931", .productCode),
            ("12345678", .productCode),
            ("Hello, world", .text),
        ])
    func other(text: String, kind: RecognizedPayload.Kind) throws {
        let payload = try PayloadRecognizer().recognize(text: text, source: "x")
        #expect(payload.kind == kind)
        #expect(payload.document == nil)
        #expect(!payload.summary.contains("JBSWY3DPEHPK3PXP") && !payload.summary.contains("secret-password"))
    }

    @Test("text that starts like an AC1 code is judged as one: broken is broken, and a signed one needs keys")
    func compactSignedCode() throws {
        let broken = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(text: "AC1:6BFOXN*TS0BI", source: "x")
        }
        #expect(broken?.code == .invalidCBOR)
        let key = try Fixture.privateKey("ed25519")
        let code = try ActivationCode.make(
            try #require(try PayloadRecognizer().recognize(text: SignatureTests.document, source: "d").document),
            claims: ActivationCodeClaims(expires: Date().addingTimeInterval(600)), signingKey: key, source: "d")
        let unverifiable = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(text: code, source: "x")
        }
        #expect(
            unverifiable?.reason
                == "x: the code is signed by key \(key.keyID), and no trust list or public key was given to verify it")
    }

    @Test("a link missing a parameter names it")
    func linkParameter() {
        let error = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(
                text: "app.mdk://?AppId=a&ServerUrl=https%3A%2F%2Fx.example.com&ClientId=c", source: "x")
        }
        #expect(error?.reason == "x: link parameter AuthorizationEndpointUrl: missing")
    }

    @Test("MDK and Work Zone links that name the server SapCloudPlatformEndpoint are configurations")
    func sapCloudPlatformEndpoint() throws {
        let link = try Fixture.text("documents/mdk-link.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        let renamed = link.replacingOccurrences(of: "ServerUrl=", with: "SapCloudPlatformEndpoint=")
        let payload = try PayloadRecognizer().recognize(text: renamed, source: "x")
        #expect(payload.format == .mdkLink)
        #expect(payload.document == (try PayloadRecognizer().recognize(text: link, source: "x")).document)
        #expect(payload.document?.baseURL == "https://mobile-demo.example.hana.ondemand.com")
        // Both names at once must agree: a link cannot show one server and connect to another.
        let both = link + "&SapCloudPlatformEndpoint=https%3A%2F%2Fmobile.evil.example"
        let error = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(text: both, source: "x")
        }
        #expect(error?.reason == "x: link parameters ServerUrl and SapCloudPlatformEndpoint name different servers")
        let agreeing = link + "&SapCloudPlatformEndpoint=https%3A%2F%2Fmobile-demo.example.hana.ondemand.com"
        #expect(
            try PayloadRecognizer().recognize(text: agreeing, source: "x").document?.host
                == "mobile-demo.example.hana.ondemand.com")
    }

    @Test("JSON writer escapes what it must and nothing else")
    func writer() {
        let value: ConfigurationValue = .object([
            "a/b": .string("é \"q\" \n\u{01}"), "n": .array([.integer(-3), .number(1.5), .bool(true), .null]),
        ])
        #expect(JSONWriter.compact(value) == #"{"a/b":"é \"q\" \n\u0001","n":[-3,1.5,true,null]}"#)
    }
}
