import ActivationConfiguration
import ActivationDiscoveryProtocol
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
        /// The code was good: this use is counted, and this is the name of its document (200).
        case consumed(document: String)
        /// The code existed, but can no longer be used (410), and why.
        case expired, used, revoked
        /// No such code for the application (404).
        case notFound
    }

    /// Stores a new code of `appID` for its document `document`, usable `uses` times until
    /// `expires`; returns the code's id (never the code, which only the caller holds).
    package func issue(
        _ code: OnboardingCode, appID: String, document: String, label: String?,
        uses: Int = 1, expires: Date, now: Date = Date()
    ) async throws -> Int64 {
        let hasher = self.hasher
        return try await database.withConnection { sql in
            guard
                let id = try await Self.insert(
                    code, hasher: hasher, sql: sql, appID: appID, document: document, label: label,
                    uses: uses, expires: expires, now: now)
            else { throw CodeStoreError.noRowReturned }
            return id
        }
    }

    /// Stores `code` unless it is stored already (an import at each start); whether it was new.
    package func issueIfNew(
        _ code: OnboardingCode, appID: String, document: String, label: String?,
        uses: Int, expires: Date, now: Date = Date()
    ) async throws -> Bool {
        let hasher = self.hasher
        return try await database.withConnection { sql in
            try await Self.insert(
                code, hasher: hasher, sql: sql, appID: appID, document: document, label: label,
                uses: uses, expires: expires, now: now) != nil
        }
    }

    /// Inserts one code; nil when its hash is stored already.
    private static func insert(
        _ code: OnboardingCode, hasher: OnboardingCodeHasher, sql: any SQLDatabase, appID: String, document: String,
        label: String?, uses: Int, expires: Date, now: Date
    ) async throws -> Int64? {
        let hash = Data(hasher.hash(code))
        let expiresAt = Milliseconds.from(expires)
        return try await sql.raw(
            """
            INSERT INTO codes (app_id, code_hash, document, label, expires_at, uses_left, created_at)
            VALUES (\(bind: appID), \(bind: hash), \(bind: document), \(bind: label), \(bind: expiresAt),
                    \(bind: uses), \(bind: Milliseconds.from(now)))
            ON CONFLICT (code_hash) DO NOTHING RETURNING id
            """
        ).first()?.decode(column: "id", as: Int64.self)
    }

    /// Uses `code` once: one atomic statement, so a code with one use succeeds exactly once
    /// across all connections and instances, however many requests race. The statement has
    /// committed when this returns, so a 200 sent after it is never taken back.
    package func consume(_ code: OnboardingCode, appID: String, now: Date = Date()) async throws -> Outcome {
        let hash = Data(hasher.hash(code))
        let at = Milliseconds.from(now)
        return try await database.withConnection { sql in
            let consumed = try await sql.raw(
                """
                UPDATE codes SET uses_left = uses_left - 1, consumed_at = \(bind: at)
                WHERE app_id = \(bind: appID) AND code_hash = \(bind: hash) AND uses_left > 0 AND revoked_at IS NULL \
                AND expires_at > \(bind: at)
                RETURNING document
                """
            ).first()?.decode(column: "document", as: String.self)
            if let consumed { return .consumed(document: consumed) }
            // Why not: only for a code that exists (410).
            guard
                let row = try await sql.raw(
                    """
                    SELECT uses_left, expires_at, revoked_at FROM codes \
                    WHERE app_id = \(bind: appID) AND code_hash = \(bind: hash)
                    """
                ).first()
            else { return .notFound }
            switch try Status(row, at: at) {
            case .revoked: return .revoked
            case .used: return .used
            case .expired: return .expired
            case .active: return .notFound  // usable a moment ago, yet not used: cannot happen with the statement above
            }
        }
    }

    /// Makes `count` new random codes of `style` for the document `document` of `appID`, each
    /// usable `uses` times until `expires`, and stores their hashes; the plain codes exist only in
    /// the answer. A new code that happens to equal a stored one (likely only for short digit codes)
    /// is drawn again.
    package func issue(
        count: Int, style: OnboardingCode.Style, appID: String, document: String, label: String?,
        uses: Int, expires: Date, now: Date = Date()
    ) async throws -> [(id: Int64, code: OnboardingCode)] {
        let hasher = self.hasher
        return try await database.withTransaction { sql in
            var issued: [(id: Int64, code: OnboardingCode)] = []
            var draws = 0
            while issued.count < count {
                draws += 1
                guard draws <= count * 4 + 16 else { throw CodeStoreError.codeSpaceExhausted }
                let code = OnboardingCode.random(style)
                if let id = try await Self.insert(
                    code, hasher: hasher, sql: sql, appID: appID, document: document, label: label,
                    uses: uses, expires: expires, now: now)
                {
                    issued.append((id, code))
                }
            }
            return issued
        }
    }

    /// A code as administrators see it (the protocol's `CodeRecord`).
    package typealias Record = CodeRecord

    /// Where a code stands (the protocol's `CodeStatus`).
    package typealias Status = CodeStatus

    /// The most codes one listing returns (newest first).
    package static let maxListed = 10_000

    /// The codes of `appID`, newest first, of one status or all.
    package func list(appID: String, status: Status?, limit: Int = maxListed, now: Date = Date()) async throws
        -> [Record]
    {
        let at = Milliseconds.from(now)
        var query: SQLQueryString = """
            SELECT id, document, label, uses_left, created_at, expires_at, consumed_at, revoked_at FROM codes \
            WHERE app_id = \(bind: appID)
            """
        if let status { query = query + " AND " + status.condition(at: at) }
        query = query + " ORDER BY id DESC LIMIT \(literal: min(max(1, limit), Self.maxListed))"
        let statement = query
        return try await database.withConnection { sql in
            try await sql.raw(statement).all().map { row in
                Record(
                    id: try row.decode(column: "id", as: Int64.self),
                    document: try row.decode(column: "document", as: String.self),
                    label: try row.decode(column: "label", as: String?.self), status: try Status(row, at: at),
                    usesLeft: try row.decode(column: "uses_left", as: Int.self),
                    createdAt: Milliseconds.date(try row.decode(column: "created_at", as: Int64.self)),
                    expiresAt: Milliseconds.date(try row.decode(column: "expires_at", as: Int64.self)),
                    consumedAt: try row.decode(column: "consumed_at", as: Int64?.self).map(Milliseconds.date),
                    revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Milliseconds.date))
            }
        }
    }

    /// Revokes the code with `id` of `appID`; `false` when there is none (or it was revoked already).
    @discardableResult
    package func revoke(id: Int64, appID: String, now: Date = Date()) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE codes SET revoked_at = \(bind: Milliseconds.from(now))
                WHERE id = \(bind: id) AND app_id = \(bind: appID) AND revoked_at IS NULL RETURNING id
                """
            ).first() != nil
        }
    }
}

/// Database answers that cannot happen with the schema's constraints; reported, never crashed on.
package enum CodeStoreError: Error {
    case noRowReturned
    /// Fresh codes kept colliding with stored ones: the code space (8 digits?) is nearly used up.
    case codeSpaceExhausted
}

/// A code's status in the database's terms.
extension CodeStatus {
    /// The status of a row with `uses_left`, `expires_at` and `revoked_at`, at `at`
    /// (milliseconds): in Swift what ``condition(at:)`` says in SQL.
    init(_ row: any SQLRow, at: Int64) throws {
        if try row.decode(column: "revoked_at", as: Int64?.self) != nil {
            self = .revoked
        } else if try row.decode(column: "uses_left", as: Int.self) <= 0 {
            self = .used
        } else {
            self = try row.decode(column: "expires_at", as: Int64.self) <= at ? .expired : .active
        }
    }

    /// The condition on `codes` that selects this status at `at` (milliseconds).
    func condition(at: Int64) -> SQLQueryString {
        switch self {
        case .revoked: "revoked_at IS NOT NULL"
        case .used: "revoked_at IS NULL AND uses_left <= 0"
        case .expired: "revoked_at IS NULL AND uses_left > 0 AND expires_at <= \(bind: at)"
        case .active: "revoked_at IS NULL AND uses_left > 0 AND expires_at > \(bind: at)"
        }
    }
}
