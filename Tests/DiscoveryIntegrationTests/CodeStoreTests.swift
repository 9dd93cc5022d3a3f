import ActivationConfiguration
import Foundation
import SQLKit
import TestSupport
import Testing

@testable import ActivationDiscoveryServer

extension ServerSuites {
    /// The database half of the discovery service, on real SQLite files and a real PostgreSQL server.
    @Suite("Code store on SQLite and PostgreSQL: migrations, exactly-once codes, 410 reasons", .serialized)
    final class CodeStoreTests {
        let temporary: TemporaryFolder
        var folder: String { temporary.path }
        static let appID = "com.example.fieldservice"
        static let json = #"{"host":"mobile.example.com","auth":[{"type":"basic.default"}]}"#
        /// The pool's wait for a connection: these tests are about the store, not about that wait,
        /// which a loaded machine can outlast (the outage tests keep the service's own).
        static let lease: Duration = .seconds(60)

        enum Backend: String, CaseIterable, Sendable { case sqlite, postgres }

        init() throws { temporary = try TemporaryFolder(prefix: "activate-store") }

        /// Runs `body` with `instances` migrated databases on one store of `backend` (two instances
        /// are two pools over one file or one server, as two service processes would have), each with
        /// one document and its code store; closes them and removes a PostgreSQL cluster afterwards.
        func withStores(
            _ backend: Backend, instances: Int = 1,
            _ body: ([(database: any DiscoveryDatabase, codes: CodeStore)]) async throws -> Void
        ) async throws {
            let server = backend == .postgres ? try PostgresServer.start() : nil
            defer { server?.stop() }
            let hasher = try OnboardingCodeHasher.loadOrCreate(secretFile: "\(folder)/secret")
            var stores: [(database: any DiscoveryDatabase, codes: CodeStore)] = []
            for _ in 0..<instances {
                let database: any DiscoveryDatabase =
                    switch backend {
                    case .sqlite: try await SQLiteDiscoveryDatabase.open(path: "\(folder)/discovery.sqlite")
                    case .postgres:
                        try await PostgresDiscoveryDatabase.open(url: try #require(server).url, lease: Self.lease)
                    }
                try await DiscoverySchema.migrate(database, source: backend.rawValue)
                try await DocumentStore(database: database).put(appID: Self.appID, name: "basic.json", json: Self.json)
                stores.append((database, CodeStore(database: database, hasher: hasher)))
            }
            do {
                try await body(stores)
            } catch {
                for store in stores { try? await store.database.close() }
                throw error
            }
            for store in stores { try await store.database.close() }
        }

        @Test("migrations run once, are recorded, and a newer schema is refused", arguments: Backend.allCases)
        func migrations(backend: Backend) async throws {
            try await withStores(backend) { stores in
                let database = stores[0].database
                let newest = try #require(DiscoverySchema.migrations.map(\.version).max())
                let again = try await DiscoverySchema.migrate(database, source: "db")
                #expect(again.found == newest && again.applied.isEmpty)
                try await database.withConnection { sql in
                    try await sql.raw(
                        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (7, 'from the future', 0)"
                    ).run()
                }
                let refused = await #expect(throws: DiscoveryServiceError.self) {
                    try await DiscoverySchema.migrate(database, source: "db")
                }
                #expect(
                    refused?.reason
                        == """
                        db: the database has schema version 7; this activate knows versions up to \(newest), so a \
                        newer activate made it
                        """
                )
            }
        }

