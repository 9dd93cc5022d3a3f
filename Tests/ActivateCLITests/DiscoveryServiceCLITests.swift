import Foundation
import Testing

/// `activate serve --database …` with `activate discovery …` and `activate onboard --code`, each its
/// own process, as an administrator and a user run them; and the console in a real headless Chromium.
@Suite("Discovery service end to end: codes issued, used once, revoked; the console in Chromium", .serialized)
struct DiscoveryServiceCLITests {
    let directory: TemporaryDirectory
    let configs: String
    let tokens: String
    static let appID = "com.example.fieldservice"
    static let token = "cli-test-token-0123456789abcdef"

    init() throws {
        directory = try TemporaryDirectory()
        configs = directory.file("configs")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        for name in ["oauth-authorization-code.json", "android-basic.json"] {
            try FileManager.default.copyItem(atPath: "\(SourceTree.documents)/\(name)", toPath: "\(configs)/\(name)")
        }
        try Data(#"{"applications": {"\#(Self.appID)": {"domains": {"example.com": "oauth-authorization-code.json"}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
        tokens = directory.file("admin-tokens")
        #expect(FileManager.default.createFile(atPath: tokens, contents: Data("# console and CLI\n\(Self.token)\n".utf8),
                                               attributes: [.posixPermissions: 0o600]))
    }

    func serve(_ extra: [String] = []) throws -> ServeProcess {
        try ServeProcess(configs: configs, arguments: ["--database", "sqlite:\(directory.file("discovery.sqlite"))",
                                                       "--secret-file", directory.file("secret"), "--admin-token-file", tokens] + extra)
    }

    func discovery(_ server: ServeProcess, _ arguments: [String]) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run(["discovery"] + arguments + ["--server", server.url, "--token-file", tokens])
    }

    func onboard(_ server: ServeProcess, code: String, store: String) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run(["onboard", "--code", code, "--app-id", Self.appID, "--discovery", server.url,
                                   "--store", directory.file(store), "--yes"])
    }

    @Test("create → onboard → used up; CSV and sheet written 0600 and never over a file; revoke; JSON log without secrets")
    func onboardingFlow() async throws {
        let server = try serve(["--log-format", "json"])
        let put = try await discovery(server, ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.text == "stored basic.json for \(Self.appID): connects to mobile-demo.example.hana.ondemand.com\n")

        let csv = directory.file("codes.csv"), sheet = directory.file("codes.html")
        let create = try await discovery(server, ["codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--count", "3",
                                                  "--label", "=Field, \"Berlin\"", "--expires", "2d", "--csv", csv, "--sheet", sheet])
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.text.isEmpty, "with --csv the codes are not printed")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n").map(String.init)
        #expect(rows.count == 4 && rows[0] == "id,code,label,document,expires_at")
        #expect(rows[1].contains(#","'=Field, ""Berlin""",basic.json,"#), "quoted, and no formula: \(rows[1])")
        let codes = rows.dropFirst().map { $0.split(separator: ",")[1] }.map(String.init)
        #expect(codes.allSatisfy { $0.count == 14 })
        let page = try String(contentsOfFile: sheet, encoding: .utf8)
        #expect(codes.allSatisfy { page.contains(">\($0)<") }, "each card shows its code")
        #expect(page.components(separatedBy: "data:image/svg+xml;base64,").count == 4, "one QR per card")
        #expect(page.contains("=Field, &quot;Berlin&quot;") && page.contains("mobile-demo.example.hana.ondemand.com"))
        for file in [csv, sheet] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(file)")
        }
        // An existing output stops the command before any code is issued.
        let refused = try await discovery(server, ["codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--csv", csv])
        #expect(refused.status == 1 && refused.stderr.contains("exists; give --force"), "\(refused.stderr)")
        let active = try await discovery(server, ["codes", "list", "--app-id", Self.appID, "--status", "active"])
        #expect(active.text.split(separator: "\n").count == 4, "header and the 3 codes: \(active.text)")

        // The user types the code as they read it; a second use is refused in plain words.
        let first = try await onboard(server, code: codes[0].lowercased().replacingOccurrences(of: "-", with: " "), store: "one/configuration.json")
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await onboard(server, code: codes[0], store: "two/configuration.json")
        #expect(second.status == 2)
        #expect(second.stderr.contains("this onboarding code was already used; ask your administrator for a new one"), "\(second.stderr)")
        #expect(!second.stderr.contains(codes[0]))
        let used = try await discovery(server, ["codes", "list", "--app-id", Self.appID, "--status", "used", "--json"])
        #expect(used.text.contains(#""status":"used""#) && !used.text.contains(codes[0]))

        let id = String(rows[2].split(separator: ",")[0])
        #expect(try await discovery(server, ["codes", "revoke", "--app-id", Self.appID, id]).text == "revoked \(id)\n")
        let revoked = try await onboard(server, code: codes[1], store: "three/configuration.json")
        #expect(revoked.stderr.contains("this onboarding code was revoked; ask your administrator for a new one"), "\(revoked.stderr)")
        let audit = try await discovery(server, ["audit"])
        #expect(audit.text.contains("codes.issue") && audit.text.contains("codes.revoke") && audit.text.contains("documents.put"))

        let (status, log) = server.stop()
        #expect(status == 0, "SIGTERM ends the service cleanly")
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] != nil && object?["message"] != nil, "\(line)")
        }
        #expect(lines.contains { $0.contains(#""request_id""#) && $0.contains("GET lookup 200") })
        #expect(lines.contains { $0.contains("GET lookup 410") })
        for secret in codes + codes.map({ $0.replacingOccurrences(of: "-", with: "") }) + [Self.token] {
            #expect(!log.contains(secret), "a code or token in the log")
        }
    }

    @Test("client policies: settings put checks the file (key path named), get prints what onboarding reads, delete; onboard --code applies them")
    func clientPolicies() async throws {
        let server = try serve()
        defer { _ = server.stop() }
        #expect(try await discovery(server, ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"]).status == 0)
        let bad = directory.file("bad-settings.json")
        try Data(#"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": "true", "passwordPolicyMinUniqueChars": "11"}}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try await discovery(server, ["settings", "put", "--app-id", Self.appID, bad])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(bad): passwordPolicy.passwordPolicyMinUniqueChars: asks for 11 different characters"), "\(refused.stderr)")

        // The CLI's test passcode has 15 characters: a policy of 16 refuses it, one of 12 takes it.
        let settings = directory.file("settings.json")
        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "16"}, "logSettings": {"logLevel": "DEBUG"}}"#.utf8).write(to: URL(fileURLWithPath: settings))
        let put = try await discovery(server, ["settings", "put", "--app-id", Self.appID, settings])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.text.hasPrefix("stored the client policies of \(Self.appID)\nPasscode policy: at least 16 characters."), "\(put.text)")
        let apps = try await discovery(server, ["applications"])
        #expect(apps.text.contains("POLICIES") && apps.text.split(separator: "\n").last?.hasSuffix("yes") == true, "\(apps.text)")
        let codes = try await discovery(server, ["codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--count", "2", "--uses", "2"])
        let code = try #require(codes.text.split(separator: "\n").compactMap { line in line.split(separator: " ").first { $0.count == 14 } }.first)
        let tooShort = try await onboard(server, code: String(code), store: "short/store.age")
        #expect(tooShort.status == 2 && tooShort.stderr.contains("at least 16 characters"), "\(tooShort.stderr)")
        #expect(tooShort.stderr.contains("Client policies from \(server.url)/mobileservices/application/\(Self.appID)/"), "\(tooShort.stderr)")

        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "12"}}"#.utf8).write(to: URL(fileURLWithPath: settings))
        #expect(try await discovery(server, ["settings", "put", "--app-id", Self.appID, settings]).status == 0)
        let got = try await discovery(server, ["settings", "get", "--app-id", Self.appID])
        #expect(got.status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(got.stdout)) as? [String: [String: String]] == ["passwordPolicy": ["passwordPolicyMinLength": "12"]])
        let onboarded = try await onboard(server, code: String(code), store: "ok/store.age")
        #expect(onboarded.status == 0, "\(onboarded.stderr)")

        #expect(try await discovery(server, ["settings", "delete", "--app-id", Self.appID]).text == "removed the client policies of \(Self.appID)\n")
        let none = try await discovery(server, ["settings", "get", "--app-id", Self.appID])
        #expect(none.status == 2 && none.stderr.contains("has no client policies"), "\(none.stderr)")
        let audit = try await discovery(server, ["audit"])
        #expect(audit.text.contains("settings.put") && audit.text.contains("settings.delete") && audit.text.contains("invalid-settings") == false,
                "the file was refused here, before the service was asked: \(audit.text)")
    }

    @Test("bad tokens, servers and folders: clear errors and exit codes")
    func refusals() async throws {
        let server = try serve()
        defer { _ = server.stop() }
        let wrongTokens = directory.file("wrong")
        #expect(FileManager.default.createFile(atPath: wrongTokens, contents: Data("wrong-token-wrong-token-wrong\n".utf8), attributes: [.posixPermissions: 0o600]))
        let refused = try await ActivateCLI.run(["discovery", "applications", "--server", server.url, "--token-file", wrongTokens])
        #expect(refused.status == 2 && refused.stderr.contains("the token was refused"), "\(refused.stderr)")
        let open = directory.file("open-token")
        #expect(FileManager.default.createFile(atPath: open, contents: Data("\(Self.token)\n".utf8), attributes: [.posixPermissions: 0o644]))
        let readable = try await ActivateCLI.run(["discovery", "applications", "--server", server.url, "--token-file", open])
        #expect(readable.status == 1 && readable.stderr.contains("readable by other users"), "\(readable.stderr)")
        let plain = try await ActivateCLI.run(["discovery", "applications", "--server", "http://discovery.example.com", "--token-file", tokens])
        #expect(plain.status == 2 && plain.stderr.contains("is not https"), "\(plain.stderr)")
        let noServer = try await ActivateCLI.run(["discovery", "applications", "--token-file", tokens])
        #expect(noServer.status == 64)
        let unknown = try await discovery(server, ["codes", "create", "--app-id", Self.appID, "--document", "missing.json"])
        #expect(unknown.status == 2 && unknown.stderr.contains("has no document missing.json"), "\(unknown.stderr)")
        let serveNone = try await ActivateCLI.run(["serve", "--database", "none"])
        #expect(serveNone.status == 64 && serveNone.stderr.contains("--configs"))
        let badURL = try await ActivateCLI.run(["serve", "--database", "mysql://x", "--secret-file", directory.file("s2")])
        #expect(badURL.status == 2 && badURL.stderr.contains("expected sqlite:PATH, postgres://user@host/db or none"), "\(badURL.stderr)")
    }

    @Test("the console in headless Chromium: a wrong token refused; sign in, issue a code shown once with its QR, a <script> label as text, revoke; the lookup then answers 410; client policies refused with their key path, then stored and served; no request leaves the origin")
    func console() async throws {
        let python = SourceTree.path(".build/interop-venv/bin/python")
        #expect(FileManager.default.isExecutableFile(atPath: python) && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
                "scripts/setup.sh --test installs chromium, chromium-driver and selenium")
        let server = try serve()
        defer { _ = server.stop() }
        let put = try await discovery(server, ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"])
        #expect(put.status == 0)
        let run = try await Tool.run(python, [SourceTree.path("Tests/Browser/console_test.py"), server.url, Self.token, Self.appID, "basic.json"])
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any]
        #expect(summary?["lookupStatus"] as? Int == 410)
        #expect(summary?["foreignRequests"] as? Int == 0)
        #expect(summary?["settingsServed"] as? Bool == true)
        let code = try #require(summary?["code"] as? String)
        let revoked = try await onboard(server, code: code, store: "console/configuration.json")
        #expect(revoked.stderr.contains("was revoked"), "\(revoked.stderr)")
    }
}
