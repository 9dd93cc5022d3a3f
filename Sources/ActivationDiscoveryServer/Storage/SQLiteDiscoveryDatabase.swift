import ActivationConfiguration
import Logging
import NIOCore
import NIOPosix
import SQLiteKit

/// The embedded database: one SQLite file (`--database sqlite:PATH`) in WAL mode, which several
/// processes on one machine may share.
///
/// Measured choices (sqlite-nio 1.13, SQLite 3.54): `PRAGMA busy_timeout` replaces sqlite-nio's
/// busy handler, which retries at once and forever (a CPU spin while another process writes); at
/// 1.5 s, a file another process keeps locked is answered 503 rather than waited on;
/// transactions begin `IMMEDIATE`, because a deferred one that reads and then writes fails at
/// once in WAL when another connection committed meanwhile; a connection is lent to one task at a
/// time, because statements of a second task on the same connection would join the first one's
/// transaction; and SQLite gets a thread pool of its own, larger than the connection count, so
/// that writers waiting on a lock cannot starve reads.
package final class SQLiteDiscoveryDatabase: DiscoveryDatabase {
    package var dialect: String { "sqlite" }
    private let pool: ConnectionPool
    private let threadPool: NIOThreadPool

    private init(pool: ConnectionPool, threadPool: NIOThreadPool) {
        self.pool = pool
        self.threadPool = threadPool
    }

    /// Opens `connections` connections to the file at `path` (made if missing).
    ///
    /// - Throws: ``DiscoveryServiceError`` (`databaseUnwritable`) naming the file when it cannot be
    ///   opened as a database.
    package static func open(
        path: String, connections: Int = 4, busyTimeout: Duration = .milliseconds(1500),
        logger: Logger = Logger(label: "activate.sqlite")
    ) async throws -> SQLiteDiscoveryDatabase {
        let threadPool = NIOThreadPool(numberOfThreads: connections * 2)
        threadPool.start()
        var opened: [SQLiteConnection] = []
        do {
            for _ in 0..<max(1, connections) {
                let connection = try await SQLiteConnection.open(
                    storage: .file(path: path), threadPool: threadPool, logger: logger,
                    on: MultiThreadedEventLoopGroup.singleton.any())
                opened.append(connection)
                let database = connection.sql()
                try await database.raw("PRAGMA busy_timeout = \(literal: Int(busyTimeout / .milliseconds(1)))").run()
                let mode = try await database.raw("PRAGMA journal_mode = WAL").first()?.decode(
                    column: "journal_mode", as: String.self)
                guard mode == "wal" else {
                    throw DiscoveryServiceError(
                        .databaseUnwritable, source: path, "the database cannot use write-ahead logging")
                }
                // Durable at each checkpoint, consistent always, in WAL.
                try await database.raw("PRAGMA synchronous = NORMAL").run()
                try await database.raw("PRAGMA foreign_keys = ON").run()
            }
        } catch {
            for connection in opened { try? await connection.close() }
            try? await threadPool.shutdownGracefully()
            if let error = error as? DiscoveryServiceError { throw error }
            throw DiscoveryServiceError(.databaseUnwritable, source: path, "cannot open the database: \(error)")
        }
        return SQLiteDiscoveryDatabase(pool: ConnectionPool(opened), threadPool: threadPool)
    }

    package func withConnection<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let connection = try await pool.lease()
        do {
            let result = try await body(connection.sql())
            await pool.release(connection)
            return result
        } catch {
            await pool.release(connection)
            throw error
        }
    }

    package func withTransaction<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await withConnection { database in try await runInTransaction(database, begin: "BEGIN IMMEDIATE", body) }
    }

    /// A write that changes nothing: SQLite opens a file it may not write read-only and says so
    /// only when a statement writes.
    package func probeWrites() async throws {
        try await withConnection { sql in try await sql.raw("UPDATE changes SET version = version WHERE id = 1").run() }
    }

    package func close() async throws {
        try await pool.closeAll()
        try await threadPool.shutdownGracefully()
    }

    /// Lends each connection to one task at a time.
    private actor ConnectionPool {
        private var idle: [SQLiteConnection]
        private var all: [SQLiteConnection]
        private var waiting: [CheckedContinuation<SQLiteConnection, any Error>] = []
        private var closed = false

        init(_ connections: [SQLiteConnection]) {
            idle = connections
            all = connections
        }

        func lease() async throws -> SQLiteConnection {
            if closed { throw SQLiteDiscoveryDatabaseError.closed }
            if let connection = idle.popLast() { return connection }
            return try await withCheckedThrowingContinuation { waiting.append($0) }
        }

        func release(_ connection: SQLiteConnection) {
            if waiting.isEmpty { idle.append(connection) } else { waiting.removeFirst().resume(returning: connection) }
        }

        func closeAll() async throws {
            closed = true
            for waiter in waiting { waiter.resume(throwing: SQLiteDiscoveryDatabaseError.closed) }
            waiting = []
            for connection in all { try await connection.close() }
            all = []
            idle = []
        }
    }
}

/// A connection was asked of a database that was closed.
package enum SQLiteDiscoveryDatabaseError: Error {
    case closed
}
