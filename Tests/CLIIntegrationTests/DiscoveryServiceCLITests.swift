import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `activate serve --database …` with `activate discovery …` and `activate onboard --code`, each its
/// own process, as an administrator and a user run them; and the console in a real headless Chromium.
@Suite("Discovery service end to end: codes issued, used once, revoked; the console in Chromium", .serialized)
struct DiscoveryServiceCLITests {
    let directory: TemporaryFolder
    let configs: String
    let tokens: String
    static let appID = "com.example.fieldservice"
    static let token = "cli-test-token-0123456789abcdef"

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        configs = directory.file("configs")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        for name in ["oauth-authorization-code.json", "android-basic.json"] {
            try FileManager.default.copyItem(atPath: "\(SourceTree.documents)/\(name)", toPath: "\(configs)/\(name)")
        }
        try Data(
            #"{"applications": {"\#(Self.appID)": {"domains": {"example.com": "oauth-authorization-code.json"}}}}"#.utf8
        )
        .write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
        tokens = directory.file("admin-tokens")
        #expect(
            FileManager.default.createFile(
                atPath: tokens, contents: Data("# console and CLI\n\(Self.token)\n".utf8),
                attributes: [.posixPermissions: 0o600]))
    }

    func serve(_ extra: [String] = []) throws -> ServeProcess {
        try ServeProcess(
            configs: configs,
            arguments: [
                "--database", "sqlite:\(directory.file("discovery.sqlite"))",
                "--secret-file", directory.file("secret"), "--admin-token-file", tokens,
            ] + extra)
    }

    func discovery(_ server: ServeProcess, _ arguments: [String]) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run(["discovery"] + arguments + ["--server", server.url, "--token-file", tokens])
    }

    func onboard(_ server: ServeProcess, code: String, store: String) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run([
            "onboard", "--code", code, "--app-id", Self.appID, "--discovery", server.url,
            "--store", directory.file(store), "--yes", "--no-sign-in",
        ])
    }

    /// One request with curl: status, headers (lower-cased names) and seconds taken.
    static func fetch(_ url: String) async throws -> (status: Int, headers: [String: String], seconds: Double) {
        let result = try await Tool.run(
            "/usr/bin/curl", ["-sS", "-o", "/dev/null", "-D", "-", "-w", "%{time_total}", "--max-time", "10", url])
        let lines = result.text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return (status, headers, Double(lines.last ?? "") ?? .infinity)
    }

    @Test(
        """
        a SQLite file the service may not write: /ready and code lookups 503 at once (Retry-After, one warning naming \
        why), e-mail lookups go on; writable again, the code is used once
        """
    )
    func readOnlySQLite() async throws {
        // The folder and everything in it belong to the user the service runs as: as root, nobody
        // (root writes every file whatever its mode).
        let root = getuid() == 0
        let folder = directory.file("read-only")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "\(configs)/android-basic.json", toPath: "\(folder)/android-basic.json")
        try Data(
            #"""
            {"applications": {"\#(Self.appID)": {"domains": {"example.com": "android-basic.json"}, "codes": \#
            {"24681357": {"document": "android-basic.json", "expires": "2099-01-01T00:00:00Z"}}}}}
            """#
            .utf8
        )
        .write(to: URL(fileURLWithPath: "\(folder)/discovery.json"))
        let launcher = root ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        if root {
            for path in [directory.path, folder] + ["android-basic.json", "discovery.json"].map({ "\(folder)/\($0)" }) {
                #expect(chown(path, 65534, 65534) == 0)
            }
        }
        let database = ["--database", "sqlite:\(folder)/discovery.sqlite", "--secret-file", "\(folder)/secret"]
        let first = try ServeProcess(configs: folder, arguments: database, launcher: launcher)
        #expect(first.stop().status == 0)
        let files = ["", "-wal", "-shm"].map { "\(folder)/discovery.sqlite\($0)" }

        // The file, with its write-ahead log, read-only for the service (as on a file system
        // remounted read-only): it starts, reads, and cannot write.
        for file in files where FileManager.default.fileExists(atPath: file) {
            #expect(chmod(file, 0o444) == 0, "\(file)")
        }

        func lookup(_ server: ServeProcess, _ argument: String) -> String {
            """
            \(server.url)/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID=\
            '\(Self.appID):1.0',\(argument))
            """
        }
        let readOnly = try ServeProcess(configs: nil, arguments: database, launcher: launcher)
        let ready = try await Self.fetch("\(readOnly.url)/ready")
        // Answered at once, not after a database timeout; the bounds leave room for a loaded machine.
        #expect(ready.status == 503 && ready.seconds < 10, "\(ready)")
        let code = try await Self.fetch(lookup(readOnly, "OnboardingCode='24681357'"))
        #expect(code.status == 503 && code.headers["retry-after"] == "2" && code.seconds < 10, "\(code)")
        #expect(
            try await Self.fetch(lookup(readOnly, "EmailAddress='someone@example.com'")).status == 200,
            "e-mail lookups answer from the snapshot")
        let (status, log) = readOnly.stop()
        #expect(status == 0)
        #expect(log.contains("answering 503 to lookup: the database failed") && log.contains("readonly"), "\(log)")
        #expect(log.components(separatedBy: "answering 503").count == 2, "one warning, not one per request")

        for file in files where FileManager.default.fileExists(atPath: file) { #expect(chmod(file, 0o644) == 0) }
        // Writable again: the refused lookup used nothing (the admin API counts the uses left).
        let adminTokens = "\(folder)/admin-tokens"
        #expect(
            FileManager.default.createFile(
                atPath: adminTokens, contents: Data("\(Self.token)\n".utf8), attributes: [.posixPermissions: 0o600]))
        if root { #expect(chown(adminTokens, 65534, 65534) == 0) }
        let writable = try ServeProcess(
            configs: nil, arguments: database + ["--admin-token-file", adminTokens], launcher: launcher)
        func usesLeft() async throws -> Int? {
            let listed = try await discovery(writable, ["codes", "list", "--app-id", Self.appID, "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [String: Any]
            return ((object?["codes"] as? [[String: Any]])?.first?["usesLeft"] as? Int)
        }
        #expect(try await Self.fetch("\(writable.url)/ready").status == 200)
        let before = try #require(try await usesLeft())
        #expect(try await Self.fetch(lookup(writable, "OnboardingCode='24681357'")).status == 200)
        #expect(try await usesLeft() == before - 1, "only the lookup on a writable file used the code")
        #expect(writable.stop().status == 0)
    }

    @Test(
        "create → onboard → used up; CSV and sheet written 0600 and never over a file; revoke; JSON log without secrets"
    )
    func onboardingFlow() async throws {
        let server = try serve(["--log-format", "json"])
        let put = try await discovery(
            server,
            ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.text == "stored basic.json for \(Self.appID): connects to mobile-demo.example.hana.ondemand.com\n")

        let csv = directory.file("codes.csv")
        let sheet = directory.file("codes.html")
        let create = try await discovery(
            server,
            [
                "codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--count", "3",
                "--label", "=Field, \"Berlin\"", "--expires", "2d", "--csv", csv, "--sheet", sheet,
            ])
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
        let refused = try await discovery(
            server, ["codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--csv", csv])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("exists; pass --force to replace it"), "\(refused.stderr)")
        let active = try await discovery(server, ["codes", "list", "--app-id", Self.appID, "--status", "active"])
        #expect(active.text.split(separator: "\n").count == 4, "header and the 3 codes: \(active.text)")

        // The user types the code as they read it; a second use is refused in plain words.
        let first = try await onboard(
            server, code: codes[0].lowercased().replacingOccurrences(of: "-", with: " "),
            store: "one/configuration.json")
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await onboard(server, code: codes[0], store: "two/configuration.json")
        #expect(second.status == 2)
        #expect(
            second.stderr.contains("this onboarding code was already used; ask your administrator for a new one"),
            "\(second.stderr)")
        #expect(!second.stderr.contains(codes[0]))
        let used = try await discovery(server, ["codes", "list", "--app-id", Self.appID, "--status", "used", "--json"])
        #expect(used.text.contains(#""status":"used""#) && !used.text.contains(codes[0]))

        let id = String(rows[2].split(separator: ",")[0])
        #expect(try await discovery(server, ["codes", "revoke", "--app-id", Self.appID, id]).text == "revoked \(id)\n")
        let revoked = try await onboard(server, code: codes[1], store: "three/configuration.json")
        #expect(
            revoked.stderr.contains("this onboarding code was revoked; ask your administrator for a new one"),
            "\(revoked.stderr)")
        let audit = try await discovery(server, ["audit"])
        #expect(
            audit.text.contains("codes.issue") && audit.text.contains("codes.revoke")
                && audit.text.contains("documents.put"))

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

    @Test(
        """
        client policies: settings put checks the file (key path named), get prints what onboarding reads, delete; \
        onboard --code applies them
        """
    )
    func clientPolicies() async throws {
        let server = try serve()
        defer { _ = server.stop() }
        #expect(
            try await discovery(
                server,
                ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"]
            ).status == 0)
        let bad = directory.file("bad-settings.json")
        try Data(
            #"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": "true", "passwordPolicyMinUniqueChars": "11"}}"#.utf8
        ).write(to: URL(fileURLWithPath: bad))
        let refused = try await discovery(server, ["settings", "put", "--app-id", Self.appID, bad])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "\(bad): passwordPolicy.passwordPolicyMinUniqueChars: asks for 11 different characters"),
            "\(refused.stderr)")

        // The CLI's test passcode has 15 characters: a policy of 16 refuses it, one of 12 takes it.
        let settings = directory.file("settings.json")
        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "16"}, "logSettings": {"logLevel": "DEBUG"}}"#.utf8)
            .write(to: URL(fileURLWithPath: settings))
        let put = try await discovery(server, ["settings", "put", "--app-id", Self.appID, settings])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(
            put.text.hasPrefix("stored the client policies of \(Self.appID)\nPasscode policy: at least 16 characters."),
            "\(put.text)")
        let apps = try await discovery(server, ["applications"])
        #expect(
            apps.text.contains("POLICIES") && apps.text.split(separator: "\n").last?.hasSuffix("yes") == true,
            "\(apps.text)")
        let codes = try await discovery(
            server,
            ["codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--count", "2", "--uses", "2"])
        let code = try #require(
            codes.text.split(separator: "\n").compactMap { line in line.split(separator: " ").first { $0.count == 14 } }
                .first)
        let tooShort = try await onboard(server, code: String(code), store: "short/store.age")
        #expect(tooShort.status == 2 && tooShort.stderr.contains("at least 16 characters"), "\(tooShort.stderr)")
        #expect(
            tooShort.stderr.contains("Client policies from \(server.url)/mobileservices/application/\(Self.appID)/"),
            "\(tooShort.stderr)")

        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "12"}}"#.utf8).write(
            to: URL(fileURLWithPath: settings))
        #expect(try await discovery(server, ["settings", "put", "--app-id", Self.appID, settings]).status == 0)
        let got = try await discovery(server, ["settings", "get", "--app-id", Self.appID])
        #expect(got.status == 0)
        #expect(
            try JSONSerialization.jsonObject(with: Data(got.stdout)) as? [String: [String: String]] == [
                "passwordPolicy": ["passwordPolicyMinLength": "12"]
            ])
        let onboarded = try await onboard(server, code: String(code), store: "ok/store.age")
        #expect(onboarded.status == 0, "\(onboarded.stderr)")

        #expect(
            try await discovery(server, ["settings", "delete", "--app-id", Self.appID]).text
                == "removed the client policies of \(Self.appID)\n")
        let none = try await discovery(server, ["settings", "get", "--app-id", Self.appID])
        #expect(none.status == 2 && none.stderr.contains("has no client policies"), "\(none.stderr)")
        let audit = try await discovery(server, ["audit"])
        #expect(
            audit.text.contains("settings.put") && audit.text.contains("settings.delete")
                && audit.text.contains("invalid-settings") == false,
            "the file was refused here, before the service was asked: \(audit.text)")
    }

    @Test("bad tokens, servers and folders: clear errors and exit codes")
    func refusals() async throws {
        let server = try serve()
        defer { _ = server.stop() }
        let wrongTokens = directory.file("wrong")
        #expect(
            FileManager.default.createFile(
                atPath: wrongTokens, contents: Data("wrong-token-wrong-token-wrong\n".utf8),
                attributes: [.posixPermissions: 0o600]))
        let refused = try await ActivateCLI.run([
            "discovery", "applications", "--server", server.url, "--token-file", wrongTokens,
        ])
        #expect(refused.status == 2 && refused.stderr.contains("the token was refused"), "\(refused.stderr)")
        let open = directory.file("open-token")
        #expect(
            FileManager.default.createFile(
                atPath: open, contents: Data("\(Self.token)\n".utf8), attributes: [.posixPermissions: 0o644]))
        let readable = try await ActivateCLI.run([
            "discovery", "applications", "--server", server.url, "--token-file", open,
        ])
        #expect(readable.status == 1 && readable.stderr.contains("readable by other users"), "\(readable.stderr)")
        let plain = try await ActivateCLI.run([
            "discovery", "applications", "--server", "http://discovery.example.com", "--token-file", tokens,
        ])
        #expect(plain.status == 2 && plain.stderr.contains("is not https"), "\(plain.stderr)")
        let noServer = try await ActivateCLI.run(["discovery", "applications", "--token-file", tokens])
        #expect(noServer.status == 64)
        let unknown = try await discovery(
            server, ["codes", "create", "--app-id", Self.appID, "--document", "missing.json"])
        #expect(unknown.status == 2 && unknown.stderr.contains("has no document missing.json"), "\(unknown.stderr)")
        let serveNone = try await ActivateCLI.run(["serve", "--database", "none"])
        #expect(serveNone.status == 64 && serveNone.stderr.contains("--configs"))
        let badURL = try await ActivateCLI.run([
            "serve", "--database", "mysql://x", "--secret-file", directory.file("s2"),
        ])
        #expect(
            badURL.status == 2 && badURL.stderr.contains("expected sqlite:PATH, postgres://user@host/db or none"),
            "\(badURL.stderr)")
    }

    @Test(
        """
        the console in headless Chromium: a wrong token refused; sign in, issue a code shown once with its QR, a \
        <script> label as text, revoke; the lookup then answers 410; client policies refused with their key path, then \
        stored and served; no request leaves the origin
        """
    )
    func console() async throws {
        let python = SourceTree.path(".build/interop-venv/bin/python")
        #expect(
            FileManager.default.isExecutableFile(atPath: python)
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "scripts/setup.sh --test installs chromium, chromium-driver and selenium")
        let server = try serve()
        defer { _ = server.stop() }
        let put = try await discovery(
            server,
            ["documents", "put", "--app-id", Self.appID, "--name", "basic.json", "\(configs)/android-basic.json"])
        #expect(put.status == 0)
        let run = try await Tool.run(
            python,
            [SourceTree.path("Tests/Browser/console_test.py"), server.url, Self.token, Self.appID, "basic.json"])
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
