import ActivationConfiguration
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `activate serve` running as its own process on a loopback port, stopped with SIGTERM.
final class ServeProcess {
    let process = Process()
    let url: String
    private let output = Pipe()
    private let errors = Pipe()
    /// The log, read as it is written: a server whose stderr pipe filled up would block on its
    /// next log line and answer nothing more.
    private let log = LogBuffer()
    private let reading = DispatchGroup()

    final class LogBuffer: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    /// Starts `activate serve` on `configs` (nil: no folder) with `arguments`; `launcher` runs it
    /// through another program first (`setpriv …` to serve as another user).
    init(configs: String?, arguments: [String] = [], launcher: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: launcher.first ?? ActivateCLI.executable)
        // The folder as files unless the test names a database (the default would be a file in the working folder).
        let database = arguments.contains("--database") ? [] : ["--database", "none"]
        let folder = configs.map { ["--configs", $0] } ?? []
        process.arguments =
            launcher.dropFirst() + (launcher.isEmpty ? [] : [ActivateCLI.executable])
            + ["serve", "--port", "0"] + folder + database + arguments
        process.standardError = errors
        let (errors, log) = (errors, log)
        DispatchQueue.global().async(group: reading) {
            while case let chunk = errors.fileHandleForReading.availableData, !chunk.isEmpty { log.append(chunk) }
        }
        // The first stdout line is "listening on http://127.0.0.1:PORT".
        do {
            url = try process.startListening(output: output, name: "serve")
        } catch {
            process.waitUntilExit()
            reading.wait()
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(log.text)"])
        }
    }

    /// Stops the server with SIGTERM and returns its exit status and log.
    func stop() -> (status: Int32, log: String) {
        process.terminate()
        process.waitUntilExit()
        reading.wait()
        return (process.terminationStatus, log.text)
    }
}

