import Foundation
import TestSupport
import Testing

/// The discovery service against its own OpenAPI description: `activate serve` on a database with
/// the admin API, and schemathesis (PyPI) generating requests for every operation of the document,
/// statefully, with the admin token and every check it has: schema-valid requests must be
/// accepted, schema-violating ones refused, answers as documented, undeclared methods 405.
@Suite("The discovery service conforms to its OpenAPI description (schemathesis)", .serialized)
struct OpenAPITests {
    let directory: TemporaryFolder
    let configs: String
    let tokens: String
    static let appID = "com.example.fieldservice"
    static let token = "openapi-test-token-0123456789"

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        configs = directory.file("configs")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "\(SourceTree.documents)/android-basic.json", toPath: "\(configs)/basic.json")
        try Data(#"{"applications": {"\#(Self.appID)": {"domains": {"example.com": "basic.json"}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
        tokens = directory.file("admin-tokens")
        #expect(
            FileManager.default.createFile(
                atPath: tokens, contents: Data("\(Self.token)\n".utf8), attributes: [.posixPermissions: 0o600]))
    }

    func discovery(_ server: ServeProcess, _ arguments: [String]) async throws -> ActivateCLI.Result {
        try await ActivateCLI.run(["discovery"] + arguments + ["--server", server.url, "--token-file", tokens])
    }

    /// The codes of the application by id: status and uses left.
    func codes(_ server: ServeProcess) async throws -> [Int: (status: String, usesLeft: Int)] {
        let listed = try await discovery(server, ["codes", "list", "--app-id", Self.appID, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [String: Any]
        var codes: [Int: (String, Int)] = [:]
        for code in object?["codes"] as? [[String: Any]] ?? [] {
            if let id = code["id"] as? Int, let status = code["status"] as? String, let uses = code["usesLeft"] as? Int
            {
                codes[id] = (status, uses)
            }
        }
        return codes
    }

    @Test(
        """
        the document is served as committed; schemathesis, every check, finds no failure, and codes change only \
        through the calls meant to
        """
    )
    func schemathesis() async throws {
        let schemathesis = SourceTree.path(".build/interop-venv/bin/schemathesis")
        #expect(
            FileManager.default.isExecutableFile(atPath: schemathesis), "scripts/setup.sh --test installs schemathesis")
        let server = try ServeProcess(
            configs: configs,
            arguments: [
                "--database", "sqlite:\(directory.file("discovery.sqlite"))",
                "--secret-file", directory.file("secret"), "--admin-token-file", tokens,
                "--client-limit", "off", "--app-limit", "off",
            ])
        defer { _ = server.stop() }
        let served = try await Tool.run("/usr/bin/curl", ["-sS", "\(server.url)/openapi.yaml"])
        #expect(
            served.stdout
                == Array(
                    try Data(
                        contentsOf: URL(
                            fileURLWithPath: SourceTree.path("Sources/ActivationDiscoveryServer/Resources/openapi.yaml")
                        ))))

        // Codes that exist before the run: schemathesis cannot know them, so only a revocation
        // (an audited admin call) may change them.
        let issued = try await discovery(
            server,
            [
                "codes", "create", "--app-id", Self.appID, "--document", "basic.json", "--count", "5",
                "--uses", "3", "--json",
            ])
        #expect(issued.status == 0, "\(issued.stderr)")
        let before = try await codes(server)
        #expect(before.count == 5 && before.values.allSatisfy { $0.status == "active" && $0.usesLeft == 3 })

        // The document is read from its file (the same bytes, checked above): schemathesis leaves
        // out the operation that served it, and GET /openapi.yaml is tested too.
        let run = try await Tool.run(
            schemathesis,
            [
                "run", SourceTree.path("Sources/ActivationDiscoveryServer/Resources/openapi.yaml"), "--url",
                server.url, "--header", "Authorization: Bearer \(Self.token)", "--checks", "all",
                "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", "40", "--workers", "1",
                "--request-timeout", "30",
            ], in: directory.path)
        let output = run.text
        #expect(run.status == 0, "\(output.suffix(6000))")
        let summary = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let operations = summary.first { $0.hasPrefix("Tested:") } ?? "?"
        let cases = summary.first { $0.contains(" generated, ") } ?? "?"
        #expect(operations == "Tested: 20", "every operation of the document: \(operations)")
        // "N generated, N passed" (and "M skipped": operations whose inputs no case could reach).
        let counts = cases.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(counts.count >= 2 && counts[1].hasSuffix(" passed"), "\(cases)")
        #expect(
            counts.allSatisfy { $0.hasSuffix("generated") || $0.hasSuffix("passed") || $0.hasSuffix("skipped") },
            "\(cases)")
        print("schemathesis: operations \(operations), cases \(cases)")

        // The codes that existed: still active with every use left, or revoked by an audited call.
        // schemathesis's own orders can issue more codes than the listing shows (the newest
        // 10,000), so these oldest ones are read from the stopped server's database itself.
        let audit = try await discovery(server, ["audit", "--json"])
        let entries =
            (try JSONSerialization.jsonObject(with: Data(audit.stdout)) as? [String: Any])?["entries"]
            as? [[String: Any]] ?? []
        let revoked = Set(
            entries.filter { $0["action"] as? String == "codes.revoke" && $0["outcome"] as? String == "ok" }.compactMap
            { $0["subject"] as? String })
        _ = server.stop()
        let after = try await storedCodes(ids: Array(before.keys))
        for (id, state) in before {
            let now = try #require(after[id], "code \(id) is gone from the database")
            #expect(now.usesLeft == state.usesLeft, "code \(id) was used")
            #expect(!now.revoked || revoked.contains(String(id)), "code \(id) was revoked without an audited call")
        }
    }

    /// Uses left and revocation of the codes `ids`, from the SQLite file of a stopped server
    /// (Python's sqlite3 module, only reading).
    func storedCodes(ids: [Int]) async throws -> [Int: (usesLeft: Int, revoked: Bool)] {
        let script = """
            import json, sqlite3, sys
            database = sqlite3.connect(sys.argv[1])
            ids = json.loads(sys.argv[2])
            rows = database.execute("SELECT id, uses_left, revoked_at IS NOT NULL FROM codes WHERE id IN (%s)" % \
            ",".join("?" * len(ids)), ids)
            print(json.dumps({str(row[0]): [row[1], bool(row[2])] for row in rows}))
            """
        let ids = String(decoding: try JSONSerialization.data(withJSONObject: ids), as: UTF8.self)
        let result = try await Tool.run("/usr/bin/python3", ["-c", script, directory.file("discovery.sqlite"), ids])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: [Any]] ?? [:]
        var codes: [Int: (usesLeft: Int, revoked: Bool)] = [:]
        for (id, row) in object {
            if let id = Int(id), row.count == 2, let uses = row[0] as? Int, let revoked = row[1] as? Bool {
                codes[id] = (uses, revoked)
            }
        }
        return codes
    }
}
