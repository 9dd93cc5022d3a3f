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
    /// Closes every connection.
    func close() async throws
}

/// `BEGIN` (or `begin`) … `COMMIT` on one pinned connection; `ROLLBACK` and the original error
/// when `body` throws. sql-kit has no transaction call of its own.
func runInTransaction<R: Sendable>(_ database: any SQLDatabase, begin: SQLQueryString = "BEGIN",
                                   _ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
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