@Suite("Onboarding end to end: serve, onboard, restore, reset")
struct OnboardingEndToEndTests {
    let directory: TemporaryFolder
    let configs: String
    let store: String
    static let appID = "com.example.fieldservice"

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        configs = directory.file("configs")
        store = directory.file("state/configuration.json")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        for name in ["oauth-authorization-code.json", "android-basic.json", "saml.json"] {
            try FileManager.default.copyItem(atPath: "\(SourceTree.documents)/\(name)", toPath: "\(configs)/\(name)")
        }
        try Data(
            """
            {"applications": {"\(Self.appID)": {
              "domains": {"example.com": "oauth-authorization-code.json", "saml.example.org": "saml.json"},
              "codes": {"12345678": {"document": "android-basic.json", "expires": "2099-01-01T00:00:00Z"},
                        "99999999": {"document": "android-basic.json", "expires": "2021-06-01T00:00:00Z"}}}}}
            """.utf8
        ).write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
    }

    func onboard(_ arguments: [String], server: ServeProcess) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run(
            ["onboard"] + arguments + [
                "--app-id", Self.appID, "--discovery", server.url, "--yes", "--no-sign-in", "--store", store,
            ])
    }

    @Test("the whole lifecycle against a real discovery service")
    func lifecycle() async throws {
        let server = try ServeProcess(configs: configs)

        // Onboard by e-mail; restore gives the same document the service holds.
        let byEmail = try await onboard(["--email", "someone@example.com"], server: server)
        #expect(byEmail.status == 0, "\(byEmail.stderr)")
        #expect(byEmail.text.contains("You will be connected to: mobile-demo.example.hana.ondemand.com"))
        let restored = try await ActivateCLI.run(["restore", "--json", "--store", store])
        #expect(restored.status == 0)
        let stored = try decodeReport(RestoreReport.self, restored.stdout)
        let inspected = try decodeReport(
            InspectReport.self,
            try await ActivateCLI.run(["inspect", "--json", "\(configs)/oauth-authorization-code.json"]).stdout)
        #expect(stored.document == inspected.document)
        #expect(stored.configuration == inspected.configuration)
        #expect(stored.format == 1 && stored.provider == "com.sap.configuration.provider.discoveryservice")
        #expect(stored.signature == SignatureRecord(.unsigned))
        let mode = try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A second onboarding does not silently replace the first.
        let again = try await onboard(["--code", "12345678"], server: server)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already onboarded (\(store))"), "\(again.stderr)")

        // By onboarding code, replacing the stored configuration.
        // With --json, the summary goes to stderr and the record that restore --json prints to stdout.
        let byCode = try await onboard(["--code", "12345678", "--force", "--json"], server: server)
        #expect(byCode.status == 0, "\(byCode.stderr)")
        #expect(byCode.stderr.contains("Sign-in:    user name and password (basic)"))
        let onboarded = try decodeReport(RestoreReport.self, byCode.stdout)
        #expect(onboarded.configuration.auth.map(\.type) == ["basic.default"])
        #expect(
            onboarded
                == (try decodeReport(
                    RestoreReport.self, try await ActivateCLI.run(["restore", "--json", "--store", store]).stdout)))
        #expect(
            try await ActivateCLI.run(["restore", "--store", store]).text.contains("user name and password (basic)"))

        // An expired code and an unknown domain: clear errors, the stored configuration untouched.
        let expired = try await onboard(["--code", "99999999", "--force"], server: server)
        #expect(expired.status == 2)
        #expect(expired.stderr.contains("this onboarding code has expired; ask your administrator for a new one"))
        #expect(!expired.stderr.contains("99999999"))
        let unknown = try await onboard(["--email", "someone@unknown.example.net", "--force"], server: server)
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains(
                "the discovery service has no configuration for the e-mail domain unknown.example.net"))
        #expect(
            try await ActivateCLI.run(["restore", "--store", store]).text.contains("user name and password (basic)"))

        // Reset, then restore has nothing; reset again is fine.
        let reset = try await ActivateCLI.run(["reset", "--store", store])
        #expect(reset.status == 0)
        #expect(!FileManager.default.fileExists(atPath: store))
        let nothing = try await ActivateCLI.run(["restore", "--store", store])
        #expect(nothing.status == 3)
        #expect(nothing.stderr.contains("nothing is onboarded"))
        #expect(try await ActivateCLI.run(["reset", "--store", store]).status == 0)

        let (status, log) = server.stop()
        #expect(status == 0, "serve stops cleanly on SIGTERM")
        #expect(log.contains("GET lookup 200"))
        #expect(!log.contains("someone@") && !log.contains("12345678"), "the log carries no e-mail addresses or codes")
    }

    /// Runs `activate` on a pseudo-terminal (util-linux `script`), typing `keys`, as a person would.
    func onTerminal(_ arguments: [String], typing keys: String, in folder: String) async throws -> ActivateCLI.Result {
        let command = ([ActivateCLI.executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
        // A question the typed keys do not answer would wait for ever: the hang guard ends it.
        return try await Tool.run(
            "/usr/bin/timeout", ["60", "/usr/bin/script", "-qec", command, "/dev/null"], stdin: Array(keys.utf8),
            in: folder)
    }

    @Test("on a terminal: the default queue prompts once for an e-mail or code, and the summary is confirmed")
    func interactive() async throws {
        let server = try ServeProcess(configs: configs)
        defer { _ = server.stop() }
        let folder = directory.file("empty")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // The configuration's server is not there to check the credentials: they are stored unchecked.
        let arguments = [
            "onboard", "--app-id", Self.appID, "--discovery", server.url, "--store", store, "--work-factor", "4",
            "--no-sign-in",
        ]

        let declined = try await onTerminal(arguments, typing: "someone@example.com\nn\n", in: folder)
        #expect(declined.status == 5)
        #expect(declined.text.contains("E-mail address or onboarding code: "))
        #expect(declined.text.contains("You will be connected to: mobile-demo.example.hana.ondemand.com"))
        #expect(declined.text.contains("store this configuration? [y/N]"))
        #expect(!FileManager.default.fileExists(atPath: store))

        // Then the credentials the configuration signs in with, and the store's passcode twice, without echo.
        let passcode = TestPasscode.text
        let accepted = try await onTerminal(
            arguments, typing: "12345678\ny\nalice\npa55-word\n\(passcode)\n\(passcode)\n", in: folder)
        #expect(accepted.status == 0, "\(accepted.text)")
        #expect(accepted.text.contains("Passcode policy: at least 8 characters."), "\(accepted.text)")
        #expect(accepted.text.contains("User name for mobile-demo.example.hana.ondemand.com"))
        let restored = try await ActivateCLI.run(["restore", "--store", store, "--show-secrets"])
        #expect(restored.text.contains("user name and password (basic)"))
        #expect(
            restored.text.contains("User:       alice") && restored.text.contains("Password:   pa55-word"),
            "\(restored.text)")
    }

    @Test("the provider queue follows --from; every failure is listed")
    func queueOrder() async throws {
        let image = directory.file("code.png")
        #expect(
            try await ActivateCLI.run(["generate", "--config", "\(SourceTree.documents)/saml.json", "-o", image]).status
                == 0)
        let basic = "\(SourceTree.documents)/android-basic.json"
        let result = try await ActivateCLI.run([
            "onboard", "--from", "file:\(directory.file("missing.json"))", "--from", "json:https://example.com",
            "--from", "scan:\(image)", "--from", "file:\(basic)", "--yes", "--store", store,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("Sign-in:    SAML 2.0"), "the scanned code came before the second file")
        // The other order: the file wins.
        let reversed = try await ActivateCLI.run([
            "onboard", "--from", "file:\(basic)", "--from", "scan:\(image)", "--yes", "--no-sign-in", "--force",
            "--store", store,
        ])
        #expect(reversed.status == 0, "\(reversed.stderr)")
        #expect(reversed.text.contains("user name and password (basic)"))
        let failing = try await ActivateCLI.run([
            "onboard", "--from", "json:{}", "--from", "managed", "--yes", "--no-sign-in", "--store",
            directory.file("other.json"),
        ])
        #expect(failing.status == 2)
        #expect(failing.stderr.contains("com.sap.configuration.provider.json: JSON string: host: missing"))
        #expect(
            failing.stderr.contains(
                "com.sap.configuration.provider.managed: managed configuration: ACTIVATE_MANAGED_CONFIG is not set"))
    }

    @Test(
        "shorthand options of one kind keep their order; of several kinds they are a usage error that points to --from")
    func shorthandOptions() async throws {
        let basic = "\(SourceTree.documents)/android-basic.json"
        let repeated = try await ActivateCLI.run([
            "onboard", "--file", directory.file("missing.json"), "--file", basic, "--yes", "--no-sign-in", "--store",
            store,
        ])
        #expect(repeated.status == 0, "\(repeated.stderr)")
        let mixed = try await ActivateCLI.run([
            "onboard", "--file", basic, "--scan", "code.png", "--yes", "--no-sign-in", "--store",
            directory.file("m.json"),
        ])
        #expect(mixed.status == 64)
        #expect(
            mixed.stderr.contains(
                """
                --file and --scan were both given, and the order of different options is not kept: give the queue with \
                --from
                """
            ))
        let withFrom = try await ActivateCLI.run([
            "onboard", "--from", "file:\(basic)", "--managed", "--yes", "--no-sign-in", "--store",
            directory.file("m.json"),
        ])
        #expect(withFrom.status == 64)
        #expect(withFrom.stderr.contains("--managed cannot be combined with --from"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("m.json")))
    }

    @Test(
        "--from values are parsed, and a bad one is a usage error that says what is expected",
        arguments: [
            ("photo.png", "--from takes KIND:VALUE with KIND one of file, json, managed, email, code, scan"),
            ("file:", "--from file: the value after the colon is empty."),
            ("scan", "--from scan needs a value: --from scan:VALUE."),
            ("managed:x", "--from managed takes no value"),
            (
                "email:someone@example.com",
                "--email and --code (and --from email:, code:) need --discovery URL and --app-id ID."
            ),
        ])
    func fromErrors(value: String, message: String) async throws {
        let result = try await ActivateCLI.run(["onboard", "--from", value, "--yes", "--no-sign-in", "--store", store])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("serve refuses to start on an invalid document, naming it")
    func serveRefuses() async throws {
        try Data(#"{"host":"https://bad.example.com"}"#.utf8).write(
            to: URL(fileURLWithPath: "\(configs)/android-basic.json"))
        let result = try await ActivateCLI.run(["serve", "--configs", configs, "--database", "none", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("not starting: \(configs)/android-basic.json: host:"))
        #expect(try await ActivateCLI.run(["serve", "--configs", directory.file("nowhere")]).status == 1)
    }

    @Test("a damaged store: restore says so and suggests reset; reset clears it")
    func damagedStore() async throws {
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
        // The stored form, its document damaged: reset knows the file by its form.
        let record =
            #"""
            {"format":1,"provider":"file","origin":"x.json","storedAt":"2026-01-01T00:00:00Z","signature":{"status":\#
            "unsigned"},"document":{"host":7}}
            """#
        try Data(record.utf8).write(to: URL(fileURLWithPath: store))
        let result = try await ActivateCLI.run(["restore", "--store", store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the stored configuration is damaged"))
        #expect(result.stderr.contains("run `activate reset` to remove it"))
        #expect(try await ActivateCLI.run(["reset", "--store", store]).status == 0)
        #expect(try await ActivateCLI.run(["restore", "--store", store]).status == 3)
    }

    @Test("killing onboard at any moment leaves the previous or the new configuration, never a damaged one")
    func crashDuringWrite() async throws {
        let small = "\(SourceTree.documents)/android-basic.json"
        // A large document widens the write window.
        var document = try String(contentsOfFile: "\(SourceTree.documents)/saml.json", encoding: .utf8)
        document = document.replacingOccurrences(
            of: "\"__comment\":\"SAML with defaults\"",
            with: "\"__comment\":\"\(String(repeating: "x", count: 200_000))\"")
        let big = try directory.write("big.json", Array(document.utf8))
        /// Onboards the small document, starts onboarding the big one, kills it after `delay`, and
        /// tells which configuration restore then finds.
        func killed(after delay: Duration) async throws -> String {
            #expect(
                try await ActivateCLI.run([
                    "onboard", "--file", small, "--yes", "--no-sign-in", "--force", "--store", store,
                ]).status == 0)
            let process = try ActivateCLI.launch([
                "onboard", "--file", big, "--yes", "--no-sign-in", "--force", "--store", store,
            ])
            try await Task.sleep(for: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let restore = try await ActivateCLI.run(["restore", "--store", store])
            #expect(restore.status == 0, "killed after \(delay): \(restore.stderr)")
            return restore.text.contains("SAML 2.0") ? "new" : restore.text.contains("(basic)") ? "old" : "other"
        }
        let outcomes = try await CommitPointSearch.outcomes(steps: 24, killed: killed(after:))
        #expect(outcomes["other"] == nil, "\(outcomes)")
        #expect((outcomes["old"] ?? 0) > 0 && (outcomes["new"] ?? 0) > 0, "\(outcomes)")
    }
}
