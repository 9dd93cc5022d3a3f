import ActivationConfiguration
@testable import ActivationDiscoveryServer
import Foundation
import SQLKit
import Testing

/// The database half of the discovery service on real SQLite files.
@Suite("Code store on SQLite: migrations, exactly-once codes, 410 reasons")
struct CodeStoreTests {
    let folder: String
    static let appID = "com.example.fieldservice"
    static let json = #"{"host":"mobile.example.com","auth":[{"type":"basic.default"}]}"#

    init() throws {
        folder = NSTemporaryDirectory() + "activate-store-\(UUID().uuidString)"
        try FileIO.makeDirectory(folder, mode: 0o700)
    }

    /// A migrated database in `folder` with one document, and its code store.
    func open(_ name: String = "discovery.sqlite", connections: Int = 4) async throws -> (SQLiteDiscoveryDatabase, CodeStore) {
        let database = try await SQLiteDiscoveryDatabase.open(path: "\(folder)/\(name)", connections: connections)
        try await DiscoverySchema.migrate(database, source: name)
        try await DocumentStore(database: database).put(appID: Self.appID, name: "basic.json", json: Self.json)
        return (database, CodeStore(database: database, hasher: try OnboardingCodeHasher.loadOrCreate(secretFile: "\(folder)/secret")))
    }

    @Test("migrations run once, are recorded, and a newer schema is refused")
    func migrations() async throws {
        let (database, _) = try await open()
        let again = try await DiscoverySchema.migrate(database, source: "db")
        #expect(again.found == 1 && again.applied.isEmpty)
        try await database.withConnection { sql in
            try await sql.raw("INSERT INTO schema_migrations (version, name, applied_at) VALUES (7, 'from the future', 0)").run()
        }
        let refused = await #expect(throws: ConfigurationError.self) { try await DiscoverySchema.migrate(database, source: "db") }
        #expect(refused?.reason == "db: the database has schema version 7; this activate knows versions up to 1, so a newer activate made it")
        try await database.close()
    }

    @Test("a one-use code is used exactly once when 40 requests race on 2 databases over one file")
    func exactlyOnce() async throws {
        let (first, store) = try await open()
        let (second, otherInstance) = try await open()
        let code = OnboardingCode.random()
        _ = try await store.issue(code, appID: Self.appID, document: "basic.json", label: "field tech 1", expires: Date() + 3600)
        let outcomes = try await withThrowingTaskGroup(of: CodeStore.Outcome.self) { group in
            for index in 0..<40 {
                group.addTask { try await (index.isMultiple(of: 2) ? store : otherInstance).consume(code, appID: Self.appID) }
            }
            return try await group.reduce(into: [CodeStore.Outcome]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .document(Self.json) }.count == 1)
        #expect(outcomes.filter { $0 == .used }.count == 39)
        // A code of three uses: exactly three.
        let shared = OnboardingCode.random()
        _ = try await store.issue(shared, appID: Self.appID, document: "basic.json", label: nil, uses: 3, expires: Date() + 3600)
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<30 { group.addTask { try await otherInstance.consume(shared, appID: Self.appID) != .used } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 3)
        try await first.close()
        try await second.close()
    }

    @Test("410 reasons: expired, used, revoked; 404 for an unknown code or another application; typed forms match")
    func outcomes() async throws {
        let (database, store) = try await open()
        let now = Date()
        let expired = OnboardingCode.random(), revoked = OnboardingCode.random(), good = OnboardingCode.random(.digits(count: 8))
        _ = try await store.issue(expired, appID: Self.appID, document: "basic.json", label: nil, expires: now - 1)
        let revokedID = try await store.issue(revoked, appID: Self.appID, document: "basic.json", label: nil, expires: now + 3600)
        _ = try await store.issue(good, appID: Self.appID, document: "basic.json", label: nil, expires: now + 3600)
        #expect(try await store.revoke(id: revokedID, appID: Self.appID))
        #expect(try await !store.revoke(id: revokedID, appID: Self.appID))
        #expect(try await store.consume(expired, appID: Self.appID) == .expired)
        #expect(try await store.consume(revoked, appID: Self.appID) == .revoked)
        #expect(try await store.consume(OnboardingCode.random(), appID: Self.appID) == .notFound)
        #expect(try await store.consume(good, appID: "com.example.other") == .notFound)
        let typed = try #require(OnboardingCode(typed: good.grouped.replacingOccurrences(of: "-", with: " ")))
        #expect(try await store.consume(typed, appID: Self.appID) == .document(Self.json))
        #expect(try await store.consume(good, appID: Self.appID) == .used)
        try await database.close()
    }

    @Test("the database holds no code: only keyed hashes, none equal to a plain hash of the code")
    func onlyHashes() async throws {
        let (database, store) = try await open()
        let code = OnboardingCode.random()
        _ = try await store.issue(code, appID: Self.appID, document: "basic.json", label: "x", expires: Date() + 60)
        try await database.close()
        let file = try FileIO.read("\(folder)/discovery.sqlite", limit: 1 << 24) + ((try? FileIO.read("\(folder)/discovery.sqlite-wal", limit: 1 << 24)) ?? [])
        let bytes = Data(file)
        #expect(bytes.range(of: Data(code.canonical.utf8)) == nil)
        #expect(bytes.range(of: Data(store.hasher.hash(code))) != nil)
    }
}
