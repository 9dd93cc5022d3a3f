import ActivationConfiguration
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `onboard`, `login`, `token`, `logout` and `restore` as processes against glewlwyd: exit codes,
/// what reaches stdout, the refresh lock across processes, and where the secrets are not.
@Suite("Signing in on the command line: login, token, logout", .serialized)
final class SignInCLITests {
    let directory = try! TemporaryFolder(prefix: "activate-sign-in")
    var store: String { "\(directory.path)/store/store.age" }
    /// Every stderr of the commands run, searched for secrets at the end.
    var stderrs: [String] = []
    /// The tokens the tests saw (printed by `token`, or read from the store with --show-secrets).
    var secrets: Set<String> = []

    /// Runs `activate` with `environment` added (`BROWSER`), stdin not a terminal.
    func run(_ arguments: [String], environment: [String] = []) async throws -> ActivateCLI.Result {
        let result = try await Tool.run(
            "/usr/bin/env", environment + [ActivateCLI.executable] + TestPasscode.added(to: arguments))
        stderrs.append(result.stderr)
        return result
    }

    func configuration(_ idp: IdentityProvider, redirect: String) throws -> String {
        let config: [String: Any] = [
            "oauth2.authorizationEndpoint": idp.byName(idp.authorizationEndpoint),
            "oauth2.tokenEndpoint": idp.byName(idp.tokenEndpoint),
            "oauth2.revocationEndpoint": idp.byName(idp.revocationEndpoint),
            "oauth2.clients": [["clientID": idp.clientID, "redirectURL": redirect, "scope": idp.scope]],
        ]
        let document: [String: Any] = [
            "host": "localhost", "port": 8443, "appID": "com.example.app",
            "auth": [["type": "oauth2", "config": config]],
        ]
        let path = "\(directory.path)/configuration.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Whether glewlwyd takes `token` at its userinfo endpoint.
    func works(_ token: String, at idp: IdentityProvider) async throws -> Bool {
        var request = URLRequest(url: URL(string: idp.byName(idp.issuer) + "/userinfo")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    @Test(
        """
        onboard signs in through the browser; token prints a working token, from the store without a request; five \
        parallel refreshes all work
        """
    )
    func lifecycle() async throws {
        let port = try freeLoopbackPort()
        let redirect = "http://127.0.0.1:\(port)/callback"
        let idp = try IdentityProvider(.glewlwyd, options: ["--redirect-uri", redirect])
        defer { idp.stop() }
        let browser = try idp.browserVariable(in: directory.path)

        let onboarded = try await run(
            [
                "onboard", "--file", try configuration(idp, redirect: redirect), "--allow-http", "--yes", "--store",
                store,
                "--policy", try policyFile(), "--timeout", "60",
            ], environment: [browser])
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        #expect(
            onboarded.stderr.contains("signed in") && onboarded.stderr.contains("refresh token kept"),
            "\(onboarded.stderr)")
        // One unlock with the passcode: the keyring keeps the key for the policy's lock timeout.
        #expect(try await run(["restore", "--store", store, "--allow-http"]).status == 0)

        let printed = try await run(["token", "--store", store])
        #expect(printed.status == 0, "\(printed.stderr)")
        let token = printed.text.trimmingCharacters(in: .newlines)
        secrets.insert(token)
        secrets.insert(try await storedRefreshToken())
        #expect(
            printed.text == token + "\n" && !token.isEmpty && printed.stderr.isEmpty,
            "the token and a newline, nothing else")
        #expect(try await works(token, at: idp))
        let json =
            try JSONSerialization.jsonObject(with: Data(try await run(["token", "--store", store, "--json"]).stdout))
            as? [String: Any]
        #expect(
            json?["access_token"] as? String == token && json?["token_type"] as? String == "Bearer"
                && (json?["expires_in"] as? Int ?? 0) > 3000)
        #expect((json?["expires_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)

        let restored = try await run(["restore", "--store", store, "--allow-http"])
        #expect(
            restored.text.contains("Sign-in:    OAuth 2.0") && restored.text.contains("refresh token kept"),
            "\(restored.text)")
        #expect(!restored.text.contains(token))

