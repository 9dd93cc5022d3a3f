import ActivationConfiguration
import Foundation
import SQLKit

/// One numbered change of the schema, in the SQL of each dialect.
package struct Migration: Sendable {
    package let version: Int
    package let name: String
    package let statements: @Sendable (_ dialect: String) -> [SQLQueryString]
}

/// The schema of `discovery-service.md` ("Storage"), oldest change first. Times are BIGINT
/// milliseconds since 1970 on both dialects (a bound `Date` is REAL on SQLite but `timestamptz` on
/// PostgreSQL); code hashes are bytes.
package enum DiscoverySchema {
    package static let migrations: [Migration] = [
        Migration(version: 1, name: "applications, documents, domains, codes, audit") { dialect in
            let key =
                dialect == "sqlite"
                ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            let bytes = dialect == "sqlite" ? "BLOB" : "BYTEA"
            return [
                "CREATE TABLE applications (app_id TEXT PRIMARY KEY, created_at BIGINT NOT NULL)",
                """
                CREATE TABLE documents (app_id TEXT NOT NULL REFERENCES applications (app_id), name TEXT NOT NULL,
                  json TEXT NOT NULL, sha256 TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, name))
                """,
                """
                CREATE TABLE domains (app_id TEXT NOT NULL, domain TEXT NOT NULL, document TEXT NOT NULL,
                  PRIMARY KEY (app_id, domain), FOREIGN KEY (app_id, document) REFERENCES documents (app_id, name))
                """,
                """
                CREATE TABLE codes (id \(unsafeRaw: key), app_id TEXT NOT NULL, \
                code_hash \(unsafeRaw: bytes) NOT NULL UNIQUE,
                  document TEXT NOT NULL, label TEXT, expires_at BIGINT NOT NULL, uses_left INTEGER NOT NULL,
                  created_at BIGINT NOT NULL, consumed_at BIGINT, revoked_at BIGINT,
                  FOREIGN KEY (app_id, document) REFERENCES documents (app_id, name))
                """,
                "CREATE INDEX codes_by_app ON codes (app_id, expires_at)",
                """
                CREATE TABLE audit (id \(unsafeRaw: key), at BIGINT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
                  app_id TEXT, subject_id TEXT, outcome TEXT NOT NULL)
                """,
                "CREATE INDEX audit_by_time ON audit (at)",
            ]
        },
        Migration(version: 2, name: "change counter, rate-limit buckets") { dialect in
            let real = dialect == "sqlite" ? "REAL" : "DOUBLE PRECISION"
            var statements: [SQLQueryString] = [
                // Bumped by every change of documents or domains: instances poll it to drop their cache.
                "CREATE TABLE changes (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL)",
                "INSERT INTO changes (id, version) VALUES (1, 0)",
                // Token buckets of failed code lookups, shared by every instance.
                """
                CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens \(unsafeRaw: real) NOT NULL, \
                updated_at BIGINT NOT NULL)
                """,
            ]
            if dialect == "postgresql" {
                // Room on each page, so that using a code (which changes no indexed column) is a
                // heap-only update: no new entries in the index of the application's codes, where
                // a batch's entries all share one key and concurrent updates would queue on one page.
                statements.append("ALTER TABLE codes SET (fillfactor = 70)")
            }
            return statements
        },
        Migration(version: 3, name: "client policies") { _ in
            [
                // An application's settingsExchange document, as checked and served.
                """
                CREATE TABLE settings (app_id TEXT PRIMARY KEY REFERENCES applications (app_id), json TEXT NOT NULL,
                  sha256 TEXT NOT NULL, updated_at BIGINT NOT NULL)
                """
            ]
        },
    ]

    /// Brings `database` to the newest schema in one transaction (several instances may start at
    /// once: PostgreSQL serialises them with an advisory lock, SQLite with `BEGIN IMMEDIATE`), and
    /// records each change in `schema_migrations`. Returns the version found and those applied.
    ///
    /// - Throws: ``DiscoveryServiceError`` (`schemaTooNew`) when the database has a newer schema
    ///   than this build knows: an older instance must not write into it.
    @discardableResult
    package static func migrate(
        _ database: any DiscoveryDatabase, source: String,
        migrations: [Migration] = migrations
    ) async throws -> (found: Int, applied: [Int]) {
        let dialect = database.dialect
        return try await database.withTransaction { sql in
            if dialect == "postgresql" {
                try await sql.raw("SELECT pg_advisory_xact_lock(\(literal: 0x6163_7469))").run()
            }
            try await sql.raw(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations \
                (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)
                """
            ).run()
            let found =
                try await sql.raw("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations").first()?
                .decode(column: "version", as: Int.self) ?? 0
            let known = migrations.map(\.version).max() ?? 0
            guard found <= known else {
                throw DiscoveryServiceError(
                    .schemaTooNew, source: source,
                    """
                    the database has schema version \(found); \
                    this activate knows versions up to \(known), so a newer activate made it
                    """
                )
            }
            var applied: [Int] = []
            for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > found {
                for statement in migration.statements(dialect) { try await sql.raw(statement).run() }
                try await sql.raw(
                    """
                    INSERT INTO schema_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: Milliseconds.now()))
                    """
                ).run()
                applied.append(migration.version)
            }
            return (found, applied)
        }
    }
}

/// Times as the database keeps them: milliseconds since 1970.
package enum Milliseconds {
    package static func now() -> Int64 { from(Date()) }
    package static func from(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    package static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