        @Test(
            "an older schema with data is brought up to date: what it held stays, client policies can be kept",
            arguments: Backend.allCases)
        func upgrade(backend: Backend) async throws {
            let server = backend == .postgres ? try PostgresServer.start() : nil
            defer { server?.stop() }
            let database: any DiscoveryDatabase =
                switch backend {
                case .sqlite: try await SQLiteDiscoveryDatabase.open(path: "\(folder)/old.sqlite")
                case .postgres:
                    try await PostgresDiscoveryDatabase.open(url: try #require(server).url, lease: Self.lease)
                }
            let older = DiscoverySchema.migrations.filter { $0.version <= 2 }
            #expect(try await DiscoverySchema.migrate(database, source: "db", migrations: older).applied == [1, 2])
            let documents = DocumentStore(database: database)
            try await documents.put(appID: Self.appID, name: "basic.json", json: Self.json)
            let upgraded = try await DiscoverySchema.migrate(database, source: "db")
            #expect(
                upgraded.found == 2 && upgraded.applied == DiscoverySchema.migrations.map(\.version).filter { $0 > 2 })
            #expect(try await documents.json(appID: Self.appID, name: "basic.json") == Self.json)
            try await documents.putSettings(
                appID: Self.appID, json: #"{"passwordPolicy":{"passwordPolicyMinLength":"12"}}"#)
            #expect(try await documents.snapshot().settings[Self.appID]?.contains("12") == true)
            #expect(try await documents.applications().first?.settings == true)
            #expect(try await documents.deleteSettings(appID: Self.appID))
            #expect(try await documents.settings(appID: Self.appID) == nil)
            try await database.close()
        }

        @Test(
            "a one-use code is used exactly once when 40 requests race on two instances; a 3-use code 3 times of 30",
            arguments: Backend.allCases)
        func exactlyOnce(backend: Backend) async throws {
            try await withStores(backend, instances: 2) { stores in
                let (store, otherInstance) = (stores[0].codes, stores[1].codes)
                let code = OnboardingCode.random()
                _ = try await store.issue(
                    code, appID: Self.appID, document: "basic.json", label: "field tech 1", expires: Date() + 3600)
                let outcomes = try await withThrowingTaskGroup(of: CodeStore.Outcome.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            try await (index.isMultiple(of: 2) ? store : otherInstance).consume(code, appID: Self.appID)
                        }
                    }
                    return try await group.reduce(into: [CodeStore.Outcome]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == .consumed(document: "basic.json") }.count == 1)
                #expect(outcomes.filter { $0 == .used }.count == 39)
                let shared = OnboardingCode.random()
                _ = try await store.issue(
                    shared, appID: Self.appID, document: "basic.json", label: nil, uses: 3, expires: Date() + 3600)
                let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<30 {
                        group.addTask {
                            try await (index.isMultiple(of: 3) ? store : otherInstance).consume(
                                shared, appID: Self.appID) != .used
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(wins == 3)
            }
        }

        @Test(
            "410 reasons: expired, used, revoked; 404 for an unknown code or another application; typed forms match",
            arguments: Backend.allCases)
        func outcomes(backend: Backend) async throws {
            try await withStores(backend) { stores in
                let store = stores[0].codes
                let now = Date()
                let expired = OnboardingCode.random()
                let revoked = OnboardingCode.random()
                let good = OnboardingCode.random(.digits(count: 8))
                _ = try await store.issue(
                    expired, appID: Self.appID, document: "basic.json", label: nil, expires: now - 1)
                let revokedID = try await store.issue(
                    revoked, appID: Self.appID, document: "basic.json", label: nil, expires: now + 3600)
                _ = try await store.issue(
                    good, appID: Self.appID, document: "basic.json", label: nil, expires: now + 3600)
                #expect(try await store.revoke(id: revokedID, appID: Self.appID))
                #expect(try await !store.revoke(id: revokedID, appID: Self.appID))
                #expect(try await store.consume(expired, appID: Self.appID) == .expired)
                #expect(try await store.consume(revoked, appID: Self.appID) == .revoked)
                #expect(try await store.consume(OnboardingCode.random(), appID: Self.appID) == .notFound)
                #expect(try await store.consume(good, appID: "com.example.other") == .notFound)
                let typed = try #require(OnboardingCode(typed: good.grouped.replacingOccurrences(of: "-", with: " ")))
                #expect(try await store.consume(typed, appID: Self.appID) == .consumed(document: "basic.json"))
                #expect(try await store.consume(good, appID: Self.appID) == .used)
            }
        }

        @Test("PostgreSQL: a wrong password or a dead server is reported at once, the password never shown")
        func postgresRefusals() async throws {
            let server = try PostgresServer.start()
            defer { server.stop() }
            let clock = ContinuousClock()
            let start = clock.now
            let wrong = await #expect(throws: DiscoveryServiceError.self) {
                try await PostgresDiscoveryDatabase.open(url: server.urlWithoutPassword, password: "not-the-password")
            }
            #expect(wrong?.code == .databaseUnavailable)
            #expect(wrong?.reason.contains("password authentication failed") == true, "\(wrong?.reason ?? "")")
            #expect(wrong?.reason.contains("not-the-password") == false)
            // The password may come from elsewhere than the URL (the environment, a file).
            let database = try await PostgresDiscoveryDatabase.open(
                url: server.urlWithoutPassword, password: PostgresServer.password)
            try await database.close()
            server.stop()
            let dead = await #expect(throws: DiscoveryServiceError.self) {
                try await PostgresDiscoveryDatabase.open(url: server.url)
            }
            #expect(dead?.code == .databaseUnavailable)
            #expect(dead?.reason.contains(PostgresServer.password) == false)
            #expect(clock.now - start < .seconds(30))
        }

        @Test("the SQLite file holds no code: only keyed hashes")
        func onlyHashes() async throws {
            let code = OnboardingCode.random()
            var hash: [UInt8] = []
            try await withStores(.sqlite) { stores in
                _ = try await stores[0].codes.issue(
                    code, appID: Self.appID, document: "basic.json", label: "x", expires: Date() + 60)
                hash = stores[0].codes.hasher.hash(code)
            }
            let file =
                try FileIO.read("\(folder)/discovery.sqlite", limit: 1 << 24)
                + ((try? FileIO.read("\(folder)/discovery.sqlite-wal", limit: 1 << 24)) ?? [])
            let bytes = Data(file)
            #expect(bytes.range(of: Data(code.canonical.utf8)) == nil)
            #expect(bytes.range(of: Data(hash)) != nil)
        }
    }
}
