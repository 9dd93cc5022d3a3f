import ActivationConfiguration
import Logging
import SQLKit

/// Where a discovery service keeps its state: one query layer (sql-kit) over the database kinds
/// the service runs on. Every query is written once against `any SQLDatabase`; a database only
/// lends a connection, pinned for the length of a transaction.
package protocol DiscoveryDatabase: Sendable {
    /// The SQL dialect's name: `sqlite` or `postgresql`.
    var dialect: String { get }
    /// Runs `body` on a connection of its own (statements commit one by one).
    func withConnection<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func withTransaction<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R
    /// Throws when the database cannot take a write now: a read-only SQLite file (or one another
    /// process keeps locked), a PostgreSQL server in read-only mode (a standby).
    func probeWrites() async throws
    /// Closes every connection.
    func close() async throws
}

/// `BEGIN` (or `begin`) … `COMMIT` on one pinned connection; `ROLLBACK` and the original error
/// when `body` throws. sql-kit has no transaction call of its own.
func runInTransaction<R: Sendable>(
    _ database: any SQLDatabase, begin: SQLQueryString = "BEGIN",
    _ body: @Sendable (any SQLDatabase) async throws -> R
) async throws -> R {
    try await database.raw(begin).run()
    do {
        let result = try await body(database)
        try await database.raw("COMMIT").run()
        return result
    } catch {
        try? await database.raw("ROLLBACK").run()
        throw error
    }
}

/// Opening the database a URL names (`activate serve --database`).
package enum DiscoveryDatabaseURL {
    /// Opens `sqlite:PATH` or `postgres://user[:password]@host[:port]/db` (the password, when not in
    /// the URL, is `password`) and brings its schema up to date.
    ///
    /// - Throws: ``DiscoveryServiceError``: `invalidDatabaseURL` for another scheme; the database's
    ///   own errors naming it (never with its password); `schemaTooNew`.
    package static func open(_ url: String, password: String?, logger: Logger) async throws -> any DiscoveryDatabase {
        let database: any DiscoveryDatabase
        let shown: String
        if url.hasPrefix("sqlite:") {
            let path = String(url.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw DiscoveryServiceError(.invalidDatabaseURL, source: url, "expected sqlite:PATH")
            }
            database = try await SQLiteDiscoveryDatabase.open(path: path, logger: logger)
            shown = path
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            let postgres = try await PostgresDiscoveryDatabase.open(url: url, password: password, logger: logger)
            database = postgres
            shown = postgres.shown
        } else {
            throw DiscoveryServiceError(
                .invalidDatabaseURL, source: UntrustedText.escaped(url, maxCharacters: 200),
                "expected sqlite:PATH, postgres://user@host/db or none")
        }
        do {
            try await migrateWaiting(database, source: shown)
        } catch let error as DiscoveryServiceError {
            try? await database.close()
            throw error
        } catch {
            // Checking the schema takes a write: a read-only file or server fails here, at start.
            try? await database.close()
            throw DiscoveryServiceError(
                database.dialect == "sqlite" ? .databaseUnwritable : .databaseUnavailable, source: shown,
                "cannot check the database's schema: \(error)")
        }
        return database
    }

    /// How long the start waits for the pool's first connection: no request waits on it, and a
    /// loaded machine (or a server still starting) can take longer than a request's lease.
    static let startWait: Duration = .seconds(30)

    /// The schema brought up to date; a pool that lends no connection within a request's lease is
    /// asked again until ``startWait`` has passed.
    static func migrateWaiting(_ database: any DiscoveryDatabase, source: String) async throws {
        let deadline = ContinuousClock.now + startWait
        while true {
            do {
                try await DiscoverySchema.migrate(database, source: source)
                return
            } catch is DatabaseUnavailable where ContinuousClock.now < deadline {
                continue
            }
        }
    }
}
