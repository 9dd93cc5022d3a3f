import ActivationConfiguration
import ActivationImaging
import Foundation
import TestSupport
import Testing

/// Compares output with `Tests/CLIIntegrationTests/Golden/<name>`; `UPDATE_GOLDEN=1 swift test`
/// rewrites the files instead (review the diff before committing).
func expectGolden(_ output: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = SourceTree.path("Tests/CLIIntegrationTests/Golden/\(name)")
    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
        try output.write(toFile: path, atomically: true, encoding: .utf8)
        return
    }
    let golden = try String(contentsOfFile: path, encoding: .utf8)
    if golden != output {
        let expected = golden.split(separator: "\n", omittingEmptySubsequences: false)
        let actual = output.split(separator: "\n", omittingEmptySubsequences: false)
        let firstDifference = Array(zip(expected, actual)).firstIndex { $0 != $1 } ?? min(expected.count, actual.count)
        let line = { (lines: [Substring]) in firstDifference < lines.count ? String(lines[firstDifference]) : "<end>" }
        Issue.record(
            "\(name) differs at line \(firstDifference + 1):\n- \(line(expected))\n+ \(line(actual))",
            sourceLocation: sourceLocation)
    }
}

/// `output` (a command's JSON) decoded as the report type `T`, which must keep all of it: encoded
/// again, it is the same JSON value, so a key the type lacks cannot go unnoticed.
func decodeReport<T: Codable>(_ type: T.Type, _ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation)
    throws -> T
{
    let report = try JSONDecoder().decode(T.self, from: Data(output))
    let original = try JSONDecoder().decode(ConfigurationValue.self, from: Data(output))
    let again = try JSONDecoder().decode(ConfigurationValue.self, from: try JSONEncoder().encode(report))
    #expect(again == original, "\(T.self) drops or changes part of the output", sourceLocation: sourceLocation)
    return report
}

@Suite("activate inspect, scan and generate with configurations")
struct ConfigurationCommandTests {
    let directory: TemporaryFolder
    init() throws { directory = try TemporaryFolder(prefix: "activate-cli") }

    @Test(
        "inspect --json, golden",
        arguments: [
            "oauth-authorization-code.json", "cross-context-sso.json", "saml.json", "mdk-link.txt",
            "AppParameters.plist",
        ])
    func inspectJSON(file: String) async throws {
        let result = try await ActivateCLI.run(["inspect", "--json", file], in: SourceTree.documents)
        #expect(result.status == 0, "\(result.stderr)")
        try expectGolden(result.text, "inspect-\(file).json")
        let report = try decodeReport(InspectReport.self, result.stdout)
        #expect(report.accepted && report.error == nil)
        if file == "AppParameters.plist" {
            #expect(report.kind == "app-parameters" && report.configuration == nil && report.document == nil)
            #expect(report.appParameters?.destinations["mobileservices"] == "mobileservices")
        } else {
            #expect(report.kind == "configuration" && report.appParameters == nil)
            #expect(report.configuration?.host == "mobile-demo.example.hana.ondemand.com")
            #expect(report.configuration?.auth.first?.primary == true)
            #expect(report.configuration?.signature.status == "unsigned")
        }
    }

    @Test("inspect text summary, golden")
    func inspectText() async throws {
        var text = ""
        for file in ["oauth-authorization-code.json", "saml.json", "apikey-and-unknown.json", "cross-context-sso.json"]
        {
            let result = try await ActivateCLI.run(["inspect", file], in: SourceTree.documents)
            #expect(result.status == 0)
            text += "$ activate inspect \(file)\n" + result.text
        }
        try expectGolden(text, "inspect-summaries.txt")
        #expect(!text.contains("9f86d081884c7d659a2feaa0c55ad015"), "the passcode never appears")
    }

