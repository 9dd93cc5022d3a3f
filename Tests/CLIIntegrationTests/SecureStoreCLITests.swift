import ActivationConfiguration
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The secure store through the command line, as a user and a script would use it, with real
/// processes: Debian's `age` and PyPI's `pyrage` on the other side of the format.
@Suite("The secure store: onboard, restore, lock, passcode change, reset; age interop; kills and wipes", .serialized)
final class SecureStoreCLITests {
    let directory: TemporaryFolder
    let store: String
    let configuration = SourceTree.path("SampleCodes/basic-configuration.json")
    static let passcode = "Corr3ct-horse"
    static let newPasscode = "B4ttery-staple"

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        store = directory.file("store/store.age")
    }

    deinit { _ = try? Tool.runBlocking(ActivateCLI.executable, ["lock", "--store", store], stdin: nil, in: nil) }

    /// A file only its owner can read, holding `text` and a newline.
    func secret(_ name: String, _ text: String) throws -> String {
        let path = directory.file(name)
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600]))
        return path
    }

    /// `activate` with the passcode on standard input (`--passcode-fd 0`), never in argv.
    func run(_ arguments: [String], passcode: String? = nil, environment: [String: String] = [:]) async throws
        -> ActivateCLI.Result
    {
        let assignments = environment.map { "\($0.key)=\($0.value)" }
        let fd = passcode == nil ? [] : ["--passcode-fd", "0"]
        return try await Tool.run(
            "/usr/bin/env", assignments + [ActivateCLI.executable] + arguments + fd,
            stdin: passcode.map { Array(($0 + "\n").utf8) })
    }

    func onboard(_ extra: [String] = [], passcode: String? = SecureStoreCLITests.passcode) async throws
        -> ActivateCLI.Result
    {
        // No server to check the credentials with: they are stored unchecked.
        try await run(
            ["onboard", "--file", configuration, "--yes", "--offline", "--store", store, "--work-factor", "10"] + extra,
            passcode: passcode)
    }

    func restore(_ extra: [String] = [], passcode: String?) async throws -> ActivateCLI.Result {
        try await run(["restore", "--store", store] + extra, passcode: passcode)
    }

    func lock() async throws {
        #expect(try await run(["lock", "--store", store]).status == 0)
    }

    static func python() -> String { SourceTree.path(".build/interop-venv/bin/python") }

    /// Runs `age` with the passcode typed on a pseudo-terminal (`script`): age reads passphrases
    /// only from the terminal.
    func age(_ arguments: [String], typing lines: [String]) async throws -> ActivateCLI.Result {
        let command = (["age"] + arguments).map { "'\($0)'" }.joined(separator: " ")
        // A question the typed lines do not answer would wait for ever: the hang guard ends it.
        return try await Tool.run(
            "/usr/bin/timeout", ["60", "/usr/bin/script", "-qec", command, "/dev/null"],
            stdin: Array(lines.map { $0 + "\n" }.joined().utf8))
    }

    @Test("onboard, restore with the passcode, the credentials hidden unless asked, reset")
    func lifecycle() async throws {
        let credentials = try secret("credentials.json", #"{"user": "alice", "password": "pa55-word"}"#)
        let onboarded = try await onboard(["--credentials-file", credentials])
        #expect(onboarded.status == 0, "\(onboarded.stderr)")
        #expect(onboarded.stderr.contains("encrypted under your passcode"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(bytes.starts(with: Data("age-encryption.org/v1\n-> scrypt ".utf8)))
        #expect(
            !String(decoding: bytes, as: UTF8.self).contains("pa55-word")
                && !String(decoding: bytes, as: UTF8.self).contains("mobile-demo"))

        try await lock()
        let restored = try await restore(passcode: Self.passcode)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.text.contains("You will be connected to: mobile-demo.example.hana.ondemand.com"))
        #expect(restored.text.contains("Credentials: user alice, password (set) (--show-secrets shows them)"))
        #expect(!restored.text.contains("pa55-word") && !restored.stderr.contains("pa55-word"))
        let shown = try await restore(["--show-secrets"], passcode: nil)  // the keyring has the key now
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.text.contains("Password:   pa55-word"))
        let json = try JSONDecoder().decode(
            RestoreReport.self, from: Data(try await restore(["--json"], passcode: nil).stdout))
        #expect(json.protection == "passcode")
        #expect(
            json.credentials?.objectValue?["user"] == .string("alice")
                && json.credentials?.objectValue?["password"] == .string("(hidden)"))

        // onboard again without --force is refused; reset removes everything.
        let again = try await onboard()
        #expect(again.status == 1 && again.stderr.contains("already onboarded"), "\(again.stderr)")
        let reset = try await run(["reset", "--store", store])
        #expect(reset.status == 0)
        for path in [store, store + ".state"] { #expect(!FileManager.default.fileExists(atPath: path)) }
        #expect(try await restore(passcode: nil).status == 3)
    }

    @Test("on a terminal: the passcode asked without echo, a wrong one answered with the tries left and asked again")
    func terminal() async throws {
        #expect(try await onboard().status == 0)
        try await lock()
        // pexpect answers each question once it is asked, so the transcript shows what the
        // terminal showed: an echoed passcode would be in it.
        let result = try await Tool.run(
            Self.python(),
            [
                "-c",
                """
                import pexpect, sys
                child = pexpect.spawn(sys.argv[1], sys.argv[2:5], encoding="utf-8", timeout=30)
                child.logfile_read = sys.stdout
                child.expect("Passcode for .*: ")
                child.sendline("Wrong-passcode-1")
                child.expect("Passcode for .*: ")
                child.sendline(sys.argv[5])
                child.expect(pexpect.EOF)
                child.close()
                sys.exit(child.exitstatus)
                """, ActivateCLI.executable, "restore", "--store", store, Self.passcode,
            ])
        #expect(result.status == 0, "\(result.text) \(result.stderr)")
        #expect(result.text.contains("wrong passcode; 9 tries left"), "\(result.text)")
        #expect(result.text.contains("You will be connected to: mobile-demo.example.hana.ondemand.com"))
        #expect(
            !result.text.contains("Wrong-passcode-1") && !result.text.contains(Self.passcode), "echoed: \(result.text)")
    }

    @Test("the passcode policy is shown, applied, and names every rule a passcode breaks")
    func policy() async throws {
        let policy = try directory.write(
            "settings.json",
            Array(
                """
                {"passwordPolicy": {"passwordPolicyEnabled": "true", "passwordPolicyMinLength": "10", \
                "passwordPolicyDigitRequired": "true",
                  "passwordPolicyUpperRequired": "true", "passwordPolicyRetryLimit": "3", "passwordPolicyLockTimeout": \
                "0"},
                 "logSettings": {"logEnabled": "true", "logLevel": "DEBUG"}}
                """.utf8))
        let weak = try await onboard(["--policy", policy], passcode: "short")
        #expect(weak.status == 2)
        #expect(
            weak.stderr.contains("it needs at least 10 characters, at least one digit, at least one upper-case letter"),
            "\(weak.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))

        let malformed = try directory.write(
            "bad.json", Array(#"{"passwordPolicy": {"passwordPolicyMinLength": "eight"}}"#.utf8))
        let refused = try await onboard(["--policy", malformed])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "bad.json: passwordPolicy.passwordPolicyMinLength: not a whole number: a string \"eight\""),
            "\(refused.stderr)")

        #expect(try await onboard(["--policy", policy], passcode: "Passcode-12").status == 0)
        // Lock timeout 0: nothing is kept, every restore asks.
        #expect(try await restore(passcode: nil).status == 8, "locked, and no passcode to be had")
        let json = try await restore(["--json"], passcode: "Passcode-12")
        #expect(json.status == 0, "\(json.stderr)")

        // Retry limit 3: the tries left after each wrong passcode, the warning before the last, then the wipe.
        let first = try await restore(passcode: "Wrong-passcode-1")
        #expect(first.status == 2)
        #expect(first.stderr.contains("wrong passcode; 2 tries left"), "\(first.stderr)")
        let second = try await restore(passcode: "Wrong-passcode-2")
        #expect(
            second.stderr.contains("wrong passcode; 1 try left: one more wrong passcode deletes the store"),
            "\(second.stderr)")
        let third = try await restore(passcode: "Wrong-passcode-3")
        #expect(third.status == 6)
        #expect(
            third.stderr.contains("wrong passcode 3 times in a row: the store and everything in it was deleted"),
            "\(third.stderr)")
        #expect(third.stderr.contains("run `activate onboard` to start again"))
        #expect(!FileManager.default.fileExists(atPath: store))
        #expect(try await restore(passcode: "Passcode-12").status == 3)
    }

    @Test("the keyring keeps the unlocked store for the lock timeout; lock forgets it")
    func keyring() async throws {
        // Long enough that a loaded machine's process start-up never outlasts it between two steps.
        let policy = try directory.write(
            "settings.json", Array(#"{"passwordPolicy": {"passwordPolicyLockTimeout": "8"}}"#.utf8))
        #expect(try await onboard(["--policy", policy]).status == 0)
        #expect(try await restore(passcode: nil).status == 8, "locked, and no passcode to be had")
        #expect(try await restore(passcode: Self.passcode).status == 0)
        #expect(try await restore(passcode: nil).status == 0)
        try await lock()
        let locked = try await restore(passcode: nil)
        #expect(locked.status == 8 && locked.stdout.isEmpty)
        #expect(locked.stderr.contains("the store is locked; its passcode is needed"), "\(locked.stderr)")
        #expect(try await restore(passcode: Self.passcode).status == 0)
        try await Task.sleep(for: .seconds(9.2))
        #expect(try await restore(passcode: nil).status == 8, "locked, and no passcode to be had")
    }

    @Test("passcode change: from descriptors, policy and reuse refused, the old passcode no longer opens")
    func change() async throws {
        #expect(try await onboard().status == 0)
        try await lock()
        func change(_ current: String, _ new: String) async throws -> ActivateCLI.Result {
            try await Tool.run(
                ActivateCLI.executable,
                [
                    "passcode", "change", "--store", store, "--passcode-fd", "0", "--new-passcode-fd", "0",
                    "--work-factor", "10",
                ],
                stdin: Array("\(current)\n\(new)\n".utf8))
        }
        let reused = try await change(Self.passcode, Self.passcode)
        #expect(reused.status == 2 && reused.stderr.contains("the new passcode is the current one"), "\(reused.stderr)")
        let weak = try await change(Self.passcode, "weak")
        #expect(weak.status == 2 && weak.stderr.contains("at least 8 characters"), "\(weak.stderr)")
        let wrong = try await change("Wrong-passcode", Self.newPasscode)
        #expect(wrong.status == 2 && wrong.stderr.contains("wrong passcode; "), "\(wrong.stderr)")
        let changed = try await change(Self.passcode, Self.newPasscode)
        #expect(changed.status == 0, "\(changed.stderr)")
        try await lock()
        #expect(try await restore(passcode: Self.passcode).status == 2)
        #expect(try await restore(passcode: Self.newPasscode).status == 0)
    }

    @Test(
        """
        kill -9 around the commit of a passcode change: afterwards exactly the old or the new passcode opens, contents \
        intact
        """
    )
    func killDuringChange() async throws {
        let credentials = try secret("credentials.json", #"{"user": "alice", "password": "pa55-word"}"#)
        #expect(try await onboard(["--credentials-file", credentials]).status == 0)
        let expected = try await restore(["--json", "--show-secrets"], passcode: Self.passcode).stdout
        try await lock()
        let current = try secret("current", Self.passcode)
        let next = try secret("next", Self.newPasscode)
        func launch(from: String, to: String) throws -> Process {
            try ActivateCLI.launch([
                "passcode", "change", "--store", store, "--passcode-file", from, "--new-passcode-file", to,
                "--work-factor", "12",
            ])
        }
        var passcodes = (old: Self.passcode, new: Self.newPasscode)
        var files = (old: current, new: next)
        /// Starts a change from the passcode in force to the other, kills it after `delay`, checks
        /// that exactly one of the two opens the intact contents, and tells which one.
        func killed(after delay: Duration) async throws -> String {
            let process = try launch(from: files.old, to: files.new)
            try await Task.sleep(for: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let old = try await restore(["--json", "--show-secrets"], passcode: passcodes.old)
            try await lock()
            let new = try await restore(["--json", "--show-secrets"], passcode: passcodes.new)
            try await lock()
            #expect(
                (old.status == 0) != (new.status == 0),
                "killed after \(delay): old \(old.status) \(old.stderr) new \(new.status) \(new.stderr)")
            let opened = old.status == 0 ? old : new
            #expect(opened.stdout == expected, "killed after \(delay): the contents changed")
            guard new.status == 0 else { return "old" }
            passcodes = (old: passcodes.new, new: passcodes.old)
            files = (old: files.new, new: files.old)
            return "new"
        }
        let outcomes = try await CommitPointSearch.outcomes(steps: 30, killed: killed(after:))
        #expect((outcomes["old"] ?? 0) > 0 && (outcomes["new"] ?? 0) > 0, "\(outcomes)")
    }

    @Test("a store made by activate decrypts with age -d and pyrage to the documented plaintext")
    func ageDecrypts() async throws {
        let credentials = try secret("credentials.json", #"{"user": "alice", "password": "pa55-word"}"#)
        #expect(try await onboard(["--credentials-file", credentials]).status == 0)
        let output = directory.file("plain.json")
        let decrypted = try await age(["-d", "-o", output, store], typing: [Self.passcode])
        #expect(decrypted.status == 0, "\(decrypted.text) \(decrypted.stderr)")
        let plaintext =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        #expect(plaintext?["format"] as? String == "activate-secure-store")
        #expect(plaintext?["version"] as? Int == 1)
        #expect(plaintext?["protection"] as? String == "passcode")
        #expect((plaintext?["credentials"] as? [String: String]) == ["user": "alice", "password": "pa55-word"])
        #expect(
            ((plaintext?["configuration"] as? [String: Any])?["document"] as? [String: Any])?["host"] as? String
                == "mobile-demo.example.hana.ondemand.com")
        let wrong = try await age(["-d", "-o", directory.file("x"), store], typing: ["Wrong-passcode"])
        #expect(wrong.status != 0)

        let python = try await Tool.run(
            Self.python(),
            [
                "-c",
                """
                import pyrage, sys
                sys.stdout.buffer.write(pyrage.passphrase.decrypt(open(sys.argv[1], 'rb').read(), sys.argv[2]))
                """, store, Self.passcode,
            ])
        #expect(python.status == 0, "\(python.stderr)")
        #expect(python.stdout == Array(try Data(contentsOf: URL(fileURLWithPath: output))))
    }

    @Test("the documented plaintext encrypted by age -p and by pyrage opens with activate restore")
    func ageEncrypts() async throws {
        #expect(try await onboard().status == 0)
        var plaintext = try await run(["restore", "--json", "--store", store], passcode: Self.passcode)
        #expect(plaintext.status == 0)
        let decrypted = try await age(["-d", "-o", directory.file("plain.json"), store], typing: [Self.passcode])
        #expect(decrypted.status == 0)
        try await lock()
        // Written by age -p (scrypt at age's own work factor) over the store, its state file kept:
        // a header activate did not write opens with the right passcode.
        try FileManager.default.removeItem(atPath: store)
        let encrypted = try await age(
            ["-p", "-o", store, directory.file("plain.json")], typing: [Self.newPasscode, Self.newPasscode])
        #expect(encrypted.status == 0, "\(encrypted.text)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store)
        let restored = try await restore(["--json"], passcode: Self.newPasscode)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout == plaintext.stdout)
        try await lock()

        // Written by pyrage (the Rust implementation), as a new store without a state file.
        try FileManager.default.removeItem(atPath: store)
        try FileManager.default.removeItem(atPath: store + ".state")
        let python = try await Tool.run(
            Self.python(),
            [
                "-c",
                """
                import os, pyrage, sys
                data = pyrage.passphrase.encrypt(open(sys.argv[1], 'rb').read(), sys.argv[2])
                fd = os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                os.write(fd, data)
                os.close(fd)
                """, directory.file("plain.json"), Self.passcode, store,
            ])
        #expect(python.status == 0, "\(python.stderr)")
        plaintext = try await restore(["--json"], passcode: Self.passcode)
        #expect(plaintext.status == 0, "\(plaintext.stderr)")
        #expect(plaintext.stdout == restored.stdout)
    }

    @Test("a plaintext store of an earlier version moves into the secure store on restore, the user told")
    func migration() async throws {
        let home = directory.file("home")
        let onboarded = try await run(
            ["onboard", "--file", configuration, "--yes", "--no-sign-in", "--work-factor", "10"],
            passcode: Self.passcode,
            environment: ["XDG_CONFIG_HOME": home])
        #expect(onboarded.status == 0)
        let expected = try await run(
            ["restore", "--json"], passcode: Self.passcode, environment: ["XDG_CONFIG_HOME": home]
        ).stdout
        // The plaintext form of earlier versions, where they kept it.
        let decrypted = try await age(
            ["-d", "-o", directory.file("plain.json"), "\(home)/activate/store.age"], typing: [Self.passcode])
        #expect(decrypted.status == 0)
        let contents =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("plain.json"))))
            as? [String: Any]
        let record = try JSONSerialization.data(withJSONObject: try #require(contents?["configuration"]))
        _ = try await run(["reset"], environment: ["XDG_CONFIG_HOME": home])
        let legacy = "\(home)/activate/configuration.json"
        #expect(
            FileManager.default.createFile(atPath: legacy, contents: record, attributes: [.posixPermissions: 0o600]))

        let migrated = try await run(
            ["restore", "--json", "--work-factor", "10"], passcode: Self.newPasscode,
            environment: ["XDG_CONFIG_HOME": home])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(
            migrated.stderr.contains(
                "A plaintext configuration of an earlier version is at \(legacy); it moves into the secure store"))
        #expect(migrated.stderr.contains("the plaintext file is removed"))
        #expect(!FileManager.default.fileExists(atPath: legacy))
        let report = try JSONDecoder().decode(RestoreReport.self, from: Data(migrated.stdout))
        let before = try JSONDecoder().decode(RestoreReport.self, from: Data(expected))
        #expect(report.document == before.document && report.storedAt == before.storedAt)
        _ = try await run(["lock"], environment: ["XDG_CONFIG_HOME": home])
        #expect(
            try await run(["restore"], passcode: Self.newPasscode, environment: ["XDG_CONFIG_HOME": home]).status == 0)
        _ = try await run(["reset"], environment: ["XDG_CONFIG_HOME": home])
    }

    @Test("--no-passcode only where the policy allows it, and restore says so plainly")
    func noPasscode() async throws {
        let strict = try await onboard(["--no-passcode"], passcode: nil)
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("the passcode policy requires a passcode"), "\(strict.stderr)")
        let policy = try directory.write(
            "settings.json", Array(#"{"passwordPolicy": {"passwordPolicyDefaultPasswordAllowed": "true"}}"#.utf8))
        let allowed = try await onboard(["--no-passcode", "--policy", policy], passcode: nil)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("a device secret only"))
        let restored = try await restore(passcode: nil)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(
            restored.stderr.contains(
                "this store is protected by a device secret only, not a passcode: the passcode policy allows that"))
    }

    @Test("a damaged store is refused with a clear error, counts no try, and is left as it was")
    func damaged() async throws {
        #expect(try await onboard().status == 0)
        try await lock()
        let original = try Data(contentsOf: URL(fileURLWithPath: store))
        for index in [0, 30, 60, 100, original.count / 2, original.count - 1] {
            var copy = original
            copy[index] ^= 0x01
            try copy.write(to: URL(fileURLWithPath: store))
            let result = try await restore(passcode: Self.passcode)
            // 1: damaged; 2: a changed header, where a wrong passcode and damage look alike (not counted).
            #expect([1, 2].contains(result.status), "byte \(index): \(result.stderr)")
            #expect(result.stderr.contains("damaged"), "byte \(index): \(result.stderr)")
            #expect(!result.stderr.contains("tries left"), "byte \(index): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == copy)
        }
        try original.write(to: URL(fileURLWithPath: store))
        #expect(try await restore(passcode: Self.passcode).status == 0)
    }

    @Test("reset refuses any file that onboarding did not make, by name, exit 1, and leaves it as it was")
    func resetRefusesOtherFiles() async throws {
        for (name, text) in [("notes.txt", "all my notes\n"), ("package.json", #"{"name": "app"}"#)] {
            let path = try directory.write(name, Array(text.utf8))
            let result = try await run(["reset", "--store", path])
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("activate: \(path): is not a secure store"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was removed"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(text.utf8))
        }
    }
}