        // Five at once, each asked for a fresher token than it has: they take turns at the
        // refresh lock, each spends the refresh token the one before it stored, and all work.
        let arguments = ["token", "--store", store, "--allow-http", "--min-valid", "86400"]
        let tokens = try await withThrowingTaskGroup(of: ActivateCLI.Result.self) { group in
            for _ in 0..<5 { group.addTask { try await Tool.run(ActivateCLI.executable, arguments) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        stderrs += tokens.map(\.stderr)
        secrets.formUnion(tokens.map { $0.text.trimmingCharacters(in: .newlines) })
        secrets.insert(try await storedRefreshToken())
        for result in tokens {
            #expect(result.status == 0 && result.stdout.last == 0x0A, "\(result.stderr)")
            #expect(try await works(result.text.trimmingCharacters(in: .newlines), at: idp))
        }
        #expect(Set(tokens.map(\.text)).count == 5, "each refreshed: the token must have a day left, and has an hour")

        // A valid token on an unlocked store costs no request: the provider can be gone.
        let last = try await run(["token", "--store", store]).text
        idp.stop()
        let offline = try await run(["token", "--store", store])
        #expect(offline.status == 0 && offline.text == last, "\(offline.stderr)")
    }

    @Test(
        """
        a locked store without a passcode source, and a refresh the server refuses, end at once with their own exit \
        codes and nothing on stdout
        """
    )
    func failures() async throws {
        let port = try freeLoopbackPort()
        let redirect = "http://127.0.0.1:\(port)/callback"
        let idp = try IdentityProvider(.glewlwyd, options: ["--redirect-uri", redirect])
        defer { idp.stop() }
        let onboarded = try await run(
            [
                "onboard", "--file", try configuration(idp, redirect: redirect), "--allow-http", "--yes", "--store",
                store,
                "--policy", try policyFile(), "--timeout", "60",
            ], environment: [try idp.browserVariable(in: directory.path)])
        #expect(onboarded.status == 0, "\(onboarded.stderr)")

        // Locked (a new store, or after `activate lock`): no passcode source, no terminal.
        #expect(try await run(["lock", "--store", store]).status == 0)
        let locked = try await run(["token", "--store", store])
        #expect(locked.status == 8 && locked.stdout.isEmpty, "\(locked.stderr)")
        #expect(locked.stderr.contains("the store is locked"))
        let unlocked = try await run(["token", "--store", store, "--passcode-file", TestPasscode.file])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")

        // login signs in again; the sign-in is then revoked at the server behind activate's back.
        let login = try await run(
            ["login", "--store", store, "--allow-http", "--timeout", "60"],
            environment: [try idp.browserVariable(in: directory.path)])
        #expect(login.status == 0 && login.stderr.contains("signed in"), "\(login.stderr)")
        let token = try await run(["token", "--store", store]).text.trimmingCharacters(in: .newlines)
        let revoked = try await idp.post(
            idp.byName(idp.revocationEndpoint),
            form: ["token": try storedRefreshToken(), "token_type_hint": "refresh_token"],
            bearer: token)
        #expect(revoked.status == 200)
        let refused = try await run(["token", "--store", store, "--allow-http", "--min-valid", "86400"])
        #expect(refused.status == 7 && refused.stdout.isEmpty, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("the server refused to refresh the sign-in (HTTP 400 with an empty body)"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("activate login"))

        // logout deletes the tokens even when the server cannot be asked; then there is no token.
        idp.stop()
        let logout = try await run(["logout", "--store", store, "--allow-http"])
        #expect(logout.status == 0 && logout.stderr.contains("tokens were deleted all the same"), "\(logout.stderr)")
        let none = try await run(["token", "--store", store])
        #expect(none.status == 7 && none.stdout.isEmpty && none.stderr.contains("holds no sign-in"), "\(none.stderr)")
        let restored = try await run(["restore", "--store", store, "--allow-http"])
        #expect(restored.text.contains("not signed in"), "\(restored.text)")
    }

    @Test(
        """
        basic credentials: checked by the server at onboarding and login; refused ones, or none at all, are no sign-in \
        (exit 7)
        """
    )
    func basicLogin() async throws {
        let policies = "\(directory.path)/policies.json"
        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "8", "passwordPolicyLockTimeout": "600"}}"#.utf8)
            .write(to: URL(fileURLWithPath: policies))
        let server = try SettingsServer(
            appID: "com.example.app", policies: policies, auth: "basic:alice:pa55-word",
            log: "\(directory.path)/server.log")
        defer { server.stop() }
        let port = server.url.split(separator: ":").last.map(String.init) ?? "0"
        let configuration = "\(directory.path)/basic.json"
        try Data(
            #"""
            {"host": "localhost", "port": \#(port), "protocol": "http", "appID": "com.example.app", "auth": [{"type": \#
            "basic.default", "config": {}}]}
            """#
            .utf8
        )
        .write(to: URL(fileURLWithPath: configuration))
        func credentials(_ name: String, _ json: String) throws -> String {
            let path = "\(directory.path)/\(name).json"
            #expect(
                FileManager.default.createFile(
                    atPath: path, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600]))
            return path
        }
        let alice = try credentials("alice", #"{"user": "alice", "password": "pa55-word"}"#)
        let bob = try credentials("bob", #"{"user": "bob", "password": "guess"}"#)

        let onboarded = try await run([
            "onboard", "--file", configuration, "--allow-http", "--yes", "--store", store, "--credentials-file", alice,
        ])
        #expect(
            onboarded.status == 0 && onboarded.stderr.contains("localhost accepted the credentials"),
            "\(onboarded.stderr)")
        let restored = try await run(["restore", "--store", store, "--allow-http"])
        #expect(restored.text.contains("Sign-in:    basic as alice; accepted by the server at"), "\(restored.text)")

        let refused = try await run(["login", "--store", store, "--allow-http", "--credentials-file", bob])
        #expect(
            refused.status == 7 && refused.stderr.contains("refused the credentials (HTTP 401)"), "\(refused.stderr)")
        let none = try await run(["login", "--store", store, "--allow-http"])
        #expect(none.status == 7 && none.stderr.contains("no credentials were given"), "\(none.stderr)")
        let again = try await run(["login", "--store", store, "--allow-http", "--credentials-file", alice])
        #expect(again.status == 0, "\(again.stderr)")
        let token = try await run(["token", "--store", store])
        #expect(
            token.status == 7 && token.stdout.isEmpty
                && token.stderr.contains("signs in with basic.default, which has no access token"), "\(token.stderr)")
    }

    /// The refresh token in the store, read with `age -d`-compatible decryption through
    /// `restore --json --show-secrets`.
    func storedRefreshToken() async throws -> String {
        let report = try await run(["restore", "--store", store, "--allow-http", "--json", "--show-secrets"])
        let object = try JSONSerialization.jsonObject(with: Data(report.stdout)) as? [String: Any]
        return (object?["signIn"] as? [String: Any])?["refreshToken"] as? String ?? ""
    }

    func policyFile() throws -> String {
        let path = "\(directory.path)/policy.json"
        try Data(#"{"passwordPolicy": {"passwordPolicyMinLength": "8", "passwordPolicyLockTimeout": "600"}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    deinit {
        // No command printed a token, a refresh token or a code on stderr, and no file beside the
        // store holds one: secrets live in the encrypted store only.
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: "\(directory.path)/store")) ?? []
        let beside = files.filter { !$0.hasSuffix("store.age") }.compactMap {
            try? String(contentsOfFile: "\(directory.path)/store/\($0)", encoding: .utf8)
        }
        for text in stderrs + beside {
            #expect(
                !text.contains("eyJ"), "a JWT (glewlwyd's tokens are JWTs) where no secret belongs: \(text.prefix(300))"
            )
            #expect(!text.contains("code="), "an authorization code where no secret belongs: \(text.prefix(300))")
            for secret in secrets where !secret.isEmpty {
                #expect(!text.contains(secret), "a token where no secret belongs: \(text.prefix(300))")
            }
        }
    }
}
