import ActivationConfiguration
import ActivationSecureStore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Inputs an attacker would craft (issue "Hostile input"), run through the real `activate`
/// process on real files. Each must end in a clean error, never a hang: exit 1 or 2, the file
/// and the reason named, no control characters on the terminal, nothing stored.
@Suite("Hostile input: no crash, no hang, no policy bypass, no injected output", .serialized)
struct HostileInputTests {
    let directory: TemporaryFolder
    init() throws { directory = try TemporaryFolder(prefix: "activate-cli") }

    /// The seconds after which a command counts as hanging and is killed. A hang guard, not a
    /// measure: alone each command takes well under a second, but the suite runs beside the
    /// other suites, PostgreSQL clusters and a browser on two cores, which can stretch a command
    /// many times over; a hang, or a blow-up that is not linear, takes longer than this anyway.
    static let hangGuard = 60

    /// Runs `activate` under `timeout`, so a regression that hangs fails the test (exit 124, which
    /// is recorded as a hang) instead of hanging the suite.
    func run(
        _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ActivateCLI.Result {
        let assignments = environment.map { "\($0.key)=\($0.value)" }
        let result = try await Tool.run(
            "/usr/bin/env",
            assignments + ["timeout", String(Self.hangGuard), ActivateCLI.executable]
                + TestPasscode.added(to: arguments),
            stdin: stdin)
        if result.status == 124 {
            Issue.record(
                "\(arguments.prefix(3)) was killed after \(Self.hangGuard) s: it hangs", sourceLocation: sourceLocation)
        }
        return result
    }

    /// No byte a terminal would act on: C0 controls other than newline, DEL, C1 controls, and
    /// bidirectional or invisible format characters.
    static func expectTerminalSafe(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let offending = text.unicodeScalars.filter { $0 != "\n" && !UntrustedText.isPlain(String($0)) }
        #expect(
            offending.isEmpty,
            "control characters reached the terminal: \(offending.map { String($0.value, radix: 16) })",
            sourceLocation: sourceLocation)
    }

    static func document(host: String = "mobile.example.com", appID: String = "com.example.app", extra: String = "")
        -> String
    {
        #"{"host":"\#(host)","appID":"\#(appID)","auth":[{"type":"basic.default"}]\#(extra)}"#
    }

    // MARK: 1. Crashes: deep nesting

    static let deepKey = Array(repeating: "level", count: 5000).joined(separator: "/")
    static let deepDocument = #"{"host":"mobile.example.com","auth/type":"basic","\#(deepKey)":"x"}"#

