import ActivationImaging
import Foundation
import TestSupport
import Testing

@testable import ActivationConfiguration

/// `keys`, `generate --compact` and AC1 verification in `scan`, `inspect` and `onboard`, through
/// the real executable, real key files, real trust lists and real code images.
@Suite("AC1 codes and keys on the command line")
struct ActivationCodeCommandTests {
    let directory: TemporaryFolder
    let key: String, publicKey: String, trustList: String

    static let sample = SourceTree.path("SampleCodes/oauth-configuration.json")
    static let edKey = "\(SourceTree.keys)/ed25519.pem"

    /// A fresh folder with the Ed25519 test key trusted in `trust.json`.
    init() async throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        key = Self.edKey
        publicKey = "\(SourceTree.keys)/ed25519.pub.pem"
        trustList = directory.file("trust.json")
        let added = try await ActivateCLI.runInProcess(["keys", "trust", "add", publicKey, "--trust-list", trustList])
        #expect(added.status == 0, "\(added.stderr)")
    }

    /// Draws `text` as a QR code image (a plain payload: what a forger could print).
    func image(_ name: String, _ text: String) async throws -> String {
        let path = directory.file("\(name).png")
        let result = try await ActivateCLI.runInProcess(["generate", text, "-o", path])
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    static func document() throws -> ConfigurationDocument {
        try #require(
            try PayloadRecognizer().recognize(bytes: try FileIO.read(sample, limit: 1 << 20), source: "sample").document
        )
    }

    static func code(
        expires: Date = Date().addingTimeInterval(3600), notBefore: Date? = nil, audience: [String] = [],
        issuer: String? = nil, key: SigningKey? = nil, document: ConfigurationDocument? = nil
    ) throws -> String {
        try ActivationCode.make(
            try document ?? self.document(),
            claims: ActivationCodeClaims(
                issuer: issuer, audience: audience, expires: expires,
                notBefore: notBefore, issuedAt: Date().addingTimeInterval(-7200)),
            signingKey: try key ?? SigningKey(pem: String(contentsOfFile: edKey, encoding: .utf8)), source: "t")
    }

    // MARK: keys

    @Test("keys create: PKCS #8 in a 0600 file, the key id on stdout, never a silent replace")
    func create() async throws {
        let path = directory.file("admin.pem")
        let created = try await ActivateCLI.runInProcess(["keys", "create", "--out", path])
        #expect(created.status == 0, "\(created.stderr)")
        let id = created.text.trimmingCharacters(in: .newlines)
        #expect(id.count == 16 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(!created.stderr.contains(pem.split(separator: "\n")[1]))

        let again = try await ActivateCLI.runInProcess(["keys", "create", "--out", path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists; pass --force"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == pem)
        let forced = try await ActivateCLI.runInProcess([
            "keys", "create", "--out", path, "--force", "--algorithm", "p256",
        ])
        #expect(forced.status == 0)
        #expect(forced.text != created.text)
        #expect(try await ActivateCLI.runInProcess(["keys", "id", path]).text == forced.text)
    }

    @Test("keys public and keys id: the same id from the private and the public key")
    func publicAndID() async throws {
        let printed = try await ActivateCLI.runInProcess(["keys", "public", key])
        #expect(printed.status == 0)
        #expect(printed.text == (try String(contentsOfFile: publicKey, encoding: .utf8)))
        let out = directory.file("pub.pem")
        #expect(try await ActivateCLI.runInProcess(["keys", "public", key, "--out", out]).status == 0)
        let fromPrivate = try await ActivateCLI.runInProcess(["keys", "id", key])
        let fromPublic = try await ActivateCLI.run(["keys", "id", out])
        #expect(fromPrivate.status == 0 && fromPrivate.text == fromPublic.text)
        let wrong = try await ActivateCLI.runInProcess(["keys", "public", publicKey])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("an Ed25519 public key is not a usable private key"))
    }

    @Test(
        "--sign says which wrong key it was given",
        arguments: [
            ("rsa1024.pem", false, "an RSA-1024 private key is not a usable private key"),
            (
                "ed25519.pub.pem", false,
                """
                an Ed25519 public key is not a usable private key (accepted: Ed25519, EC P-256/384/521, or RSA of 2048 \
                bits or more); --sign takes a private key
                """
            ),
            ("ec384.pem", true, "an EC P-384 key cannot sign AC1 codes (Ed25519 or EC P-256 only"),
            ("rsa.pem", true, "an RSA-2048 key cannot sign AC1 codes"),
        ])
    func wrongSigningKey(file: String, compact: Bool, message: String) async throws {
        let result = try await ActivateCLI.runInProcess(
            [
                "generate", "--config", Self.sample, "--sign", "\(SourceTree.keys)/\(file)", "-o",
                directory.file("x.png"),
            ]
                + (compact ? ["--compact"] : []))
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("x.png")))
    }

    @Test("keys trust add, list and remove; removing a key revokes its codes, stored ones too")
    func trust() async throws {
        let twice = try await ActivateCLI.runInProcess(["keys", "trust", "add", publicKey, "--trust-list", trustList])
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("is in the trust list already (--replace updates it)"))
        let replaced = try await ActivateCLI.runInProcess([
            "keys", "trust", "add", publicKey, "--trust-list", trustList, "--replace", "--issuer", "acme-it",
            "--allow-host", "hana.ondemand.com", "--not-after", "30d",
        ])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        // A private key.
        #expect(
            try await ActivateCLI.runInProcess(["keys", "trust", "add", key, "--trust-list", trustList]).status == 2)
        #expect(
            try await ActivateCLI.runInProcess([
                "keys", "trust", "add", "\(SourceTree.keys)/ec256.pub.pem", "--trust-list", trustList,
            ]).status == 0)

        let listed = try await ActivateCLI.runInProcess(["keys", "trust", "list", "--trust-list", trustList, "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]]
        #expect(entries?.count == 2)
        #expect(entries?.first?["issuer"] as? String == "acme-it")
        #expect(entries?.first?["allowedHosts"] as? [String] == ["hana.ondemand.com"])
        #expect(entries?.first?["status"] as? String == "valid")
        let table = try await ActivateCLI.runInProcess(["keys", "trust", "list", "--trust-list", trustList])
        #expect(table.text.contains("EdDSA  acme-it") && table.text.contains("ES256"))

        // Onboard a signed code, then revoke its key: scanning and restoring both refuse it.
        let code = try await image("signed", try Self.code(issuer: "acme-it"))
        let store = directory.file("state/configuration.json")
        let onboarded = try await ActivateCLI.runInProcess([
            "onboard", "--scan", code, "--trust-list", trustList, "--yes", "--no-sign-in", "--store", store,
        ])
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        #expect(
            try await ActivateCLI.runInProcess(["restore", "--store", store, "--trust-list", trustList]).status == 0)
        let id = try await ActivateCLI.runInProcess(["keys", "id", key]).text.trimmingCharacters(in: .newlines)
        let removed = try await ActivateCLI.runInProcess(["keys", "trust", "remove", id, "--trust-list", trustList])
        #expect(removed.status == 0)
        #expect(removed.stderr.contains("removed (codes it signed are refused)"))
        let scan = try await ActivateCLI.runInProcess(["scan", code, "--trust-list", trustList])
        #expect(scan.status == 2)
        #expect(
            scan.text.contains(
                """
                Rejected: \(code): the code is signed by key \(id), which is not in the trust list (unknown or revoked)
                """
            ))
        let restore = try await ActivateCLI.runInProcess(["restore", "--store", store, "--trust-list", trustList])
        #expect(restore.status == 2)
        #expect(restore.stderr.contains("which is not in the trust list (revoked?)"))
        #expect(
            try await ActivateCLI.runInProcess(["keys", "trust", "remove", id, "--trust-list", trustList]).status == 2)
    }

    // MARK: generate --compact

    @Test("the sample configuration becomes a signed AC1 code in QR version 13 or lower at EC M, 17 or lower at Q")
    func size() async throws {
        let sample = try FileIO.read(Self.sample, limit: 1 << 20)
        #expect(sample.count >= 590)
        for (level, most) in [("M", 13), ("Q", 17)] {
            for signer in [key, "\(SourceTree.keys)/ec256.pem"] {
                let out = directory.file("c-\(level).png")
                let made = try await ActivateCLI.runInProcess([
                    "generate", "--config", Self.sample, "--compact", "--sign", signer, "--issuer", "acme-it",
                    "--audience", "com.example.fieldservice", "--ec", level, "-o", out, "--force",
                ])
                #expect(made.status == 0, "\(made.stderr)")
                let version = made.stderr.firstMatch(of: /QR version (\d+)-(\w)/).flatMap { Int($0.1) }
                #expect(version.map { $0 <= most } == true, "\(made.stderr)")
                #expect(made.stderr.contains("alphanumeric mode"))
                let id = try await ActivateCLI.runInProcess(["keys", "id", signer]).text.trimmingCharacters(
                    in: .newlines)
                #expect(
                    made.stderr.contains(
                        "signed: AC1, \(signer == key ? "EdDSA" : "ES256"), key \(id), issuer acme-it, expires "))
            }
        }
        let jws = try await ActivateCLI.runInProcess([
            "generate", "--config", Self.sample, "--sign", key, "-o", directory.file("jws.png"),
        ])
        #expect(jws.stderr.contains("signed: JWS EdDSA, key "))
    }

    @Test("generate refuses what a reader would refuse: a document without an app id, unless --app-id gives one")
    func appID() async throws {
        let document = try directory.write(
            "no-app.json", Array(#"{"host":"mobile.example.hana.ondemand.com","auth":[{"type":"basic"}]}"#.utf8))
        let refused = try await ActivateCLI.runInProcess([
            "generate", "--config", document, "-o", directory.file("a.png"),
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("appID: missing"))
        let given = try await ActivateCLI.runInProcess([
            "generate", "--config", document, "--app-id", "com.example.app", "-o", directory.file("a.png"),
        ])
        #expect(given.status == 0, "\(given.stderr)")
        let scanned = try await ActivateCLI.runInProcess(["scan", directory.file("a.png")])
        #expect(scanned.status == 0)
        #expect(scanned.text.contains("App ID:     com.example.app"))
    }

    @Test("generate --margin below the quiet zone warns (the --compact usage errors: CommandParsingTests)")
    func usage() async throws {
        let margin = try await ActivateCLI.runInProcess([
            "generate", "HELLO", "--margin", "2", "-o", directory.file("m.png"),
        ])
        #expect(margin.status == 0)
        #expect(margin.stderr.contains("warning: a quiet zone of 2 modules is below the 4"))
    }

    // MARK: verification everywhere

    @Test("scan, inspect and onboard verify an AC1 code and report key, algorithm, issuer and expiry")
    func verified() async throws {
        let code = try await image("good", try Self.code(issuer: "acme-it"))
        let scan = try await ActivateCLI.runInProcess(["scan", code, "--trust-list", trustList])
        #expect(scan.status == 0, "\(scan.stderr)")
        let id = try await ActivateCLI.runInProcess(["keys", "id", key]).text.trimmingCharacters(in: .newlines)
        #expect(scan.text.contains("Signature:  verified (AC1, EdDSA, key \(id), issuer acme-it, expires "))
        let json = try await ActivateCLI.runInProcess(["scan", "--json", code, "--trust-list", trustList])
        let activation = try #require(try decodeReport([ScanReport].self, json.stdout).first?.symbols.first?.activation)
        #expect(activation.format == "ac1")
        let signature = try #require(activation.configuration?.signature)
        #expect(
            signature.status == "verified" && signature.algorithm == "EdDSA" && signature.keyFingerprint == id
                && signature.issuer == "acme-it")
        #expect(signature.expires.flatMap { try? Date($0, strategy: .iso8601) } != nil && signature.issuedAt != nil)
        let raw = try await ActivateCLI.runInProcess(["scan", "--raw", code])
        let inspect = try await ActivateCLI.run(["inspect", "-", "--json"], stdin: raw.stdout, in: nil)
        #expect(inspect.status == 2)  // no trust list, no key: cannot be verified
        let environment = try await Tool.run(
            "/usr/bin/env", ["ACTIVATE_TRUST_LIST=\(trustList)", ActivateCLI.executable, "inspect", "-", "--json"],
            stdin: raw.stdout)
        #expect(environment.status == 0, "\(environment.stderr)")
        #expect(environment.text.contains(#""keyID" : "\#(id)""#))
        // The public key alone verifies too.
        #expect(try await ActivateCLI.runInProcess(["scan", code, "--public-key", publicKey]).status == 0)
        let onboard = try await ActivateCLI.runInProcess([
            "onboard", "--scan", code, "--trust-list", trustList, "--yes", "--no-sign-in", "--store",
            directory.file("s/c.json"), "--json",
        ])
        #expect(onboard.status == 0, "\(onboard.stderr)")
        #expect(!onboard.text.contains("AC1:"))
    }

    @Test("each refusal, from a real code image, has its own reason and exit 2")
    func refusals() async throws {
        let mallory = SigningKey(generating: .ed25519)
        let good = try Self.code()
        // One bit of the signature flipped (the frame's last byte).
        var frameBytes = try Base45.decode(good.dropFirst(4), source: "t")
        frameBytes[frameBytes.count - 1] ^= 1
        let tampered = ActivationCode.prefix + Base45.encode(frameBytes)
        // A 1 MiB bomb, signed by Mallory under the trusted key's id.
        let trusted = try SigningKey(pem: String(contentsOfFile: key, encoding: .utf8))
        let bombClaims = CBOR.map([
            .init(.integer(4), .integer(Int(Date().timeIntervalSince1970) + 3600)),
            .init(
                .integer(ActivationCode.Claim.configuration),
                .bytes(try RawDeflate.deflate([UInt8](repeating: 0, count: 1 << 20)))),
        ])
        var bomb = try COSESign1(signing: bombClaims.encoded, with: mallory, algorithm: .EdDSA)
        bomb.keyID = trusted.verificationKey.keyIDBytes
        bomb.protectedBytes =
            CBOR.map([.init(.integer(1), .integer(-8)), .init(.integer(4), .bytes(bomb.keyID))]).encoded
        let signedBomb = try COSESign1(signing: bombClaims.encoded, with: trusted, algorithm: .EdDSA)
        let noExpiry = try COSESign1(
            signing: CBOR.map([
                .init(
                    .integer(ActivationCode.Claim.configuration),
                    .bytes(
                        try RawDeflate.deflate(
                            try CompactConfiguration.encode(try Self.document(), source: "t").encoded)))
            ]).encoded,
            with: trusted, algorithm: .EdDSA)
        let otherHost = try Self.code(
            document: ConfigurationDocument(host: "evil.example.com", appID: "com.example.app"))
        let restricted = directory.file("restricted.json")
        #expect(
            try await ActivateCLI.runInProcess([
                "keys", "trust", "add", publicKey, "--trust-list", restricted, "--allow-host", "hana.ondemand.com",
            ]).status == 0)

        let cases: [(String, String, [String], String)] = [
            ("unknown-key", try Self.code(key: mallory), [], "which is not in the trust list (unknown or revoked)"),
            ("bad-signature", tampered, [], "signature does not verify with key"),
            ("expired", try Self.code(expires: Date().addingTimeInterval(-3600)), [], "the code expired at "),
            (
                "not-yet-valid", try Self.code(notBefore: Date().addingTimeInterval(3600)), [],
                "the code is not valid before "
            ),
            (
                "no-expiry", ActivationCode.prefix + Base45.encode(noExpiry.encoded), [],
                "the code has no expiry (exp); AC1 codes must expire"
            ),
            (
                "audience", try Self.code(audience: ["com.example.other"]), ["--app-id", "com.example.fieldservice"],
                "the code is for com.example.other, not for com.example.fieldservice"
            ),
            ("host-for-key", otherHost, ["--trust-list", restricted], "the trust list allows key "),
            ("base45", "AC1:GGW", [], "is out of range"),
            ("cbor", "AC1:" + Base45.encode([0xD2, 0x84, 0x40, 0xA0]), [], "an array of 4 items runs past the end"),
            (
                "deep-cbor", "AC1:" + Base45.encode([0xD2] + [UInt8](repeating: 0x81, count: 12) + [0x00]), [],
                "nested deeper than 8 levels"
            ),
            (
                "bomb-bad-signature", ActivationCode.prefix + Base45.encode(bomb.encoded), [],
                "signature does not verify with key"
            ),
            (
                "bomb", ActivationCode.prefix + Base45.encode(signedBomb.encoded), [],
                "inflates to more than 32 KiB (the limit); refused"
            ),
            (
                "unsigned", try Self.document().canonicalJSON(), [],
                "the configuration is not signed, and the policy requires a signature"
            ),
        ]
        for (name, text, options, reason) in cases {
            let path = try await image(name, text)
            let trust = options.contains("--trust-list") ? [] : ["--trust-list", trustList]
            let scan = try await ActivateCLI.runInProcess(["scan", path] + trust + options)
            #expect(scan.status == 2, "\(name): \(scan.text) \(scan.stderr)")
            #expect(scan.text.contains("Rejected: \(path): "), "\(name)")
            #expect(scan.text.contains(reason), "\(name): \(scan.text)")
            let onboard = try await ActivateCLI.runInProcess(
                ["onboard", "--scan", path, "--yes", "--no-sign-in", "--store", directory.file("\(name)/c.json")]
                    + trust + options)
            #expect(onboard.status == 2, "\(name): \(onboard.stderr)")
            #expect(onboard.stderr.contains(reason), "\(name): \(onboard.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("\(name)/c.json")))
            let file = try directory.write("\(name).txt", Array(text.utf8))
            let inspect = try await ActivateCLI.runInProcess(["inspect", file] + trust + options)
            #expect(inspect.status == 2 && inspect.stderr.contains(reason), "\(name): \(inspect.stderr)")
        }
        // An unsigned code is fine again when the administrator says signatures are optional.
        let unsigned = try await image("unsigned-ok", try Self.document().canonicalJSON())
        #expect(
            try await ActivateCLI.runInProcess(["scan", unsigned, "--trust-list", trustList, "--signature", "optional"])
                .status == 0)
    }
}

