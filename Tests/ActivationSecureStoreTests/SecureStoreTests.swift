import ActivationConfiguration
import Foundation
import TestSupport
import Testing

@testable import ActivationSecureStore

/// A fresh folder for one test's store, removed afterwards (the store locked first).
final class StoreFolder {
    let folder: TemporaryFolder
    let location: SecureStoreLocation
    var path: String { folder.path }

    init() throws {
        folder = try TemporaryFolder(prefix: "activate-store")
        location = SecureStoreLocation(path: folder.file("store.age"))
    }

    deinit { SecureStore.lock(at: location) }

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
}

/// Policies for tests: SAP's defaults with the given passcode-policy fields, in SAP's string form.
func policies(_ fields: [String: String], blockWiping: [String: String] = [:]) throws -> ClientPolicies {
    func object(_ fields: [String: String]) -> ConfigurationValue {
        .object(ConfigurationObject(fields.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    }
    return try ClientPolicies(
        from: .object(["passwordPolicy": object(fields), "blockWipingPolicy": object(blockWiping)]), source: "test")
}

@Suite("The secure store: create, open, change, lock, delete, and the client policies applied", .serialized)
struct SecureStoreTests {
    static let passcode = Passcode("Tr0ub4dor&3")
    // Fast KDF for tests; bench-store measures the real one.
    static let factor = 4

    func make(
        _ folder: StoreFolder, _ policies: ClientPolicies = .default, passcode: Passcode? = SecureStoreTests.passcode
    ) throws -> SecureStore {
        var contents = SecureStoreContents(clientPolicies: policies)
        contents.credentials = StoredCredentials(user: "alice", password: "s3cret")
        return try SecureStore.create(
            at: folder.location, contents: contents, passcode: passcode, workFactor: Self.factor)
    }

    func open(
        _ folder: StoreFolder, _ passcode: Passcode?, keyring: Bool = false, now: Date = Date(),
        allowExpired: Bool = false
    ) throws -> SecureStore? {
        try SecureStore.open(
            at: folder.location, passcode: passcode,
            options: .init(useKeyring: keyring, allowExpiredPasscode: allowExpired, now: now))
    }

    /// Runs `body` and expects it to throw an error with `code` (a `SecureStoreError`'s, or a
    /// `ConfigurationError`'s file code: the store's files are read and written through FileIO)
    /// whose reason contains `text`.
    func expectError<Failure: LocatedError, T>(
        _ type: Failure.Type, _ code: Failure.Code, containing text: String = "", _ body: () throws -> T
    ) {
        do {
            _ = try body()
            Issue.record("no error; expected \(code)")
        } catch let error as Failure {
            #expect(error.code == code, "\(error.reason)")
            #expect(text.isEmpty || error.reason.contains(text), "\(error.reason)")
        } catch {
            Issue.record("expected \(Failure.self) \(code), got \(error)")
        }
    }

    /// The same, for the store's own errors.
    func expectError<T>(_ code: SecureStoreError.Code, containing text: String = "", _ body: () throws -> T) {
        expectError(SecureStoreError.self, code, containing: text, body)
    }

    @Test("create, open, save values, change the passcode, delete")
    func lifecycle() throws {
        let folder = try StoreFolder()
        #expect(try open(folder, Self.passcode) == nil)
        var store = try make(folder)
        let modes = try [folder.location.path, folder.location.statePath].map {
            try FileManager.default.attributesOfItem(atPath: $0)[.posixPermissions] as? Int
        }
        #expect(modes == [0o600, 0o600])
        #expect(
            String(decoding: try folder.bytes(folder.location.path).prefix(21), as: UTF8.self)
                == "age-encryption.org/v1")
        // The credentials are nowhere in the file.
        #expect(!String(decoding: try folder.bytes(folder.location.path), as: UTF8.self).contains("s3cret"))

        try store.setValue(["a": 1, "b": 2], forKey: "counts")
        try store.setValue("dark", forKey: "theme")
        try store.save()
        var opened = try #require(try open(folder, Self.passcode))
        #expect(opened.unlockedWith == .passcode)
        #expect(try opened.value([String: Int].self, forKey: "counts") == ["a": 1, "b": 2])
        #expect(try opened.value(String.self, forKey: "theme") == "dark")
        #expect(try opened.value(String.self, forKey: "missing") == nil)
        #expect(opened.contents.credentials == StoredCredentials(user: "alice", password: "s3cret"))
        #expect(opened.contents.credentials.description == "user alice, password (set)")

        let newPasscode = Passcode("n3w-Passcode")
        try opened.changePasscode(to: newPasscode, workFactor: Self.factor)
        expectError(.wrongPasscode) { try open(folder, Self.passcode) }
        #expect(try open(folder, newPasscode)?.value(String.self, forKey: "theme") == "dark")
        expectError(.passcodeRejected, containing: "the new passcode is the current one") {
            var again = try #require(try open(folder, newPasscode))
            try again.changePasscode(to: newPasscode, workFactor: Self.factor)
        }
        expectError(.passcodeRejected, containing: "at least 8 characters") {
            try opened.changePasscode(to: Passcode("short"), workFactor: Self.factor)
        }

        #expect(try SecureStore.delete(at: folder.location))
        #expect(!FileManager.default.fileExists(atPath: folder.location.path))
        #expect(!FileManager.default.fileExists(atPath: folder.location.statePath))
        #expect(try !SecureStore.delete(at: folder.location))
        #expect(try open(folder, newPasscode) == nil)
    }

    @Test("a store is not silently replaced; a passcode that breaks the policy names every rule")
    func creation() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        expectError(.storeExists) { try make(folder) }
        let strict = try policies([
            "passwordPolicyMinLength": "12", "passwordPolicyDigitRequired": "true",
            "passwordPolicySpecialRequired": "true",
        ])
        let other = try StoreFolder()
        expectError(
            .passcodeRejected,
            containing:
                """
                it needs at least 12 characters, at least one digit, at least one character that is not a letter or \
                digit
                """
        ) {
            try make(other, strict, passcode: Passcode("abcdefgh"))
        }
        expectError(.passcodeRejected, containing: "requires a passcode") { try make(other, .default, passcode: nil) }
        #expect(!FileManager.default.fileExists(atPath: other.location.path))
        // A mistyped store path removes nothing that is not a store.
        let notes = SecureStoreLocation(path: "\(other.path)/notes.txt")
        #expect(FileManager.default.createFile(atPath: notes.path, contents: Data("keep".utf8)))
        expectError(.notAStore, containing: "is not a secure store") { try SecureStore.delete(at: notes) }
        #expect(FileManager.default.contents(atPath: notes.path) == Data("keep".utf8))
    }

    @Test("wrong passcodes are counted, the tries left said, and the store deleted at the limit")
    func retryLimit() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyRetryLimit": "3"]))
        expectError(.wrongPasscode, containing: "wrong passcode; 2 tries left") {
            try open(folder, Passcode("wrong-one"))
        }
        #expect(try SecureStore.status(at: folder.location)?.triesLeft == 2)
        // The right passcode clears the count.
        #expect(try open(folder, Self.passcode) != nil)
        #expect(try SecureStore.status(at: folder.location)?.failedAttempts == 0)
        expectError(.wrongPasscode, containing: "2 tries left") { try open(folder, Passcode("wrong-one")) }
        expectError(.wrongPasscode, containing: "1 try left: one more wrong passcode deletes the store") {
            try open(folder, Passcode("wrong-two"))
        }
        expectError(.passcodeRequired, containing: "its passcode is needed; 1 try left") { try open(folder, nil) }
        expectError(.storeWiped, containing: "wrong passcode 3 times in a row") {
            try open(folder, Passcode("wrong-three"))
        }
        for path in [folder.location.path, folder.location.statePath] {
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        #expect(try open(folder, Self.passcode) == nil)
    }

    @Test("no retry limit: wrong passcodes never delete the store")
    func noRetryLimit() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyRetryLimit": "0"]))
        for _ in 0..<12 { expectError(.wrongPasscode) { try open(folder, Passcode("wrong-one")) } }
        #expect(try open(folder, Self.passcode) != nil)
    }

    @Test("the keyring keeps the key for the lock timeout; lock forgets it")
    func keyring() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyLockTimeout": "2"]))
        expectError(.passcodeRequired) { try open(folder, nil, keyring: true) }
        #expect(try open(folder, Self.passcode, keyring: true)?.unlockedWith == .passcode)
        #expect(try SecureStore.status(at: folder.location)?.isUnlocked == true)
        #expect(try open(folder, nil, keyring: true)?.unlockedWith == .cachedKey)
        // A wrong passcode is not even tried while the key is kept.
        #expect(try open(folder, Passcode("wrong-one"), keyring: true)?.unlockedWith == .cachedKey)
        #expect(SecureStore.lock(at: folder.location))
        expectError(.passcodeRequired) { try open(folder, nil, keyring: true) }

        // The kernel forgets the key once the timeout passes without use.
        #expect(try open(folder, Self.passcode, keyring: true) != nil)
        Thread.sleep(forTimeInterval: 3.2)
        expectError(.passcodeRequired) { try open(folder, nil, keyring: true) }
    }

    @Test("a lock timeout of 0 keeps nothing")
    func noKeyring() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyLockTimeout": "0"]))
        #expect(try open(folder, Self.passcode, keyring: true) != nil)
        expectError(.passcodeRequired) { try open(folder, nil, keyring: true) }
    }

    @Test("without a passcode only where the policy allows it: the device secret opens it")
    func deviceSecret() throws {
        let folder = try StoreFolder()
        var store = try make(folder, try policies(["passwordPolicyDefaultPasswordAllowed": "true"]), passcode: nil)
        #expect(store.contents.protection == .deviceSecret)
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder.location.deviceSecretPath)[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
        #expect(try open(folder, nil)?.unlockedWith == .deviceSecret)
        // The secret is the age passphrase.
        let secret = try folder.bytes(folder.location.deviceSecretPath).dropLast()
        let header = try AgeFormat.header(of: try folder.bytes(folder.location.path), source: "t")
        #expect(try AgeFormat.unwrapFileKey(header, passphrase: Array(secret)) != nil)
        // Giving it a passcode makes it a passcode store and removes the secret.
        try store.changePasscode(to: Self.passcode, workFactor: Self.factor)
        #expect(!FileManager.default.fileExists(atPath: folder.location.deviceSecretPath))
        expectError(.passcodeRequired) { try open(folder, nil) }
        #expect(try open(folder, Self.passcode)?.contents.protection == .passcode)
    }

    @Test("an expired passcode must be changed before the store opens")
    func expiry() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyExpiresInNDays": "30"]))
        let later = Date().addingTimeInterval(31 * 86_400)
        #expect(try open(folder, Self.passcode, now: Date().addingTimeInterval(29 * 86_400)) != nil)
        expectError(.passcodeExpired, containing: "the passcode was set 31 days ago") {
            try open(folder, Self.passcode, now: later)
        }
        var store = try #require(try open(folder, Self.passcode, now: later, allowExpired: true))
        try store.changePasscode(to: Passcode("an0ther-Passcode"), workFactor: Self.factor, now: later)
        #expect(try open(folder, Passcode("an0ther-Passcode"), now: later) != nil)
    }

    @Test("block and wipe after days without contact with the server")
    func blockAndWipe() throws {
        let folder = try StoreFolder()
        var store = try make(
            folder,
            try policies(
                [:],
                blockWiping: [
                    "blockWipeEnabled": "true", "blockDisconnectedPeriod": "7", "wipeDisconnectedPeriod": "30",
                ]))
        let contact = Date()
        try store.recordServerContact(at: contact)
        #expect(try open(folder, Self.passcode, now: contact.addingTimeInterval(6 * 86_400)) != nil)
        expectError(.storeBlocked, containing: "no contact with the server for 8 days") {
            try open(folder, Self.passcode, now: contact.addingTimeInterval(8 * 86_400))
        }
        #expect(FileManager.default.fileExists(atPath: folder.location.path))
        expectError(.storeWiped, containing: "no contact with the server for 31 days") {
            try open(folder, Self.passcode, now: contact.addingTimeInterval(31 * 86_400))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.location.path))
    }

    @Test("a blocked store opens for a server contact only when asked, and a recorded contact unblocks it")
    func blockedUntilContact() throws {
        let folder = try StoreFolder()
        var store = try make(
            folder,
            try policies(
                [:],
                blockWiping: [
                    "blockWipeEnabled": "true", "blockDisconnectedPeriod": "7", "wipeDisconnectedPeriod": "30",
                ]))
        let contact = Date().addingTimeInterval(-8 * 86_400)
        try store.recordServerContact(at: contact)
        expectError(.storeBlocked) { try open(folder, Self.passcode) }
        var blocked = try #require(
            try SecureStore.open(
                at: folder.location, passcode: Self.passcode, options: .init(useKeyring: false, allowBlocked: true)))
        #expect(blocked.isBlocked())
        try blocked.recordServerContact()
        #expect(!blocked.isBlocked())
        #expect(try open(folder, Self.passcode) != nil)
        // The wipe period holds even for an opener that allows blocking.
        try blocked.recordServerContact(at: Date().addingTimeInterval(-31 * 86_400))
        expectError(.storeWiped) {
            try SecureStore.open(
                at: folder.location, passcode: Self.passcode, options: .init(useKeyring: false, allowBlocked: true))
        }
    }

    @Test("new client policies saved into the store govern the next unlock: the state beside it follows them")
    func policiesChangeOnSave() throws {
        let folder = try StoreFolder()
        var store = try make(folder, try policies(["passwordPolicyRetryLimit": "5"]))
        store.contents.clientPolicies = try policies(["passwordPolicyRetryLimit": "2"])
        try store.save()
        expectError(.wrongPasscode, containing: "1 try left: one more wrong passcode deletes the store") {
            try open(folder, Passcode("Wrong-passcode"))
        }
        expectError(.storeWiped) { try open(folder, Passcode("Wrong-passcode")) }
    }

    @Test("every byte flipped and every length cut is refused, counts no try, and leaves the file as it was")
    func damage() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        let original = try folder.bytes(folder.location.path)
        let state = try folder.bytes(folder.location.statePath)
        let url = URL(fileURLWithPath: folder.location.path)
        var variants: [[UInt8]] = (0..<original.count).map { index in
            var copy = original
            copy[index] ^= 0x20
            return copy
        }
        variants += stride(from: 0, to: original.count, by: 7).map { Array(original.prefix($0)) }
        for variant in variants {
            try Data(variant).write(to: url)
            do {
                _ = try open(folder, Self.passcode)
                Issue.record("a damaged store opened")
            } catch let error as SecureStoreError {
                // A changed header cannot tell a wrong passcode from damage: refused, and not counted.
                // Without its first line and scrypt stanza the file is no store at all (so no reset
                // removes it either).
                let noStore = !AgeFormat.startsLikeScryptFile(variant)
                #expect(
                    noStore
                        ? error.code == .notAStore && error.message.hasPrefix("is not a secure store")
                        : error.code == .storeDamaged
                            || (error.code == .wrongPasscode && error.message.contains("this try is not counted")),
                    "\(error.reason)")
            }
            #expect(try folder.bytes(folder.location.path) == variant)
            #expect(try folder.bytes(folder.location.statePath) == state)
        }
        try Data(original).write(to: url)
        #expect(try open(folder, Self.passcode) != nil)
    }

    @Test("a store written by age -p without a state file opens, and gets one")
    func foreignStore() throws {
        let folder = try StoreFolder()
        let key = AgeFormat.makeFileKey()
        let plaintext = Array(#"{"format": "activate-secure-store", "version": 1, "values": {"k": "v"}}"#.utf8)
        let file =
            try AgeFormat.makeHeader(fileKey: key, passphrase: Self.passcode.bytes, workFactor: Self.factor).bytes
            + (try AgeFormat.encryptPayload(plaintext, fileKey: key))
        try Data(file).write(to: URL(fileURLWithPath: folder.location.path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.location.path)
        let store = try #require(try open(folder, Self.passcode))
        #expect(try store.value(String.self, forKey: "k") == "v")
        #expect(store.contents.clientPolicies == .default)
        #expect(FileManager.default.fileExists(atPath: folder.location.statePath))
    }

    @Test("two openers: the second write is refused, not lost; a store too large to read back is never written")
    func concurrentAndLimits() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        var first = try #require(try open(folder, Self.passcode))
        var second = try #require(try open(folder, Self.passcode))
        try first.setValue("one", forKey: "k")
        try first.save()
        try second.setValue("two", forKey: "k")
        expectError(.storeChanged, containing: "another process changed the store since it was opened") {
            try second.save()
        }
        expectError(.storeChanged) {
            try second.changePasscode(to: Passcode("an0ther-Passcode"), workFactor: Self.factor)
        }
        #expect(try open(folder, Self.passcode)?.value(String.self, forKey: "k") == "one")
        // Saving twice from one value is fine: it knows what it wrote.
        try first.setValue("three", forKey: "k")
        try first.save()
        #expect(try open(folder, Self.passcode)?.value(String.self, forKey: "k") == "three")

        let before = try folder.bytes(folder.location.path)
        // Each value is within the cap; together they are not.
        try first.setValue(String(repeating: "x", count: SecureStoreContents.maxPlaintextBytes * 2 / 3), forKey: "big1")
        try first.setValue(String(repeating: "y", count: SecureStoreContents.maxPlaintextBytes * 2 / 3), forKey: "big2")
        expectError(.contentsTooLarge, containing: "nothing was written") { try first.save() }
        #expect(try folder.bytes(folder.location.path) == before)
    }

    @Test("a passcode change seals under a new file key and replaces the kept key")
    func newKeyOnChange() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        var store = try #require(try open(folder, Self.passcode, keyring: true))
        let oldKey = store.fileKey
        try store.changePasscode(to: Passcode("n3w-Passcode"), workFactor: Self.factor)
        #expect(store.fileKey != oldKey)
        let header = try AgeFormat.header(of: try folder.bytes(folder.location.path), source: "t")
        #expect(!AgeFormat.verify(header, fileKey: oldKey))
        #expect(try open(folder, nil, keyring: true)?.unlockedWith == .cachedKey)
    }

    @Test(
        """
        interrupted first passcode: a device-secret store whose state already says passcode still opens with its secret
        """
    )
    func interruptedFirstPasscode() throws {
        let folder = try StoreFolder()
        _ = try make(folder, try policies(["passwordPolicyDefaultPasswordAllowed": "true"]), passcode: nil)
        // The state as the first step of the change leaves it: both headers accepted, protection passcode.
        var state = try #require(try StoreFiles.readState(folder.location))
        state.protection = .passcode
        state.headerDigests.append(String(repeating: "0", count: 64))
        try StoreFiles.writeState(state, at: folder.location)
        #expect(try open(folder, nil)?.unlockedWith == .deviceSecret)
    }

    @Test("Enter alone, and a policy that is not enabled")
    func emptyAndDisabled() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        expectError(.passcodeRequired) { try open(folder, Passcode("")) }
        #expect(try SecureStore.status(at: folder.location)?.failedAttempts == 0)
        let disabled = try policies(["passwordPolicyEnabled": "false"])
        #expect(disabled.passcode.validate("a") == [])
        #expect(disabled.passcode.allowsNoPasscode)
    }

    @Test(
        """
        the plaintext survives its own writer: a whole number written 44e3 is the integer 44000, times are whole seconds
        """
    )
    func plaintextRoundTrip() throws {
        let text =
            #"""
            {"format": "activate-secure-store", "version": 1, "passcodeChangedAt": "2026-11-26T05:36:05.4Z", \#
            "values": {"a": 44e3, "b": 1.5, "c": [1, 2.0, -0.0]}}
            """#
        let contents = try SecureStoreContents(plaintext: Array(text.utf8), source: "t")
        let again = try SecureStoreContents(plaintext: contents.plaintext, source: "t")
        #expect(again == contents)
        #expect(again.plaintext == contents.plaintext)
        #expect(
            contents.values["a"] == .integer(44_000)
                && contents.values["a"]?.hashValue == ConfigurationValue.integer(44_000).hashValue)
        #expect(contents.values["b"] != .integer(1))
        #expect(contents.passcodeChangedAt == Date(timeIntervalSince1970: 1_795_671_365))
    }

    @Test("a store that others can read is refused")
    func permissions() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.location.path)
        expectError(ConfigurationError.self, .fileUnreadable, containing: "readable by other users") {
            try open(folder, Self.passcode)
        }
    }

    @Test("a store folder that is a symbolic link is refused, and the error says what to give instead")
    func linkedFolder() throws {
        let folder = try StoreFolder()
        _ = try make(folder)
        let link = folder.path + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.path)
        defer { try? FileManager.default.removeItem(atPath: link) }
        expectError(
            ConfigurationError.self,
            .fileUnwritable, containing: "the store's folder is a symbolic link; only a real folder is used"
        ) {
            try SecureStore.open(
                at: SecureStoreLocation(path: "\(link)/store.age"), passcode: Self.passcode,
                options: .init(useKeyring: false))
        }
    }

    @Test(
        """
        only what onboarding made is deleted: text, JSON and others' age files are refused by name and left as they were
        """
    )
    func deleteRefusesOtherFiles() throws {
        let folder = try StoreFolder()
        let others: [(name: String, text: String)] = [
            ("notes.txt", "a note to self\n"),
            ("package.json", #"{"name": "app", "version": "1.0.0"}"#),
            ("truncated.json", #"{"format":1,"prov"#),
            (
                "someone.age",
                """
                age-encryption.org/v1\n-> X25519 \
                SVrzdFfkPxf0LPHOUGB1gNb9E5Vr8EUDa9kxk04iQ0o\n0OrTkKHpE7klNLd0k+9Uam5hkQkzMxaqKcIPRIO1sNE\n--- \
                gxhoSa5BciRDt8lOpYNcx4EYtKpS0CJ06F3ZwN82VaM\n
                """
            ),
            (
                "armored.age",
                """
                -----BEGIN AGE ENCRYPTED FILE-----\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCg==\n-----END AGE ENCRYPTED FILE-----\n
                """
            ),
            ("agenda.txt", "age-encryption.org/v1 is the first line of an age file\n"),
        ]
        for other in others {
            let location = SecureStoreLocation(path: "\(folder.path)/\(other.name)")
            #expect(
                FileManager.default.createFile(
                    atPath: location.path, contents: Data(other.text.utf8), attributes: [.posixPermissions: 0o600]))
            // A lock beside it, as an earlier command with a mistyped path leaves one, changes nothing.
            #expect(FileManager.default.createFile(atPath: location.lockPath, contents: nil))
            #expect(!location.holdsSecureStore, "\(other.name)")
            #expect(location.plaintextStore() == nil, "\(other.name)")
            expectError(.notAStore, containing: "\(location.path): is not a secure store") {
                try SecureStore.delete(at: location)
            }
            expectError(.notAStore, containing: "\(location.path): is not a secure store") {
                try SecureStore.open(at: location, passcode: Self.passcode, options: .init(useKeyring: false))
            }
            #expect(try folder.bytes(location.path) == Array(other.text.utf8), "\(other.name) is left as it was")
        }

        // A store is known by its header, damaged or not; a plaintext store by its stored form.
        _ = try make(folder)
        var damaged = try folder.bytes(folder.location.path)
        damaged[damaged.count - 1] ^= 0x01
        try Data(damaged).write(to: URL(fileURLWithPath: folder.location.path))
        #expect(folder.location.holdsSecureStore)
        #expect(try SecureStore.delete(at: folder.location))
        #expect(!FileManager.default.fileExists(atPath: folder.location.path))
        let plaintext = SecureStoreLocation(path: "\(folder.path)/configuration.json")
        let record =
            #"""
            {"format":1,"provider":"file","origin":"x.json","storedAt":"2026-01-01T00:00:00Z","signature":{"status":\#
            "unsigned"},"document":{}}
            """#
        #expect(
            FileManager.default.createFile(
                atPath: plaintext.path, contents: Data(record.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(
            plaintext.plaintextStore()?.path == plaintext.path,
            "a damaged document inside the stored form is still ours to remove")
    }
}