    @Test(
        """
        a flattened MDM key thousands of levels deep: inspect, onboard --file/--managed, generate --config, serve, \
        restore
        """
    )
    func deepNesting() async throws {
        let file = try directory.write("deep.json", Array(Self.deepDocument.utf8))
        let store = directory.file("store/configuration.json")
        for arguments in [
            ["inspect", file], ["onboard", "--file", file, "--yes", "--no-sign-in", "--store", store],
            ["onboard", "--managed", "--yes", "--no-sign-in", "--store", store],
            ["generate", "--config", file, "--output", directory.file("deep.png")],
        ] {
            let result = try await run(arguments, environment: ["ACTIVATE_MANAGED_CONFIG": file])
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("deep.json"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("nesting deeper than 32 levels"), "\(arguments): \(result.stderr)")
            Self.expectTerminalSafe(result.stderr)
        }
        #expect(!FileManager.default.fileExists(atPath: store))

        // serve refuses to start on a deep document, naming it.
        let configs = directory.file("configs")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        try Data(Self.deepDocument.utf8).write(to: URL(fileURLWithPath: "\(configs)/deep.json"))
        try Data(#"{"applications":{"com.example.app":{"domains":{"example.com":"deep.json"}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
        let serve = try await run(["serve", "--configs", configs, "--database", "none", "--port", "0"])
        #expect(serve.status == 2)
        #expect(serve.stderr.contains("deep.json") && serve.stderr.contains("nesting deeper"), "\(serve.stderr)")

        // restore of a store edited to hold the deep document.
        try FileManager.default.createDirectory(atPath: directory.file("edited"), withIntermediateDirectories: true)
        let edited = directory.file("edited/configuration.json")
        let record =
            #"""
            {"format":1,"provider":"p","origin":"o","storedAt":"2026-01-01T00:00:00Z","signature":{"status":\#
            "unsigned"},"document":\#(Self.deepDocument)}
            """#
        #expect(
            FileManager.default.createFile(
                atPath: edited, contents: Data(record.utf8), attributes: [.posixPermissions: 0o600]))
        let restore = try await run(["restore", "--store", edited])
        #expect(restore.status == 1)
        #expect(restore.stderr.contains("damaged") && restore.stderr.contains("nesting deeper"), "\(restore.stderr)")
    }

    @Test("a discovery service that answers with a deep document is refused")
    func deepDiscoveryAnswer() async throws {
        let answer = try directory.write("answer.json", Array(Self.deepDocument.utf8))
        let server = try PythonFileServer(file: answer)
        defer { server.stop() }
        let result = try await run([
            "onboard", "--email", "someone@example.com", "--app-id", "com.example.app",
            "--discovery", server.url, "--yes", "--store", directory.file("s/configuration.json"),
        ])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("nesting deeper than 32 levels"))
        #expect(!result.stderr.contains("someone"), "the e-mail address never appears")
    }

    // MARK: 2. Blow-ups

    @Test("17,000 flattened MDM keys are read in linear time")
    func manyMDMKeys() async throws {
        var keys = ["\"host\":\"mobile.example.com\"", "\"appID\":\"a\"", "\"auth/type\":\"basic\""]
        keys += (0..<17_000).map { "\"app/k\($0)\":1" }
        let file = try directory.write("wide.json", Array(("{" + keys.joined(separator: ",") + "}").utf8))
        let result = try await run(["inspect", file])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("a FIFO named like an image, a configuration or the store never hangs")
    func fifos() async throws {
        let folder = directory.file("images")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: SourceTree.path("SampleCodes/oauth-activation.png"), toPath: "\(folder)/a.png")
        #expect(mkfifo("\(folder)/b.png", 0o600) == 0)
        let scan = try await run(["scan", "--raw", folder])
        #expect(scan.status == 1, "\(scan.stderr)")
        #expect(scan.stderr.contains("b.png: is a FIFO (named pipe), not a regular file"), "\(scan.stderr)")
        #expect(scan.text.contains("mobile-demo.example.hana.ondemand.com"), "the other image is still scanned")

        let fifo = directory.file("config.json")
        #expect(mkfifo(fifo, 0o600) == 0)
        for arguments in [
            ["inspect", fifo], ["scan", fifo],
            ["onboard", "--file", fifo, "--yes", "--no-sign-in", "--store", directory.file("x/c.json")],
        ] {
            let result = try await run(arguments)
            #expect([1, 2].contains(result.status), "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("is a FIFO (named pipe), not a regular file"), "\(arguments): \(result.stderr)")
        }

        let storeFolder = directory.file("fifo-store")
        try FileManager.default.createDirectory(atPath: storeFolder, withIntermediateDirectories: true)
        #expect(mkfifo("\(storeFolder)/configuration.json", 0o600) == 0)
        let restore = try await run(["restore", "--store", "\(storeFolder)/configuration.json"])
        #expect(restore.status == 1)
        #expect(restore.stderr.contains("not a regular file"), "\(restore.stderr)")
    }

    @Test("a progressive JPEG with thousands of scans is refused quickly")
    func jpegScanFlood() async throws {
        let jpeg = try Self.progressiveJPEG(in: directory)
        let flooded = try directory.write("flood.jpg", Self.repeatingSmallestScan(jpeg, times: 3000))
        let result = try await run(["scan", flooded])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("flood.jpg: JPEG has 30"), "\(result.stderr)")
        // The unmodified progressive photo still decodes.
        let plain = try await run(["scan", directory.file("progressive.jpg")])
        #expect(plain.status == 4, "decoded, no code: \(plain.stderr)")
    }

    /// A 1600×1200 progressive JPEG made by ImageMagick (as a phone or editor would make one).
    static func progressiveJPEG(in directory: TemporaryFolder) throws -> [UInt8] {
        let path = directory.file("progressive.jpg")
        let made = try Tool.runBlocking(
            "/usr/bin/env",
            ["convert", "-size", "1600x1200", "plasma:fractal", "-seed", "7", "-interlace", "Plane", path],
            stdin: nil, in: nil)
        guard made.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: made.stderr])
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The JPEG with its smallest scan repeated `times` times before the end-of-image marker.
    static func repeatingSmallestScan(_ jpeg: [UInt8], times: Int) -> [UInt8] {
        var scans: [Range<Int>] = []
        var index = 2
        while index + 3 < jpeg.count, jpeg[index] == 0xFF, jpeg[index + 1] != 0xD9 {
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            var end = index + 2 + length
            if jpeg[index + 1] == 0xDA {
                while end + 1 < jpeg.count,
                    !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1]))
                { end += 1 }
                scans.append(index..<end)
            }
            index = end
        }
        guard let smallest = scans.min(by: { $0.count < $1.count }), let last = scans.last else { return jpeg }
        let scan = Array(jpeg[smallest])
        return Array(jpeg[..<last.upperBound]) + Array([[UInt8]](repeating: scan, count: times).joined()) + [
            0xFF, 0xD9,
        ]
    }

    /// A binary plist of `count` objects, each an array holding the previous one twice: 159
    /// bytes for 30 objects, 2^29 values if references were expanded naively.
    static func exponentialBinaryPlist(count: Int = 30) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets = [UInt8(bytes.count)]
        bytes += [0x10, 0x01]  // object 0: the integer 1
        for index in 1..<count {
            offsets.append(UInt8(bytes.count))
            bytes += [0xA2, UInt8(index - 1), UInt8(index - 1)]
        }
        let tableOffset = bytes.count
        bytes += offsets
        func bigEndian(_ value: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - $0))) } }
        bytes += [0, 0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(count) + bigEndian(count - 1) + bigEndian(tableOffset)
        return bytes
    }

    @Test("a binary plist whose objects share references is refused at once, not expanded")
    func exponentialPlist() async throws {
        let file = try directory.write("ConfigurationProvider.plist", Self.exponentialBinaryPlist())
        for arguments in [
            ["inspect", file],
            ["onboard", "--file", file, "--yes", "--no-sign-in", "--store", directory.file("s/c.json")],
        ] {
            let result = try await run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("ConfigurationProvider.plist") && result.stderr.contains("100000"),
                "\(result.stderr)")
        }
    }

    // MARK: 7. Ambiguous documents

    @Test("an XML property list with a duplicate key is refused, naming the key path")
    func duplicatePlistKey() async throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>host</key><string>mobile.example.com</string>
            <key>appID</key><string>a</string>
            <key>auth</key><array><dict><key>type</key><string>basic</string></dict></array>
            <key>host</key><string>evil.example.com</string>
            </dict></plist>
            """
        let file = try directory.write("dup.plist", Array(plist.utf8))
        let result = try await run(["inspect", file])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr.contains("dup.plist") && result.stderr.contains("\"host\" appears twice"), "\(result.stderr)")
        #expect(!result.text.contains("evil"))
    }

    // MARK: 3. Host allowlist bypass

    static let bypasses: [(name: String, document: String)] = [
        ("percent-encoded / in host", document(host: "evil.example%2F.hana.ondemand.com")),
        (
            "percent-encoded # in serviceURL",
            #"{"serviceURL":"https://evil.example%23.hana.ondemand.com","auth":[{"type":"basic"}]}"#
        ),
        (
            "percent-encoded ? in endpoint",
            #"""
            {"host":"a.hana.ondemand.com","auth":[{"type":"oauth2","config":{"oauth2.authorizationEndpoint":"https://\#
            evil.example%3F.hana.ondemand.com/a","oauth2.tokenEndpoint":"https://a.hana.ondemand.com/t",\#
            "oauth2.clients":[{"clientID":"c","redirectURL":"https://a.hana.ondemand.com"}]}}]}
            """#
        ),
        ("decimal IP", document(host: "2130706433")),
        ("short IP", #"{"serviceURL":"https://127.1","auth":[{"type":"basic"}]}"#),
        ("hex IP", #"{"serviceURL":"https://0x7f.0.0.1/x","auth":[{"type":"basic"}]}"#),
        ("port 0", #"{"serviceURL":"https://a.hana.ondemand.com:0","auth":[{"type":"basic"}]}"#),
        ("port 99999", #"{"serviceURL":"https://a.hana.ondemand.com:99999","auth":[{"type":"basic"}]}"#),
        ("backslash", #"{"serviceURL":"https://evil.com\\\\@a.hana.ondemand.com","auth":[{"type":"basic"}]}"#),
        (
            "double-encoded MDK link",
            """
            com.example.app://?AppId=a&ClientId=c&ServerUrl=https://evil.example%252F.hana.ondemand.com&\
            AuthorizationEndpointUrl=https://a.hana.ondemand.com/a&RedirectUrl=https://a.hana.ondemand.com&TokenUrl=\
            https://a.hana.ondemand.com/t
            """
        ),
    ]

    @Test("spellings that make the allow-list see another host are refused", arguments: bypasses)
    func allowListBypass(_ testCase: (name: String, document: String)) async throws {
        let file = try directory.write("bypass.txt", Array(testCase.document.utf8))
        let policy = ["--allow-host", "hana.ondemand.com"]
        let inspect = try await run(["inspect", file] + policy)
        #expect(inspect.status == 2, "\(testCase.name): \(inspect.text) \(inspect.stderr)")
        #expect(inspect.stderr.hasPrefix("activate: \(file): "), "\(testCase.name): \(inspect.stderr)")
        Self.expectTerminalSafe(inspect.stderr)

        let store = directory.file("store/configuration.json")
        let onboard = try await run(["onboard", "--file", file, "--yes", "--no-sign-in", "--store", store] + policy)
        #expect(onboard.status == 2, "\(testCase.name): \(onboard.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store), "\(testCase.name): nothing stored")
    }

    @Test(
        "the discovery client judges its service URL in canonical form",
        arguments: [
            ("http://2130706433:8080", "non-standard form"), ("http://127.1:8080", "non-standard form"),
            ("http://example.com:8080", "not https"),
            ("https://user:secret@discovery.example.com", "without user name"),
            ("https://discovery.example.com:0", "port"), ("https://discovery.example%2Ecom", "percent-encoded"),
        ])
    func discoveryServiceURL(url: String, reason: String) async throws {
        let result = try await run([
            "onboard", "--email", "someone@example.com", "--app-id", "a", "--discovery", url,
            "--yes", "--store", directory.file("d/configuration.json"),
        ])
        #expect(result.status == 2, "\(url): \(result.stderr)")
        #expect(result.stderr.contains(reason), "\(url): \(result.stderr)")
        #expect(!result.stderr.contains("secret") && !result.stderr.contains("someone"), "\(result.stderr)")
    }

    @Test("an --allow-host entry that is no domain is a usage error, not an entry that silently never matches")
    func allowHostValidation() async throws {
        for entry in ["*.hana.ondemand.com", "hana.ondemand.com/x", "hana%2Eondemand.com", "a b"] {
            let result = try await run([
                "inspect", SourceTree.path("SampleCodes/oauth-configuration.json"), "--allow-host", entry,
            ])
            #expect(result.status == 64, "\(entry): \(result.stderr)")
            #expect(result.stderr.contains("--allow-host"), "\(result.stderr)")
        }
    }

    @Test("the host shown and stored is the canonical host that will be connected to")
    func canonicalHostShown() async throws {
        let file = try directory.write(
            "idn.json",
            Array(#"{"serviceURL":"https://Bücher.Hana.OnDemand.com./x/","appID":"a","auth":[{"type":"basic"}]}"#.utf8))
        let inspect = try await run(["inspect", file, "--allow-host", "hana.ondemand.com"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.text.contains("You will be connected to: xn--bcher-kva.hana.ondemand.com\n"))
        #expect(inspect.text.contains("Server:     https://xn--bcher-kva.hana.ondemand.com/x\n"))
        let store = directory.file("s/configuration.json")
        let onboard = try await run(["onboard", "--file", file, "--yes", "--no-sign-in", "--store", store])
        #expect(onboard.status == 0, "\(onboard.stderr)")
        let restore = try await run(["restore", "--store", store, "--allow-host", "hana.ondemand.com"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.text.contains("You will be connected to: xn--bcher-kva.hana.ondemand.com"))
    }

    // MARK: 4. Terminal injection

    static let forged = "\u{1B}[2J\u{7}\r\n  Scan succeeded. You will be connected to: evil.example.com\u{202E}"

    @Test(
        """
        values from a code are printed escaped: app id, client id, auth type, MDK parameters, rejected hosts, file names
        """
    )
    func terminalInjection() async throws {
        let escapedForgery = UntrustedText.escaped(Self.forged)
        let jsonForgery = String(decoding: try JSONEncoder().encode(Self.forged), as: UTF8.self).dropFirst().dropLast()
        let documents = [
            Self.document(appID: String(jsonForgery)),
            #"{"host":"mobile.example.com","appID":"a","auth":[{"type":"\#(jsonForgery)"},{"type":"basic"}]}"#,
            #"""
            {"host":"mobile.example.com","appID":"a","auth":[{"type":"oauth2","config":\#
            {"oauth2.authorizationEndpoint":"https://mobile.example.com/a","oauth2.tokenEndpoint":"https://\#
            mobile.example.com/t","oauth2.clients":[{"clientID":"\#(jsonForgery)","redirectURL":"https://\#
            mobile.example.com"}]}}]}
            """#,
            """
            com.example.app://?AppId=a%1B%5B2J%0D%0A&ClientId=c%1B&ServerUrl=https://mobile.example.com&\
            AuthorizationEndpointUrl=https://mobile.example.com/a&RedirectUrl=https://mobile.example.com&TokenUrl=\
            https://mobile.example.com/t
            """,
            Self.document(host: "evil\(jsonForgery).com"),
        ]
        for (index, document) in documents.enumerated() {
            let name = "code\u{1B}]0;title\u{7}-\(index).json"
            let file = try directory.write(name, Array(document.utf8))
            let inspect = try await run(["inspect", file])
            Self.expectTerminalSafe(inspect.text)
            Self.expectTerminalSafe(inspect.stderr)
            #expect(!Self.hasForgedLine(inspect.text), "no forged second line: \(inspect.text)")
            if document.contains("evil") && index < 3 {
                #expect(
                    inspect.text.contains(escapedForgery) || inspect.stderr.contains(escapedForgery),
                    "shown escaped: \(inspect.text)\(inspect.stderr)")
            }
            let json = try await run(["inspect", "--json", file])
            Self.expectTerminalSafe(json.text)

            // The same as a QR code, scanned.
            let png = directory.file("code-\(index).png")
            let generate = try await run(["generate", "--input", file, "--output", png])
            #expect(generate.status == 0, "\(generate.stderr)")
            let scan = try await run(["scan", png])
            Self.expectTerminalSafe(scan.text)
            Self.expectTerminalSafe(scan.stderr)
            #expect(!Self.hasForgedLine(scan.text), "\(scan.text)")
            let scanJSON = try await run(["scan", "--json", png])
            Self.expectTerminalSafe(scanJSON.text)
            #expect((try? JSONSerialization.jsonObject(with: Data(scanJSON.stdout))) != nil, "valid JSON")
        }
    }

    /// Whether a line of output starts with the forged confirmation (shown escaped inside another
    /// line, it is harmless).
    static func hasForgedLine(_ output: String) -> Bool {
        output.split(separator: "\n").contains {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("Scan succeeded. You will be connected to: evil")
        }
    }

    @Test("a plain-text code that imitates the confirmation cannot add a line")
    func forgedConfirmationText() async throws {
        let png = directory.file("text.png")
        let generate = try await run(["generate", "hello" + Self.forged, "--output", png])
        #expect(generate.status == 0, "\(generate.stderr)")
        let scan = try await run(["scan", png])
        #expect(scan.status == 0)
        #expect(scan.text.split(separator: "\n").count == 1, "\(scan.text)")
        Self.expectTerminalSafe(scan.text)
        let raw = try await run(["scan", "--raw", png])
        #expect(raw.text == "hello" + Self.forged + "\n", "--raw keeps the exact payload")
    }

    @Test("a JWS key id with control characters is shown escaped")
    func jwsKeyID() async throws {
        let key = try SigningKey(pem: String(contentsOfFile: "\(SourceTree.keys)/ec256.pem", encoding: .utf8))
        let jws = try CompactJWS.sign(Array(Self.document().utf8), with: key, keyID: "kid" + Self.forged)
        let file = try directory.write("signed.txt", Array(jws.utf8))
        let inspect = try await run(["inspect", file, "--public-key", "\(SourceTree.keys)/ec256.pub.pem"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.text.contains("Signature:  verified (ES256, key kid\\u{1B}[2J"), "\(inspect.text)")
        Self.expectTerminalSafe(inspect.text)
    }

    // MARK: 6. Lost or wrong results

    @Test(
        "a write error on stdout is exit 1, for every command that prints",
        arguments: [
            "scan --raw SampleCodes/oauth-activation.png", "scan --json SampleCodes/oauth-activation.png",
            "inspect SampleCodes/oauth-configuration.json", "inspect --json SampleCodes/oauth-configuration.json",
            "generate HELLO --format text", "--version",
        ])
    func writeErrors(command: String) async throws {
        let result = try await Tool.run(
            "/bin/sh", ["-c", "\"$0\" \(command) > /dev/full", ActivateCLI.executable], in: SourceTree.root)
        #expect(result.status == 1, "\(command): \(result.status) \(result.stderr)")
        #expect(
            result.stderr.contains("standard output") && result.stderr.contains("no space left on device"),
            "\(result.stderr)")
    }

    @Test("two onboards at once without --force: one wins, the other is refused, nothing is lost")
    func concurrentOnboards() async throws {
        for round in 0..<6 {
            let store = directory.file("race-\(round)/configuration.json")
            let first = try directory.write("first.json", Array(Self.document(host: "first.example.com").utf8))
            let second = try directory.write("second.json", Array(Self.document(host: "second.example.com").utf8))
            async let a = run(["onboard", "--file", first, "--yes", "--no-sign-in", "--store", store])
            async let b = run(["onboard", "--file", second, "--yes", "--no-sign-in", "--store", store])
            let results = try await [a, b]
            let winners = results.filter { $0.status == 0 }
            #expect(winners.count == 1, "round \(round): \(results.map { "\($0.status) \($0.stderr)" })")
            let loser = results.first { $0.status != 0 }
            #expect(loser?.status == 1)
            #expect(loser?.stderr.contains("already") == true, "\(loser?.stderr ?? "")")
            let restore = try await run(["restore", "--store", store])
            let winnerHost =
                winners.first?.text.contains("first.example.com") == true ? "first.example.com" : "second.example.com"
            #expect(
                restore.text.contains("You will be connected to: \(winnerHost)"),
                "the stored one is the winner's: \(restore.text)")
        }
    }

    @Test("generate --force never replaces a FIFO or a link; only a regular file")
    func generateReplacesOnlyRegularFiles() async throws {
        let fifo = directory.file("out.png")
        #expect(mkfifo(fifo, 0o600) == 0)
        let result = try await run(["generate", "HELLO", "--output", fifo, "--force"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("is a FIFO (named pipe); only a regular file is ever replaced"), "\(result.stderr)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still there")

        let target = try directory.write("target.txt", Array("keep".utf8))
        let link = directory.file("link.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let linked = try await run(["generate", "HELLO", "--output", link, "--force"])
        #expect(linked.status == 1)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
    }

    /// Onboards `document` into a fresh store and returns the store's path.
    func onboarded(_ document: String, extra: [String] = []) async throws -> String {
        let folder = directory.file("store-\(UUID().uuidString)")
        let file = try directory.write("doc-\(UUID().uuidString).txt", Array(document.utf8))
        let store = "\(folder)/store.age"
        let result = try await run(["onboard", "--file", file, "--yes", "--no-sign-in", "--store", store] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return store
    }

    /// Edits the stored JSON as its owner can: decrypted with the passcode, changed, and encrypted
    /// again under the same header.
    func edit(_ store: String, _ change: (inout String) -> Void) throws {
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: store)))
        let header = try AgeFormat.header(of: file, source: store)
        let key = try #require(try AgeFormat.unwrapFileKey(header, passphrase: Array(TestPasscode.text.utf8)))
        var text = String(
            decoding: try AgeFormat.decryptPayload(of: file, header: header, fileKey: key, source: store), as: UTF8.self
        )
        change(&text)
        try FileIO.write(
            header.bytes + (try AgeFormat.encryptPayload(Array(text.utf8), fileKey: key)), to: store, replace: true,
            mode: 0o600)
    }

    @Test("restore checks a hand-edited store again: policy, signature and privacy")
    func restoreRechecks() async throws {
        // An http server URL written into the store.
        let plain = try await onboarded(Self.document())
        try edit(plain) { $0 = $0.replacingOccurrences(of: "\"protocol\": \"https\"", with: "\"protocol\": \"http\"") }
        let http = try await run(["restore", "--store", plain])
        #expect(http.status == 2, "\(http.stderr)")
        #expect(http.stderr.contains("not an https URL"), "\(http.stderr)")

        // A forged "verified" status on an unsigned configuration.
        let forged = try await onboarded(Self.document())
        try edit(forged) {
            $0 = $0.replacingOccurrences(
                of: "\"status\": \"unsigned\"",
                with: "\"status\": \"verified\", \"algorithm\": \"ES256\", \"keyFingerprint\": \"0011223344556677\"")
        }
        let claimed = try await run(["restore", "--store", forged])
        #expect(claimed.status == 1, "\(claimed.stderr)")
        #expect(claimed.stderr.contains("verified signature without the signed code"), "\(claimed.stderr)")

        // A signed configuration whose stored host was changed.
        let key = try SigningKey(pem: String(contentsOfFile: "\(SourceTree.keys)/ec256.pem", encoding: .utf8))
        let jws = try CompactJWS.sign(Array(Self.document().utf8), with: key)
        let publicKey = "\(SourceTree.keys)/ec256.pub.pem"
        let signed = try await onboarded(jws, extra: ["--public-key", publicKey])
        let intact = try await run(["restore", "--store", signed, "--public-key", publicKey, "--signature", "required"])
        #expect(intact.status == 0, "\(intact.stderr)")
        #expect(intact.text.contains("Signature:  verified (ES256"))
        let intactJSON = try await run(["restore", "--json", "--store", signed, "--public-key", publicKey])
        #expect(intactJSON.status == 0)
        #expect(
            !intactJSON.text.contains(jws) && !intactJSON.text.contains("signedCode"),
            "the signed code (which may hold a passcode) is never printed")
        let intactReport = try decodeReport(RestoreReport.self, intactJSON.stdout)
        #expect(intactReport.signature.status == "verified" && intactReport.signature.algorithm == "ES256")
        let recordedKey = try #require(intactReport.signature.publicKey.flatMap { Data(base64Encoded: $0) })
        #expect(
            try VerificationKey(derRepresentation: Array(recordedKey))
                == VerificationKey(pem: String(contentsOfFile: publicKey, encoding: .utf8)))
        let otherKey = try await run([
            "restore", "--store", signed, "--public-key", "\(SourceTree.keys)/other-ec256.pub.pem",
        ])
        #expect(otherKey.status == 2, "a key the policy does not trust: \(otherKey.stderr)")
        try edit(signed) {
            $0 = $0.replacingOccurrences(of: "\"host\": \"mobile.example.com\"", with: "\"host\": \"evil.example.com\"")
        }
        let moved = try await run(["restore", "--store", signed])
        #expect(moved.status == 1, "\(moved.stderr)")
        #expect(moved.stderr.contains("the stored document is not the one that was signed"), "\(moved.stderr)")

        // An unsigned store under a policy that requires signatures.
        let required = try await run(["restore", "--store", plain, "--signature", "required"])
        #expect(required.status == 2)

        // A store folder or file other users can write, and a store that is a link.
        let open = try await onboarded(Self.document())
        let folder = (open as NSString).deletingLastPathComponent
        chmod(folder, 0o777)
        let worldWritable = try await run(["restore", "--store", open])
        #expect(worldWritable.status == 1)
        #expect(worldWritable.stderr.contains("is writable by other users (mode 777)"), "\(worldWritable.stderr)")
        let onboardThere = try await run([
            "onboard", "--file", try directory.write("d.json", Array(Self.document().utf8)), "--yes", "--no-sign-in",
            "--force", "--store", open,
        ])
        #expect(onboardThere.status == 1, "\(onboardThere.stderr)")
        chmod(folder, 0o700)
        chmod(open, 0o666)
        let fileWritable = try await run(["restore", "--store", open])
        #expect(fileWritable.status == 1)
        #expect(fileWritable.stderr.contains("mode 666"), "\(fileWritable.stderr)")
        let linked = folder + "/link.age"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: open)
        let link = try await run(["restore", "--store", linked])
        #expect(link.status == 1)
        #expect(link.stderr.contains("symbolic link"), "\(link.stderr)")
    }
}

/// A real HTTP server on loopback (Python's http.server) that answers every GET with one file:
/// a discovery service under an attacker's control.
final class PythonFileServer {
    let process = Process()
    let url: String

    init(file: String) throws {
        let script = """
            import http.server, sys
            body = open(sys.argv[1], 'rb').read()
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header('Content-Type', 'application/json')
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args): pass
            server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file]
        process.standardOutput = output
        try process.run()
        guard let port = Int(output.readFirstLine().trimmingCharacters(in: .whitespaces)) else {
            process.terminate()
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the test server did not start"])
        }
        url = "http://127.0.0.1:\(port)"
    }

    /// SIGKILL: a child may inherit SIGTERM as ignored from the test runner.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
