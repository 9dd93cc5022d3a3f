import Foundation
import TestSupport
import Testing

/// AC1 codes cross-checked with an independent implementation: `Tests/Interop/ac1_reference.py`
/// (Python, cbor2, base45, cryptography), written from the format description alone. Codes
/// `activate` makes verify there; codes made there verify in `activate`; both ways, both algorithms.
@Suite("AC1 interop with the Python reference implementation")
struct InteropTests {
    let directory: TemporaryFolder

    /// The venv `scripts/setup.sh --test` (`make test`) creates; `ACTIVATE_INTEROP_PYTHON` overrides.
    static let python =
        ProcessInfo.processInfo.environment["ACTIVATE_INTEROP_PYTHON"]
        ?? SourceTree.path(".build/interop-venv/bin/python")
    static let reference = SourceTree.path("Tests/Interop/ac1_reference.py")
    static let documents = [
        "SampleCodes/oauth-configuration.json", "SampleCodes/basic-configuration.json",
        "Tests/ActivationConfigurationTests/Fixtures/documents/saml-custom.json",
        "Tests/ActivationConfigurationTests/Fixtures/documents/apikey-and-unknown.json",
        "Tests/ActivationConfigurationTests/Fixtures/documents/android-basic.json",
    ]

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
    }

    func reference(_ arguments: [String], stdin: [UInt8]? = nil) async throws -> ActivateCLI.Result {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "no Python venv at \(Self.python): run scripts/setup.sh --test (make test does)")
        return try await Tool.run(Self.python, [Self.reference] + arguments, stdin: stdin)
    }

    /// The document of `inspect --json`, or of the reference's `verify`.
    static func object(_ bytes: [UInt8], _ keys: String...) throws -> [String: Any] {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        for key in keys { object = try #require(object[key] as? [String: Any], "\(key)") }
        return object
    }

    @Test(
        "codes activate signs verify in the reference, with the same document and claims",
        arguments: ["ed25519", "ec256"])
    func activateToReference(key: String) async throws {
        let signer = "\(SourceTree.keys)/\(key).pem"
        let publicKey = "\(SourceTree.keys)/\(key).pub.pem"
        let id = try await ActivateCLI.run(["keys", "id", signer]).text.trimmingCharacters(in: .newlines)
        for (index, document) in Self.documents.enumerated() {
            let image = directory.file("a\(index).png")
            let made = try await ActivateCLI.run([
                "generate", "--config", SourceTree.path(document), "--compact", "--sign", signer,
                "--issuer", "acme-it", "--audience", "com.example.fieldservice", "--app-id", "com.example.app", "-o",
                image,
            ])
            #expect(made.status == 0, "\(document): \(made.stderr)")
            let code = try await ActivateCLI.run(["scan", "--raw", image]).stdout
            let verified = try await reference(
                ["verify", "--public-key", publicKey, "--audience", "com.example.fieldservice", "-"], stdin: code)
            #expect(verified.status == 0, "\(document): \(verified.stderr)")
            let result = try Self.object(verified.stdout)
            #expect(result["kid"] as? String == id)
            #expect(result["alg"] as? String == (key == "ed25519" ? "EdDSA" : "ES256"))
            let claims = try Self.object(verified.stdout, "claims")
            #expect(claims["iss"] as? String == "acme-it")
            // The reference's document and activate's own reading of the code are the same configuration.
            let trust = directory.file("trust-\(key).json")
            if !FileManager.default.fileExists(atPath: trust) {
                #expect(
                    try await ActivateCLI.run(["keys", "trust", "add", publicKey, "--trust-list", trust]).status == 0)
            }
            let ours = try await ActivateCLI.run(["inspect", "-", "--json", "--trust-list", trust], stdin: code)
            #expect(ours.status == 0, "\(ours.stderr)")
            let theirs = directory.file("theirs-\(index).json")
            try Data(JSONSerialization.data(withJSONObject: try Self.object(verified.stdout, "document"))).write(
                to: URL(fileURLWithPath: theirs))
            let reread = try await ActivateCLI.run(["inspect", theirs, "--json"])
            #expect(reread.status == 0, "\(reread.stderr)")
            #expect(
                NSDictionary(dictionary: try Self.object(ours.stdout, "document"))
                    == NSDictionary(dictionary: try Self.object(reread.stdout, "document")),
                "\(document)")
            // One flipped bit anywhere in the text: the reference refuses it too.
            var tampered = code
            tampered[tampered.count / 2] =
                tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(try await reference(["verify", "--public-key", publicKey, "-"], stdin: tampered).status == 2)
        }
    }

    @Test(
        "codes the reference signs verify in activate scan, with key, issuer and audience",
        arguments: ["ed25519", "p256"])
    func referenceToActivate(algorithm: String) async throws {
        let key = directory.file("ref.pem")
        let publicKey = directory.file("ref.pub.pem")
        let trust = directory.file("trust.json")
        let generated = try await reference(["keygen", "--algorithm", algorithm, "--out", key])
        #expect(generated.status == 0, "\(generated.stderr)")
        let id = generated.text.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data(try await reference(["public", "--key", key]).stdout).write(to: URL(fileURLWithPath: publicKey))
        #expect(try await ActivateCLI.run(["keys", "id", publicKey]).text.trimmingCharacters(in: .newlines) == id)
        #expect(
            try await ActivateCLI.run([
                "keys", "trust", "add", publicKey, "--trust-list", trust, "--issuer", "ref-issuer",
            ]).status == 0)
        for (index, document) in Self.documents.enumerated() {
            let signed = try await reference([
                "sign", "--key", key, "--config", SourceTree.path(document), "--issuer", "ref-issuer",
                "--audience", "com.example.fieldservice", "--expires-in", "3600",
            ])
            #expect(signed.status == 0, "\(document): \(signed.stderr)")
            let text = signed.text.trimmingCharacters(in: .newlines)
            let image = directory.file("r\(index).png")
            #expect(try await ActivateCLI.run(["generate", text, "-o", image]).status == 0)
            let scan = try await ActivateCLI.run([
                "scan", image, "--trust-list", trust, "--app-id", "com.example.fieldservice",
            ])
            #expect(scan.status == 0, "\(document): \(scan.text) \(scan.stderr)")
            #expect(
                scan.text.contains(
                    """
                    Signature:  verified (AC1, \(algorithm == "p256" ? "ES256" : "EdDSA"), key \(id), issuer \
                    ref-issuer, expires 
                    """
                ),
                "\(scan.text)")
            // activate reads the same configuration the reference wrote into the code.
            let ours = try await ActivateCLI.run(
                ["inspect", "-", "--json", "--trust-list", trust], stdin: Array(text.utf8))
            let plain = try await ActivateCLI.run(["inspect", SourceTree.path(document), "--json"])
            #expect(
                NSDictionary(dictionary: try Self.object(ours.stdout, "configuration").filter { $0.key != "signature" })
                    == NSDictionary(
                        dictionary: try Self.object(plain.stdout, "configuration").filter { $0.key != "signature" }),
                "\(document)")
            // Another app, another issuer: refused for the audience and the issuer.
            let other = try await ActivateCLI.run([
                "scan", image, "--trust-list", trust, "--app-id", "com.example.other",
            ])
            #expect(other.status == 2 && other.text.contains("not for com.example.other"))
        }
    }
}
