import ActivationConfiguration
import Crypto
import Foundation
import SQLKit

/// Applications and their configuration documents in the database.
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
            try await sql.raw("INSERT INTO applications (app_id, created_at) VALUES (\(bind: appID), \(bind: at)) ON CONFLICT (app_id) DO NOTHING").run()
            try await sql.raw("""
                INSERT INTO documents (app_id, name, json, sha256, updated_at) VALUES (\(bind: appID), \(bind: name), \(bind: json), \(bind: digest), \(bind: at))
                ON CONFLICT (app_id, name) DO UPDATE SET json = excluded.json, sha256 = excluded.sha256, updated_at = excluded.updated_at
                """).run()
        }
    }
}
