import ActivationDiscoveryProtocol
import Foundation
import SQLKit

/// The audit trail of the admin API: who did what to which application, and how it ended.
/// Entries name tokens by their fingerprint and codes by their id, never by the secret itself.
package struct AuditLog: Sendable {
    package let database: any DiscoveryDatabase

    package init(database: any DiscoveryDatabase) {
        self.database = database
    }

    /// One audited call.
    /// An audited call (the protocol's `AuditEntry`).
    package typealias Entry = AuditEntry

    package func record(_ entry: Entry) async throws {
        let at = Milliseconds.from(entry.at)
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO audit (at, actor, action, app_id, subject_id, outcome)
                VALUES (\(bind: at), \(bind: entry.actor), \(bind: entry.action), \(bind: entry.appID),
                        \(bind: entry.subject), \(bind: entry.outcome))
                """
            ).run()
        }
    }

    /// The most entries one listing returns.
    package static let maxListed = 10_000

    /// The entries at or after `since`, newest first.
    package func entries(since: Date, limit: Int = maxListed) async throws -> [Entry] {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT at, actor, action, app_id, subject_id, outcome FROM audit \
                WHERE at >= \(bind: Milliseconds.from(since))
                ORDER BY id DESC LIMIT \(literal: min(max(1, limit), Self.maxListed))
                """
            ).all().map { row in
                Entry(
                    at: Milliseconds.date(try row.decode(column: "at", as: Int64.self)),
                    actor: try row.decode(column: "actor", as: String.self),
                    action: try row.decode(column: "action", as: String.self),
                    appID: try row.decode(column: "app_id", as: String?.self),
                    subject: try row.decode(column: "subject_id", as: String?.self),
                    outcome: try row.decode(column: "outcome", as: String.self))
            }
        }
    }
}