@Suite("generate --batch")
struct BatchGenerateTests {
    let directory: TemporaryFolder

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
    }

    @Test("documents, folders and JSON lines become one read-back code each; a bad one is named and the others go on")
    func batch() async throws {
        let folder = directory.file("configs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["oauth-authorization-code.json", "saml.json", "android-basic.json"] {
            try FileManager.default.copyItem(atPath: "\(SourceTree.documents)/\(name)", toPath: "\(folder)/\(name)")
        }
        let sample = try String(
            contentsOfFile: SourceTree.path("SampleCodes/oauth-configuration.json"), encoding: .utf8)
        let evil =
            #"{"name":"<script>alert(1)</script>","host":"x.example.com","appID":"a<b>","auth":[{"type":"basic"}]}"#
        let lines = [
            sample.replacingOccurrences(of: "{\"host\"", with: #"{"name":"alice","host""#),
            // Refused: a host with a scheme.
            #"{"name":"bob","host":"http://insecure.example.com","auth":[{"type":"basic"}]}"#,
            "not json",
            #"{"name":"carol","config":{"host":"carol.example.com","appID":"c&d","auth":[{"type":"basic"}]}}"#,
            #"{"name":"alice","host":"dup.example.com","appID":"x","auth":[{"type":"basic"}]}"#,  // the name is taken
            evil,
            "",
        ]
        let jsonl = try directory.write("people.jsonl", Array(lines.joined(separator: "\n").utf8))
        let out = directory.file("codes")
        let sheet = directory.file("codes.html")
        let result = try await ActivateCLI.runInProcess([
            "generate", "--batch", folder, jsonl, "--out-dir", out, "--compact",
            "--sign", "\(SourceTree.keys)/ed25519.pem", "--issuer", "acme-it", "--sheet", sheet, "--jobs", "2",
        ])
        #expect(result.status == 2, "\(result.stderr)")
        let written = result.text.split(separator: "\n").map(String.init)
        // Input order: the folder (sorted), then the lines.
        #expect(
            written
                == ["android-basic", "oauth-authorization-code", "saml", "alice", "carol"].map { "\(out)/\($0).png" },
            "\(written)")
        #expect(result.stderr.contains("\(jsonl):2: host: "), "\(result.stderr)")
        #expect(result.stderr.contains("\(jsonl):3: "))
        #expect(result.stderr.contains(#"\#(jsonl):5: the name "alice" is taken by \#(jsonl):1"#))
        #expect(result.stderr.contains(#"\#(jsonl):6: the name "<script>alert(1)</script>" cannot be a file name"#))
        #expect(result.stderr.contains("made 5 of 9 codes in \(out) and the sheet \(sheet)"))
        // Each code reads back as a verified AC1 code.
        let trust = directory.file("trust.json")
        #expect(
            try await ActivateCLI.runInProcess([
                "keys", "trust", "add", "\(SourceTree.keys)/ed25519.pub.pem", "--trust-list", trust,
            ]).status == 0)
        let scan = try await ActivateCLI.runInProcess(["scan", out, "--trust-list", trust])
        #expect(scan.status == 0, "\(scan.text)")
        #expect(scan.text.components(separatedBy: "Signature:  verified (AC1, EdDSA").count == 6)
        // The sheet: a card per code, every document text escaped.
        let page = try String(contentsOfFile: sheet, encoding: .utf8)
        #expect(page.components(separatedBy: "<div class=\"card\">").count == 6)
        #expect(page.contains("<dd>c&amp;d</dd>") && page.contains("data:image/png;base64,"))
        #expect(!page.contains("<script>"))
        // Nothing is replaced without --force.
        let again = try await ActivateCLI.runInProcess(["generate", "--batch", folder, "--out-dir", out])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists; pass --force"))
        #expect(
            try await ActivateCLI.runInProcess(["generate", "--batch", folder, "--out-dir", out, "--force"]).status == 0
        )
    }
}
