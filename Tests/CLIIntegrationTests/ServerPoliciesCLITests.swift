import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Client policies from servers at SAP's `settingsExchange` path: from the configuration's
/// server with the user's credentials, from the discovery service without them, refreshed by
/// `restore --refresh`, which is also the contact that unblocks a store.
@Suite(
    "Client policies from servers: the configuration's server, the discovery service, refresh and block", .serialized)
final class ServerPoliciesCLITests {
    let directory: TemporaryFolder
    static let appID = "com.example.app"
    static let passcode = "Corr3ct-horse-x"

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
    }

    func file(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let path = directory.file(name)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]))
        return path
    }

    /// A configuration of `server` signing in with `auth` (`basic.default` or `apikeyonly`).
    func configuration(_ server: String, auth: String = "basic.default") throws -> String {
        let port = server.split(separator: ":").last.map(String.init) ?? "0"
        return try file(
            "configuration-\(auth).json",
            """
            {"host": "localhost", "port": \(port), "protocol": "http", "appID": "\(Self.appID)", "auth": [{"type": \
            "\(auth)", "config": {}}]}
            """)
    }

    /// `activate` with the passcode on standard input, never in argv.
    func run(_ arguments: [String], passcode: String? = ServerPoliciesCLITests.passcode) async throws
        -> ActivateCLI.Result
    {
        let fd = passcode == nil ? [] : ["--passcode-fd", "0"]
        return try await Tool.run(
            ActivateCLI.executable, arguments + fd, stdin: passcode.map { Array(($0 + "\n").utf8) })
    }

    func onboard(
        _ configuration: String, store: String, credentials: String, _ extra: [String] = [],
        passcode: String = ServerPoliciesCLITests.passcode
    ) async throws -> ActivateCLI.Result {
        try await run(
            [
                "onboard", "--file", configuration, "--allow-http", "--yes", "--store", directory.file(store),
                "--credentials-file", credentials, "--work-factor", "4",
            ] + extra, passcode: passcode)
    }

    @Test(
        """
        from the configuration's server with basic or API-key credentials, checked first: refused ones, a redirect or \
        no server stop onboarding; an invalid document too
        """
    )
    func fromConfigurationServer() async throws {
        let policies = try file(
            "policies.json", #"{"passwordPolicy": {"passwordPolicyMinLength": "14", "passwordPolicyRetryLimit": "3"}}"#)
        let server = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "basic:alice:pa55-word", log: directory.file("basic.log"))
        let configuration = try configuration(server.url)
        let alice = try file("alice.json", #"{"user": "alice", "password": "pa55-word"}"#)

        // The server's policy applies: 14 characters, so this 15-character passcode passes and a shorter one does not.
        let short = try await onboard(
            configuration, store: "short/store.age", credentials: alice, passcode: "Sh0rt-pass-1")
        #expect(short.status == 2 && short.stderr.contains("at least 14 characters"), "\(short.stderr)")
        let onboarded = try await onboard(configuration, store: "basic/store.age", credentials: alice)
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        let path =
            """
            /mobileservices/application/\(Self.appID)/storage/v1/runtime/application/\(Self.appID)/global/\
            mobileservices/settingsExchange
            """
        #expect(onboarded.stderr.contains("Client policies from \(server.url)\(path)."), "\(onboarded.stderr)")
        #expect(
            try server.requests().allSatisfy { $0["authorization"] as? Bool == true && $0["status"] as? Int == 200 })
        let wrong = try await run(
            ["restore", "--store", directory.file("basic/store.age"), "--allow-http"], passcode: "Wrong-passcode-x")
        #expect(wrong.stderr.contains("wrong passcode; 2 tries left"), "the server's retry limit of 3: \(wrong.stderr)")

        // Credentials the server refuses are never stored, and never onboarded under SAP's defaults.
        let bob = try file("bob.json", #"{"user": "bob", "password": "guess"}"#)
        let refused = try await onboard(configuration, store: "refused/store.age", credentials: bob)
        #expect(refused.status == 7, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("\(server.url)/\(Self.appID) refused the credentials (HTTP 401)"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("guess"), "no credential in a message")
        #expect(!FileManager.default.fileExists(atPath: directory.file("refused/store.age")))

        // --offline asks nobody: the credentials are stored unchecked, and it says so.
        let before = try server.requests().count
        let offline = try await onboard(configuration, store: "offline/store.age", credentials: alice, ["--offline"])
        #expect(
            offline.status == 0 && offline.stderr.contains("the credentials are stored unchecked"), "\(offline.stderr)")
        #expect(try server.requests().count == before)

        // A document the server sends that is no valid settingsExchange stops onboarding, named.
        _ = try file("policies.json", #"{"passwordPolicy": {"passwordPolicyMinLength": "twelve"}}"#)
        let invalid = try await onboard(configuration, store: "invalid/store.age", credentials: alice)
        #expect(invalid.status == 2, "\(invalid.stderr)")
        #expect(
            invalid.stderr.contains("\(path): passwordPolicy.passwordPolicyMinLength: not a whole number"),
            "\(invalid.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("invalid/store.age")))
        server.stop()

        // No server at all: the credentials cannot be checked, and nothing is stored.
        let gone = try await onboard(configuration, store: "gone/store.age", credentials: alice)
        #expect(
            gone.status == 1 && gone.stderr.contains("the server could not be reached (connection refused)"),
            "\(gone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("gone/store.age")))

        // API-key sign-in sends SAP's X-API-Key header, and no Authorization.
        _ = try file("policies.json", #"{"passwordPolicy": {"passwordPolicyMinLength": "10"}}"#)
        let keyServer = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "apikey:k-0123456789", log: directory.file("key.log"))
        let key = try file("key.json", #"{"apiKey": "k-0123456789"}"#)
        let keyed = try await onboard(
            try self.configuration(keyServer.url, auth: "apikeyonly"), store: "key/store.age", credentials: key)
        #expect(keyed.status == 0 && keyed.stderr.contains("Client policies from \(keyServer.url)"), "\(keyed.stderr)")
        // One request checks the key at the application endpoint, one fetches the policies.
        let requests = try keyServer.requests()
        #expect(requests.map { $0["path"] as? String } == ["/\(Self.appID)", path], "\(requests)")
        #expect(
            requests.allSatisfy { $0["apiKey"] as? Bool == true && $0["authorization"] as? Bool == false },
            "\(requests)")

        // A redirect is not followed: the credentials go to the configuration's server and nowhere else.
        let redirecting = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "redirect:\(keyServer.url)/elsewhere",
            log: directory.file("redirect.log"))
        let redirected = try await onboard(
            try self.configuration(redirecting.url), store: "redirected/store.age", credentials: alice)
        #expect(redirected.status == 7, "\(redirected.stderr)")
        #expect(
            redirected.stderr.contains(
                """
                answered with a redirect to \(keyServer.url)/elsewhere, which is not followed: the server expects \
                another sign-in method
                """
            ),
            "\(redirected.stderr)")
        #expect(try keyServer.requests().count == 2, "nothing reached the redirect's target")
    }

    /// Sets the store's last server contact `days` ago, as if that much time had passed: the
    /// plaintext is rewritten with pyrage under the same passcode.
    func age(_ store: String, days: Int) async throws {
        let python = try await Tool.run(
            SecureStoreCLITests.python(),
            [
                "-c",
                """
                import datetime, json, os, pyrage, sys
                path, passcode, days = sys.argv[1], sys.argv[2], int(sys.argv[3])
                contents = json.loads(pyrage.passphrase.decrypt(open(path, 'rb').read(), passcode))
                then = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=days)
                contents['lastServerContact'] = then.strftime('%Y-%m-%dT%H:%M:%SZ')
                fd = os.open(path + '.new', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.write(fd, pyrage.passphrase.encrypt(json.dumps(contents).encode(), passcode))
                os.close(fd)
                os.rename(path + '.new', path)
                """, store, Self.passcode, String(days),
            ])
        #expect(python.status == 0, "\(python.stderr)")
    }

    @Test(
        """
        from the discovery service without credentials; restore --refresh stores new policies and records the contact, \
        which unblocks a blocked store
        """
    )
    func fromDiscoveryAndRefresh() async throws {
        let policies = try file(
            "policies.json",
            """
            {"passwordPolicy": {"passwordPolicyMinLength": "10", "passwordPolicyRetryLimit": "4"},
             "blockWipingPolicy": {"blockWipeEnabled": "true", "blockDisconnectedPeriod": "2", \
            "wipeDisconnectedPeriod": "30"}}
            """)
        let discovery = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "none", log: directory.file("discovery.log"))
        let alice = try file("alice.json", #"{"user": "alice", "password": "pa55-word"}"#)
        let configuration = try file(
            "elsewhere.json",
            """
            {"host": "mobile.example.invalid", "appID": "\(Self.appID)", "auth": [{"type": "basic.default", "config": \
            {}}]}
            """)
        let store = directory.file("store/store.age")
        // The configuration's server does not exist: the credentials are stored unchecked.
        let onboarded = try await run([
            "onboard", "--file", configuration, "--discovery", discovery.url, "--yes", "--no-sign-in", "--store", store,
            "--credentials-file", alice, "--work-factor", "4",
        ])
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        #expect(
            onboarded.stderr.contains("Client policies from \(discovery.url)/mobileservices/application/"),
            "\(onboarded.stderr)")
        #expect(
            try discovery.requests().map { $0["authorization"] as? Bool } == [false],
            "the discovery service never gets the credentials")

        // The policies change on the server; --refresh takes them and records the contact.
        _ = try file(
            "policies.json",
            """
            {"passwordPolicy": {"passwordPolicyMinLength": "10", "passwordPolicyRetryLimit": "6"},
             "blockWipingPolicy": {"blockWipeEnabled": "true", "blockDisconnectedPeriod": "2", \
            "wipeDisconnectedPeriod": "30"}}
            """)
        let refreshed = try await run(["restore", "--store", store, "--refresh"])
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        #expect(
            refreshed.stderr.contains("The new client policies are stored; contact recorded."), "\(refreshed.stderr)")
        #expect(try await run(["lock", "--store", store], passcode: nil).status == 0)
        let wrong = try await run(["restore", "--store", store], passcode: "Wrong-passcode-x")
        #expect(wrong.stderr.contains("wrong passcode; 5 tries left"), "the new retry limit of 6: \(wrong.stderr)")

        // Three days without contact: blocked; a refresh that reaches the server opens it again.
        try await age(store, days: 3)
        let blocked = try await run(["restore", "--store", store])
        #expect(
            blocked.status == 6 && blocked.stderr.contains("no contact with the server for 3 days"), "\(blocked.stderr)"
        )
        let unblocked = try await run(["restore", "--store", store, "--refresh"])
        #expect(unblocked.status == 0, "\(unblocked.stderr)")
        #expect(unblocked.stderr.contains("The client policies are unchanged; contact recorded."))
        #expect(unblocked.text.contains("You will be connected to: mobile.example.invalid"))
        #expect(try await run(["restore", "--store", store]).status == 0, "the contact counts from now")

        // Blocked again with the server gone: the refresh cannot reach it, and the store stays blocked.
        try await age(store, days: 3)
        discovery.stop()
        let stillBlocked = try await run(["restore", "--store", store, "--refresh"])
        #expect(
            stillBlocked.status == 6
                && stillBlocked.stderr.contains("the server could not be asked, so the store stays blocked"),
            "\(stillBlocked.stderr)")

        // A store whose policies came from a file has no server to refresh from.
        let offline = directory.file("offline/store.age")
        #expect(
            try await run([
                "onboard", "--file", configuration, "--offline", "--yes", "--store", offline, "--credentials-file",
                alice,
                "--work-factor", "4",
            ]).status == 0)
        let nothing = try await run(["restore", "--store", offline, "--refresh"])
        #expect(
            nothing.status == 2 && nothing.stderr.contains("the client policies did not come from a server"),
            "\(nothing.stderr)")
    }
}
