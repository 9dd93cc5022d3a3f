import ActivationConfiguration
import ActivationDiscoveryProtocol
import Crypto
import Foundation
import SQLKit

/// Applications, their configuration documents, e-mail domains and client policies in the database.
///
/// Every change bumps the `changes` counter in the same transaction, so that each instance's
/// cache of documents, domains and policies (``StoredLookups``) sees it at its next poll.
package struct DocumentStore: Sendable {
    package let database: any DiscoveryDatabase

    package init(database: any DiscoveryDatabase) {
        self.database = database
    }

    /// Creates or replaces the document `name` of `appID` (and the application, if new). `json`
    /// must already have passed the checks of `activate inspect`: this stores, it does not judge.
    package func put(appID: String, name: String, json: String, now: Date = Date()) async throws {
        let at = Milliseconds.from(now)
        let digest = Hex.encode(SHA256.hash(data: Array(json.utf8)))
        try await database.withTransaction { sql in
            try await sql.raw(
                """
                INSERT INTO applications (app_id, created_at) VALUES (\(bind: appID), \(bind: at)) \
                ON CONFLICT (app_id) DO NOTHING
                """
            ).run()
            try await sql.raw(
                """
                INSERT INTO documents (app_id, name, json, sha256, updated_at) \
                VALUES (\(bind: appID), \(bind: name), \(bind: json), \(bind: digest), \(bind: at))
                ON CONFLICT (app_id, name) DO UPDATE SET json = excluded.json, sha256 = excluded.sha256, \
                updated_at = excluded.updated_at
                """
            ).run()
            try await Self.bumpVersion(sql)
        }
    }

    /// Maps the e-mail domain `domain` (lower-cased) of `appID` to its document `document`.
    ///
    /// - Returns: `false` when the application has no document of that name.
    package func putDomain(appID: String, domain: String, document: String) async throws -> Bool {
        try await database.withTransaction { sql in
            guard
                try await sql.raw(
                    "SELECT 1 AS found FROM documents WHERE app_id = \(bind: appID) AND name = \(bind: document)"
                ).first() != nil
            else {
                return false
            }
            try await sql.raw(
                """
                INSERT INTO domains (app_id, domain, document) \
                VALUES (\(bind: appID), \(bind: domain.lowercased()), \(bind: document))
                ON CONFLICT (app_id, domain) DO UPDATE SET document = excluded.document
                """
            ).run()
            try await Self.bumpVersion(sql)
            return true
        }
    }

    /// Removes the mapping of `domain`; `false` when there was none.
    package func deleteDomain(appID: String, domain: String) async throws -> Bool {
        try await database.withTransaction { sql in
            let removed =
                try await sql.raw(
                    """
                    DELETE FROM domains WHERE app_id = \(bind: appID) AND domain = \(bind: domain.lowercased()) \
                    RETURNING domain
                    """
                ).first() != nil
            if removed { try await Self.bumpVersion(sql) }
            return removed
        }
    }

    /// Creates or replaces the client policies of `appID` (and the application, if new). `json`
    /// must already have been read as `ClientPolicies`: this stores, it does not judge.
    package func putSettings(appID: String, json: String, now: Date = Date()) async throws {
        let at = Milliseconds.from(now)
        let digest = Hex.encode(SHA256.hash(data: Array(json.utf8)))
        try await database.withTransaction { sql in
            try await sql.raw(
                """
                INSERT INTO applications (app_id, created_at) VALUES (\(bind: appID), \(bind: at)) \
                ON CONFLICT (app_id) DO NOTHING
                """
            ).run()
            try await sql.raw(
                """
                INSERT INTO settings (app_id, json, sha256, updated_at) \
                VALUES (\(bind: appID), \(bind: json), \(bind: digest), \(bind: at))
                ON CONFLICT (app_id) DO UPDATE SET json = excluded.json, sha256 = excluded.sha256, \
                updated_at = excluded.updated_at
                """
            ).run()
            try await Self.bumpVersion(sql)
        }
    }

    /// The client policies of `appID` as stored, if it has any.
    package func settings(appID: String) async throws -> StoredSettings? {
        try await database.withConnection { sql in
            try await sql.raw("SELECT json, sha256, updated_at FROM settings WHERE app_id = \(bind: appID)").first().map
            { row in
                StoredSettings(
                    json: try row.decode(column: "json", as: String.self),
                    sha256: try row.decode(column: "sha256", as: String.self),
                    updatedAt: Milliseconds.date(try row.decode(column: "updated_at", as: Int64.self)))
            }
        }
    }

    /// Removes the client policies of `appID`; `false` when it had none.
    package func deleteSettings(appID: String) async throws -> Bool {
        try await database.withTransaction { sql in
            let removed =
                try await sql.raw("DELETE FROM settings WHERE app_id = \(bind: appID) RETURNING app_id").first() != nil
            if removed { try await Self.bumpVersion(sql) }
            return removed
        }
    }

    /// An application's client policies as stored.
    package struct StoredSettings: Sendable, Hashable {
        package var json: String
        package var sha256: String
        package var updatedAt: Date
    }

    /// The change counter: it grows with every change of documents, domains or client policies.
    package func version() async throws -> Int64 {
        try await database.withConnection { sql in
            try await Self.version(sql)
        }
    }

    /// What lookups and policy requests need: every document's JSON, every domain's document and
    /// every application's client policies, by application; read in one transaction with the
    /// change counter they belong to.
    package struct Snapshot: Sendable {
        package var version: Int64 = -1
        /// Document JSON by application, then by document name.
        package var documents: [String: [String: String]] = [:]
        /// Document JSON by application, then by lower-case domain.
        package var domains: [String: [String: String]] = [:]
        /// Client policies (settingsExchange JSON) by application.
        package var settings: [String: String] = [:]
    }

    package func snapshot() async throws -> Snapshot {
        try await database.withTransaction { sql in
            var snapshot = Snapshot()
            snapshot.version = try await Self.version(sql)
            for row in try await sql.raw("SELECT app_id, name, json FROM documents").all() {
                snapshot.documents[try row.decode(column: "app_id", as: String.self), default: [:]][
                    try row.decode(column: "name", as: String.self)] =
                    try row.decode(column: "json", as: String.self)
            }
            for row in try await sql.raw("SELECT app_id, domain, document FROM domains").all() {
                let appID = try row.decode(column: "app_id", as: String.self)
                snapshot.domains[appID, default: [:]][try row.decode(column: "domain", as: String.self)] =
                    snapshot.documents[appID]?[try row.decode(column: "document", as: String.self)]
            }
            for row in try await sql.raw("SELECT app_id, json FROM settings").all() {
                snapshot.settings[try row.decode(column: "app_id", as: String.self)] = try row.decode(
                    column: "json", as: String.self)
            }
            return snapshot
        }
    }

    /// The JSON of the document `name` of `appID`, if there is one.
    package func json(appID: String, name: String) async throws -> String? {
        try await database.withConnection { sql in
            try await sql.raw("SELECT json FROM documents WHERE app_id = \(bind: appID) AND name = \(bind: name)")
                .first()?
                .decode(column: "json", as: String.self)
        }
    }

    /// Every application, by id, with its counts; active codes are those that can still be used.
    package func applications(now: Date = Date()) async throws -> [ApplicationSummary] {
        let at = Milliseconds.from(now)
        let active = CodeStore.Status.active.condition(at: at)
        return try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT a.app_id,
                  (SELECT COUNT(*) FROM documents d WHERE d.app_id = a.app_id) AS documents,
                  (SELECT COUNT(*) FROM domains m WHERE m.app_id = a.app_id) AS domains,
                  (SELECT COUNT(*) FROM codes c WHERE c.app_id = a.app_id AND \(active)) AS active_codes,
                  (SELECT COUNT(*) FROM settings s WHERE s.app_id = a.app_id) AS settings
                FROM applications a ORDER BY a.app_id
                """
            ).all().map { row in
                ApplicationSummary(
                    appID: try row.decode(column: "app_id", as: String.self),
                    documents: try row.decode(column: "documents", as: Int.self),
                    domains: try row.decode(column: "domains", as: Int.self),
                    activeCodes: try row.decode(column: "active_codes", as: Int.self),
                    settings: try row.decode(column: "settings", as: Int.self) > 0)
            }
        }
    }

    /// One stored document.
    package struct StoredDocument: Sendable, Hashable {
        package var name: String
        package var json: String
        package var sha256: String
        package var updatedAt: Date
    }

    /// The documents of `appID`, by name.
    package func documents(appID: String) async throws -> [StoredDocument] {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT name, json, sha256, updated_at FROM documents WHERE app_id = \(bind: appID) ORDER BY name"
            ).all().map { row in
                StoredDocument(
                    name: try row.decode(column: "name", as: String.self),
                    json: try row.decode(column: "json", as: String.self),
                    sha256: try row.decode(column: "sha256", as: String.self),
                    updatedAt: Milliseconds.date(try row.decode(column: "updated_at", as: Int64.self)))
            }
        }
    }

    /// The domains of `appID` and the document each serves, by domain.
    package func domains(appID: String) async throws -> [(domain: String, document: String)] {
        try await database.withConnection { sql in
            try await sql.raw("SELECT domain, document FROM domains WHERE app_id = \(bind: appID) ORDER BY domain")
                .all().map { row in
                    (
                        try row.decode(column: "domain", as: String.self),
                        try row.decode(column: "document", as: String.self)
                    )
                }
        }
    }

    static func version(_ sql: any SQLDatabase) async throws -> Int64 {
        try await sql.raw("SELECT version FROM changes WHERE id = 1").first()?.decode(column: "version", as: Int64.self)
            ?? 0
    }

    static func bumpVersion(_ sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE changes SET version = version + 1 WHERE id = 1").run()
    }
}