    @Test("rejections: exit 2, the reason names the key path; --json gives the error object")
    func rejected() async throws {
        let file = try directory.write(
            "bad.json",
            Array(
                #"""
                {"host":"x.example.com","appID":"a","auth":[{"type":"oauth2","config":{"oauth2.authorizationEndpoint":\#
                "https://x.example.com/a","oauth2.tokenEndpoint":"http://x.example.com/t","oauth2.clients":\#
                [{"clientID":"c","redirectURL":"https://x.example.com"}]}}]}
                """#
                .utf8))
        let result = try await ActivateCLI.runInProcess(["inspect", file])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "activate: \(file): auth[0].config.oauth2.tokenEndpoint: not an https URL (http://x.example.com/t)\n"
        )
        let json = try await ActivateCLI.run(["inspect", "--json", "bad.json"], in: directory.path)
        #expect(json.status == 2)
        try expectGolden(json.text, "inspect-rejected.json")
        let report = try decodeReport(InspectReport.self, json.stdout)
        #expect(!report.accepted && report.kind == nil && report.summary == nil && report.configuration == nil)
        #expect(report.error?.code == "insecure-url")
        #expect(
            report.error?.reason
                == "bad.json: auth[0].config.oauth2.tokenEndpoint: not an https URL (http://x.example.com/t)")
    }

    @Test("activate without a subcommand: the help on stderr, nothing on stdout, exit 64")
    func noSubcommand() async throws {
        let result = try await ActivateCLI.run([])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("OVERVIEW: Scan, check and generate activation QR codes"))
        #expect(result.stderr.contains("SUBCOMMANDS:") && result.stderr.contains("keys"))
        #expect(try await ActivateCLI.runInProcess(["--help"]).status == 0)
    }

    @Test("--version alone answers before the command tree is built, as the tree answers it with other options")
    func version() async throws {
        let alone = try await ActivateCLI.run(["--version"])
        #expect(alone.status == 0 && alone.text == "0.1.0\n" && alone.stderr.isEmpty, "\(alone)")
        // Through ArgumentParser (the tree): the same answer.
        let parsed = try await ActivateCLI.runInProcess(["--version"])
        #expect(parsed.status == 0 && parsed.stdout == alone.stdout, "\(parsed)")
        // Not alone: the tree answers, as ArgumentParser answers a built-in flag, with the same text.
        let withMore = try await ActivateCLI.run(["--version", "extra"])
        #expect(withMore.status == 0 && withMore.stdout == alone.stdout, "\(withMore)")
    }

    @Test("-q/--quiet: no summaries or warnings, results and errors still")
    func quiet() async throws {
        let directory = try TemporaryFolder(prefix: "activate-cli")
        let loud = try await ActivateCLI.runInProcess([
            "generate", "HELLO", "--margin", "2", "-o", directory.file("a.png"),
        ])
        #expect(loud.stderr.contains("warning: a quiet zone") && loud.stderr.contains("read back and verified"))
        let quiet = try await ActivateCLI.runInProcess([
            "generate", "HELLO", "--margin", "2", "-q", "-o", directory.file("b.png"),
        ])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let key = try await ActivateCLI.runInProcess(["keys", "create", "--quiet", "--out", directory.file("k.pem")])
        #expect(key.stderr.isEmpty && key.text.count == 17)
        let failed = try await ActivateCLI.runInProcess(["generate", "HELLO", "-q", "-o", directory.file("b.png")])
        #expect(failed.status == 1 && failed.stderr.contains("already exists"))
        let scan = try await ActivateCLI.runInProcess(["scan", "-q", directory.file("b.png")])
        #expect(scan.status == 0 && scan.text == "QR-Code: HELLO\n" && scan.stderr.isEmpty)
    }

    @Test("a code wider than the terminal is refused with a hint, not wrapped")
    func narrowTerminal() async throws {
        // script(1) gives activate a real terminal whose width stty sets.
        let command = "stty cols 30; '\(ActivateCLI.executable)' generate 'https://example.com/a-longer-payload-here'"
        let narrow = try await Tool.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(narrow.status == 1)
        #expect(
            narrow.text.contains(
                """
                the code is 37 modules wide and this terminal 30 columns; widen the terminal, or write a file: \
                --output code.png
                """
            ),
            "\(narrow.text)")
        let wide = try await Tool.run(
            "/usr/bin/script", ["-qec", command.replacingOccurrences(of: "cols 30", with: "cols 120"), "/dev/null"])
        #expect(wide.status == 0 && wide.text.contains("read back and verified"), "\(wide.text)")
    }

    @Test("inspect exit codes: 1 unreadable, 2 not a configuration (64 usage: CommandParsingTests)")
    func exitCodes() async throws {
        #expect(try await ActivateCLI.runInProcess(["inspect", directory.file("missing.json")]).status == 1)
        #expect(try await ActivateCLI.run(["inspect", "-"], stdin: Array("https://example.com".utf8)).status == 2)
        #expect(
            try await ActivateCLI.run(["inspect", "-"], stdin: Array("https://example.com".utf8)).stderr.contains(
                "a web address on example.com, not an onboarding configuration"))
        #expect(
            try await ActivateCLI.run(["inspect", "-", "--public-key", directory.file("nokey.pem")], stdin: []).status
                == 1)
    }

    @Test("policy options: --allow-host and --allow-http")
    func policyOptions() async throws {
        let allowed = try await ActivateCLI.run(
            ["inspect", "oauth-authorization-code.json", "--allow-host", "hana.ondemand.com"], in: SourceTree.documents)
        #expect(allowed.status == 0)
        let refused = try await ActivateCLI.run(
            ["inspect", "oauth-authorization-code.json", "--allow-host", "example.org"], in: SourceTree.documents)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "host: the host mobile-demo.example.hana.ondemand.com is not on the allowed list (example.org)"))
        let http = Array(#"{"host":"localhost","protocol":"http","port":8080,"appID":"a"}"#.utf8)
        #expect(try await ActivateCLI.run(["inspect", "-"], stdin: http).status == 2)
        #expect(try await ActivateCLI.run(["inspect", "-", "--allow-http"], stdin: http).status == 0)
    }

    @Test("scan --json carries the activation object under each symbol, golden")
    func scanJSON() async throws {
        let result = try await ActivateCLI.run(
            ["scan", "--json", "SampleCodes/oauth-activation.png", "SampleCodes/basic-activation.png"],
            in: SourceTree.root)
        #expect(result.status == 0)
        try expectGolden(result.text, "scan-samples.json")
        let reports = try decodeReport([ScanReport].self, result.stdout)
        #expect(reports.map(\.file) == ["SampleCodes/oauth-activation.png", "SampleCodes/basic-activation.png"])
        let activations = reports.flatMap(\.symbols).map(\.activation)
        #expect(activations.count == 2 && activations.allSatisfy { $0.accepted && $0.format == "json" })
        #expect(activations.map { $0.configuration?.auth.map(\.type) } == [["oauth2"], ["basic.default"]])
        let text = try await ActivateCLI.run(["scan", "SampleCodes/basic-activation.png"], in: SourceTree.root)
        try expectGolden(text.text, "scan-basic.txt")
    }

    @Test("scan --raw stays byte-exact for configuration codes")
    func scanRaw() async throws {
        let raw = try await ActivateCLI.run(["scan", "--raw", "SampleCodes/oauth-activation.png"], in: SourceTree.root)
        let expected = try Data(
            contentsOf: URL(fileURLWithPath: SourceTree.path("SampleCodes/oauth-configuration.json")))
        #expect(raw.stdout == Array(expected) + [0x0A])
    }

    @Test(
        "generate --config: each reference example reads back through scan --json to the same configuration",
        arguments: [
            "oauth-authorization-code.json", "android-basic.json", "cross-context-sso.json", "saml.json",
            "saml-custom.json",
            "legacy-flat-oauth2.json", "legacy-no-auth.json", "apikey-and-unknown.json", "mdm-flattened.json",
            "oauth-authorization-code.plist", "oauth-authorization-code.bplist", "mdk-link.txt",
            "mobile-cards-link.txt",
        ])
    func configurationRoundTrip(file: String) async throws {
        let input = "\(SourceTree.documents)/\(file)"
        let image = directory.file("\(file).png")
        let generated = try await ActivateCLI.runInProcess([
            "generate", "--config", input, "-o", image, "--allow-passcode",
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        let inspected = try decodeReport(
            InspectReport.self, try await ActivateCLI.runInProcess(["inspect", "--json", input]).stdout)
        let scanned = try decodeReport(
            [ScanReport].self, try await ActivateCLI.runInProcess(["scan", "--json", image]).stdout)
        let activation = try #require(scanned.first?.symbols.first?.activation)
        #expect(activation.accepted)
        let expected = try #require(inspected.configuration)
        #expect(activation.configuration == expected, "\(file)")
    }

    @Test("generate --config refuses a passcode without --allow-passcode, and an invalid document")
    func generateRefusals() async throws {
        let sso = try await ActivateCLI.run(
            ["generate", "--config", "cross-context-sso.json", "-o", directory.file("sso.png")],
            in: SourceTree.documents)
        #expect(sso.status == 2)
        #expect(sso.stderr.contains("carries an OAuth passcode"))
        // The CLI's advice (Hint), not the library's.
        #expect(sso.stderr.contains("--allow-passcode encodes it anyway"))
        let bad = try directory.write("bad.json", Array(#"{"host":"https://x.example.com"}"#.utf8))
        #expect(
            try await ActivateCLI.runInProcess(["generate", "--config", bad, "-o", directory.file("bad.png")]).status
                == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.file("bad.png")))
    }

    @Test(
        "generate --sign: ES256 and RS256 codes verify with the matching key, and only with it",
        arguments: ["ec256", "rsa"])
    func signed(key: String) async throws {
        let image = directory.file("signed-\(key).png")
        let generated = try await ActivateCLI.runInProcess([
            "generate", "--config", "\(SourceTree.documents)/android-basic.json",
            "--sign", "\(SourceTree.keys)/\(key).pem", "--ec", "L", "-o", image,
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        let verified = try await ActivateCLI.runInProcess([
            "scan", image, "--public-key", "\(SourceTree.keys)/\(key).pub.pem", "--signature", "required",
        ])
        #expect(
            verified.text.contains("Scan succeeded. You will be connected to: mobile-demo.example.hana.ondemand.com"))
        #expect(verified.text.contains("Signature:  verified (\(key == "rsa" ? "RS256" : "ES256")"))
        let wrong = try await ActivateCLI.runInProcess([
            "scan", image, "--public-key", "\(SourceTree.keys)/other-\(key == "rsa" ? "rsa" : "ec256").pub.pem",
        ])
        #expect(
            wrong.text.contains(
                """
                Rejected: \(image): the \(key == "rsa" ? "RS256" : "ES256") signature does not verify with the given \
                public key
                """
            ))
        let raw = try await ActivateCLI.runInProcess(["scan", "--raw", image])
        let inspect = try await ActivateCLI.run(
            ["inspect", "-", "--public-key", "\(SourceTree.keys)/\(key).pub.pem", "--json"], stdin: raw.stdout)
        #expect(inspect.status == 0)
        let report = try decodeReport(InspectReport.self, inspect.stdout)
        #expect(report.format == "jws")
        let signature = try #require(report.configuration?.signature)
        #expect(signature.status == "verified" && signature.algorithm == (key == "rsa" ? "RS256" : "ES256"))
        #expect(signature.keyFingerprint?.count == 16 && signature.publicKey == nil && signature.expires == nil)
    }
}
