import ActivationConfiguration
import ActivationDiscoveryServer
import Foundation
import TestSupport
import Testing

@Suite("Code hashes: keyed with a server secret kept in a private file")
final class OnboardingCodeHasherTests {
    let temporary: TemporaryFolder
    var folder: String { temporary.path }

    init() throws { temporary = try TemporaryFolder(prefix: "activate-secret") }

    @Test("the secret is made at first start with mode 0600, then read back: the same code, the same hash")
    func madeThenRead() throws {
        let path = "\(folder)/secret"
        let code = try #require(OnboardingCode(typed: "ABCD-EFGH-JKMN"))
        let first = try OnboardingCodeHasher.loadOrCreate(secretFile: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try OnboardingCodeHasher.loadOrCreate(secretFile: path)
        #expect(first.hash(code) == again.hash(code))
        #expect(first.hash(code).count == 32)
        // The typed forms of one code hash alike; another code does not.
        #expect(first.hash(try #require(OnboardingCode(typed: "abcd efgh jkmn"))) == first.hash(code))
        #expect(first.hash(try #require(OnboardingCode(typed: "ABCD-EFGH-JKMP"))) != first.hash(code))
        // Another secret, other hashes: a database alone does not give the codes away.
        let other = try OnboardingCodeHasher.loadOrCreate(secretFile: "\(folder)/other")
        #expect(other.hash(code) != first.hash(code))
    }

    @Test("instances starting at once all read the one secret that was made")
    func concurrentStart() async throws {
        let path = "\(folder)/shared"
        let code = OnboardingCode.random()
        let hashes = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 { group.addTask { try OnboardingCodeHasher.loadOrCreate(secretFile: path).hash(code) } }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(hashes.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["shared"])
    }

    @Test("a secret others can read, a link, or a short or garbled secret is refused, naming the file")
    func refused() throws {
        let readable = "\(folder)/readable"
        _ = try OnboardingCodeHasher.loadOrCreate(secretFile: readable)
        #expect(chmod(readable, 0o640) == 0)
        let exposed = #expect(throws: ConfigurationError.self) {
            try OnboardingCodeHasher.loadOrCreate(secretFile: readable)
        }
        #expect(
            exposed?.reason
                == """
                \(readable): the code secret is readable by other users (mode 640), so it is no secret; fix it with \
                chmod go-rwx \(readable)
                """
        )
        #expect(chmod(readable, 0o600) == 0)
        #expect(symlink(readable, "\(folder)/link") == 0)
        let link = #expect(throws: ConfigurationError.self) {
            try OnboardingCodeHasher.loadOrCreate(secretFile: "\(folder)/link")
        }
        #expect(link?.reason.contains("is a symbolic link") == true)
        for (name, content) in [("short", "c2hvcnQ=\n"), ("garbled", "not base64 at all!\n")] {
            let path = "\(folder)/\(name)"
            try FileIO.write(Array(content.utf8), to: path, replace: false, mode: 0o600)
            let error = #expect(throws: DiscoveryServiceError.self) {
                try OnboardingCodeHasher.loadOrCreate(secretFile: path)
            }
            #expect(error?.code == .invalidSecret)
            #expect(error?.source == path)
        }
    }
}
