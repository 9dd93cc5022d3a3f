import ActivationConfiguration
import Foundation
import SQLKit

/// Onboarding codes in the database: issued, used up atomically, revoked (`discovery-service.md`,
/// "Onboarding codes"). Codes are kept only as their keyed hash (``OnboardingCodeHasher``).
package struct CodeStore: Sendable {
    package let database: any DiscoveryDatabase
    package let hasher: OnboardingCodeHasher

    package init(database: any DiscoveryDatabase, hasher: OnboardingCodeHasher) {
        self.database = database
        self.hasher = hasher
    }

    /// What a lookup by code comes to.
    package enum Outcome: Sendable, Equatable {
        /// The code was good: this use is counted, and this is its document's JSON (200).
        case document(String)
        /// The code existed, but can no longer be used (410), and why.
        case expired, used, revoked
        /// No such code for the application (404).
        case notFound
    }

    /// Stores a new code of `appID` for its document `document`, usable `uses` times until
    /// `expires`; returns the code's id (never the code, which only the caller holds).
    package func issue(_ code: OnboardingCode, appID: String, document: String, label: String?,
                       uses: Int = 1, expires: Date, now: Date = Date()) async throws -> Int64 {
        let hash = hasher.hash(code)
        return try await database.withConnection { sql in
            let row = try await sql.raw("""
                INSERT INTO codes (app_id, code_hash, document, label, expires_at, uses_left, created_at)
                VALUES (\(bind: appID), \(bind: Data(hash)), \(bind: document), \(bind: label), \(bind: Milliseconds.from(expires)),
                        \(bind: uses), \(bind: Milliseconds.from(now)))
                RETURNING id
                """).first()
            guard let id = try row?.decode(column: "id", as: Int64.self) else { throw CodeStoreError.noRowReturned }
            return id
        }
    }

    /// Uses `code` once: one atomic statement, so a code with one use succeeds exactly once
    /// across all connections and instances, however many requests race. The statement has
    /// committed when this returns, so a 200 sent after it is never taken back.
    package func consume(_ code: OnboardingCode, appID: String, now: Date = Date()) async throws -> Outcome {
        let hash = Data(hasher.hash(code)), at = Milliseconds.from(now)
        return try await database.withConnection { sql in
            let consumed = try await sql.raw("""
                UPDATE codes SET uses_left = uses_left - 1, consumed_at = \(bind: at)
                WHERE app_id = \(bind: appID) AND code_hash = \(bind: hash) AND uses_left > 0 AND revoked_at IS NULL AND expires_at > \(bind: at)
                RETURNING document
                """).first()?.decode(column: "document", as: String.self)
            if let consumed {
                let json = try await sql.raw("SELECT json FROM documents WHERE app_id = \(bind: appID) AND name = \(bind: consumed)")
                    .first()?.decode(column: "json", as: String.self)
                guard let json else { throw CodeStoreError.documentMissing }
                return .document(json)
            }
            // Why not: only for a code that exists (410), in the order an administrator acts.
            guard let row = try await sql.raw("""
                SELECT uses_left, expires_at, revoked_at FROM codes WHERE app_id = \(bind: appID) AND code_hash = \(bind: hash)
                """).first() else { return .notFound }
            if try row.decode(column: "revoked_at", as: Int64?.self) != nil { return .revoked }
            if try row.decode(column: "uses_left", as: Int.self) <= 0 { return .used }
            if try row.decode(column: "expires_at", as: Int64.self) <= at { return .expired }
            return .notFound
        }
    }

    /// Revokes the code with `id` of `appID`; `false` when there is none (or it was revoked already).
    @discardableResult
    package func revoke(id: Int64, appID: String, now: Date = Date()) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw("""
                UPDATE codes SET revoked_at = \(bind: Milliseconds.from(now))
                WHERE id = \(bind: id) AND app_id = \(bind: appID) AND revoked_at IS NULL RETURNING id
                """).first() != nil
        }
    }
}

/// Database answers that cannot happen with the schema's constraints; reported, never crashed on.
package enum CodeStoreError: Error {
    case noRowReturned, documentMissing
}
