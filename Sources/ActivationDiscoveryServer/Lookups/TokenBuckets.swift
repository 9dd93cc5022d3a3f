import Foundation
import SQLKit
import Synchronization

/// Where token buckets live: in this process (``MemoryTokenBuckets``) or in the database, shared by
/// every instance (``DatabaseTokenBuckets``). A bucket that does not exist is full.
package protocol TokenBuckets: Sendable {
    /// Takes one token from the bucket `key`, unless it holds less than one; and tells, in the same
    /// step, whether the bucket `other` holds a token (it is not changed).
    func take(
        _ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
        now: Date
    ) async throws -> (taken: Bool, otherHoldsToken: Bool)
    /// Whether the bucket `key` holds a token now (it is not changed).
    func holdsToken(_ key: String, limit: RateLimit, now: Date) async throws -> Bool
    /// Takes one token even from an empty bucket, which then owes it (down to minus the burst).
    func charge(_ key: String, limit: RateLimit, now: Date) async throws
    /// Puts tokens back: `counts[key]` into each bucket, never above the burst.
    func giveBack(_ counts: [String: Int], limit: RateLimit) async throws
    /// Removes the buckets not touched for `age`.
    func prune(untouchedFor age: Duration) async throws
}

/// Buckets in memory, for one instance (`--database none`). At most ``maxBuckets`` are kept: when
/// more are needed, those that have refilled completely, which hold no information, are dropped.
package final class MemoryTokenBuckets: TokenBuckets {
    private struct Bucket {
        var tokens: Double
        var at: Int64
    }
    private let buckets = Mutex([String: Bucket]())
    package static let maxBuckets = 100_000

    package init() {}

    package func take(
        _ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
        now: Date
    ) -> (taken: Bool, otherHoldsToken: Bool) {
        let at = Milliseconds.from(now)
        return buckets.withLock { buckets in
            let otherHoldsToken =
                other.map { other in Self.tokens(in: buckets, other.key, limit: other.limit, at: at) >= 1 } ?? true
            if buckets.count >= Self.maxBuckets, buckets[key] == nil {
                buckets = buckets.filter { Self.refilled($0.value, limit: limit, at: at) < limit.burst }
                // Every bucket busy: refuse rather than forget.
                if buckets.count >= Self.maxBuckets { return (false, otherHoldsToken) }
            }
            let tokens = Self.tokens(in: buckets, key, limit: limit, at: at)
            guard tokens >= 1 else { return (false, otherHoldsToken) }
            buckets[key] = Bucket(tokens: tokens - 1, at: max(at, buckets[key]?.at ?? at))
            return (true, otherHoldsToken)
        }
    }

    package func holdsToken(_ key: String, limit: RateLimit, now: Date) -> Bool {
        let at = Milliseconds.from(now)
        return buckets.withLock { buckets in Self.tokens(in: buckets, key, limit: limit, at: at) >= 1 }
    }

    package func charge(_ key: String, limit: RateLimit, now: Date) {
        let at = Milliseconds.from(now)
        buckets.withLock { buckets in
            let tokens = Self.tokens(in: buckets, key, limit: limit, at: at)
            buckets[key] = Bucket(tokens: max(-limit.burst, tokens - 1), at: max(at, buckets[key]?.at ?? at))
        }
    }

    package func giveBack(_ counts: [String: Int], limit: RateLimit) {
        buckets.withLock { buckets in
            for (key, count) in counts {
                if var bucket = buckets[key] {
                    bucket.tokens = min(limit.burst, bucket.tokens + Double(count))
                    buckets[key] = bucket
                }
            }
        }
    }

    package func prune(untouchedFor age: Duration) {
        let oldest = Milliseconds.now() - Int64(age.inMilliseconds)
        buckets.withLock { buckets in buckets = buckets.filter { $0.value.at >= oldest } }
    }

    /// The tokens of the bucket `key` at `at`: refilled since last touched; full when there is none.
    private static func tokens(in buckets: [String: Bucket], _ key: String, limit: RateLimit, at: Int64) -> Double {
        buckets[key].map { refilled($0, limit: limit, at: at) } ?? limit.burst
    }

    private static func refilled(_ bucket: Bucket, limit: RateLimit, at: Int64) -> Double {
        min(limit.burst, bucket.tokens + Double(max(0, at - bucket.at)) * limit.perMillisecond)
    }
}

/// Buckets in the database's `rate_buckets` table: one atomic statement takes a token, so the
/// limits hold across every instance on the database (adding instances adds no guesses).
package struct DatabaseTokenBuckets: TokenBuckets {
    package let database: any DiscoveryDatabase

    package init(database: any DiscoveryDatabase) {
        self.database = database
    }

    /// The most buckets one give-back statement updates.
    static let maxGiveBacksPerStatement = 500

    /// `LEAST`/`GREATEST` (PostgreSQL) or `MIN`/`MAX` (SQLite) with two arguments.
    private var functions: (least: SQLQueryString, greatest: SQLQueryString) {
        database.dialect == "sqlite" ? ("MIN", "MAX") : ("LEAST", "GREATEST")
    }

    /// A bucket's tokens now, in SQL: min(burst, tokens + elapsed × rate), of the row `table`
    /// names; clocks of instances may differ a little.
    private func refilled(_ limit: RateLimit, at: Int64, table: String = "rate_buckets") -> SQLQueryString {
        let (least, greatest) = functions
        return """
            \(least)(\(bind: limit.burst), \(ident: table).tokens \
            + \(greatest)(0, \(bind: at) - \(ident: table).updated_at) * \(bind: limit.perMillisecond))
            """
    }

    package func take(
        _ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
        now: Date
    ) async throws -> (taken: Bool, otherHoldsToken: Bool) {
        let at = Milliseconds.from(now)
        let refilled = refilled(limit, at: at)
        let greatest = functions.greatest
        // The other bucket as it stood before this statement (a missing one is full).
        let otherTokens: SQLQueryString =
            other.map { other in
                """
                (SELECT \(self.refilled(other.limit, at: at, table: "other")) FROM rate_buckets AS other \
                WHERE other.key = \(bind: other.key))
                """
            } ?? "NULL"
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO rate_buckets (key, tokens, updated_at) \
                VALUES (\(bind: key), \(bind: limit.burst - 1), \(bind: at))
                ON CONFLICT (key) DO UPDATE SET tokens = \(refilled) - 1, \
                updated_at = \(greatest)(rate_buckets.updated_at, \(bind: at))
                WHERE \(refilled) >= 1
                RETURNING \(otherTokens) AS other_tokens
                """
            ).first()
        }
        guard let row else { return (false, true) }
        return (true, try row.decode(column: "other_tokens", as: Double?.self).map { $0 >= 1 } ?? true)
    }

    package func holdsToken(_ key: String, limit: RateLimit, now: Date) async throws -> Bool {
        let refilled = refilled(limit, at: Milliseconds.from(now))
        return try await database.withConnection { sql in
            try await sql.raw("SELECT \(refilled) AS tokens FROM rate_buckets WHERE key = \(bind: key)").first()?
                .decode(column: "tokens", as: Double.self) ?? limit.burst >= 1
        }
    }

    package func charge(_ key: String, limit: RateLimit, now: Date) async throws {
        let at = Milliseconds.from(now)
        let refilled = refilled(limit, at: at)
        let greatest = functions.greatest
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO rate_buckets (key, tokens, updated_at) \
                VALUES (\(bind: key), \(bind: limit.burst - 1), \(bind: at))
                ON CONFLICT (key) DO UPDATE SET tokens = \(greatest)(\(bind: -limit.burst), \(refilled) - 1),
                  updated_at = \(greatest)(rate_buckets.updated_at, \(bind: at))
                """
            ).run()
        }
    }

    package func giveBack(_ counts: [String: Int], limit: RateLimit) async throws {
        let least = functions.least
        let entries = Array(counts)
        for start in stride(from: 0, to: entries.count, by: Self.maxGiveBacksPerStatement) {
            let rows = entries[start..<min(entries.count, start + Self.maxGiveBacksPerStatement)].enumerated().map {
                index, entry -> SQLQueryString in
                index == 0
                    ? "SELECT \(bind: entry.key) AS key, \(bind: entry.value) AS n"
                    : "SELECT \(bind: entry.key), \(bind: entry.value)"
            }
            let values = rows.dropFirst().reduce(rows[0]) { $0 + " UNION ALL " + $1 }
            try await database.withConnection { sql in
                try await sql.raw(
                    """
                    UPDATE rate_buckets SET tokens = \(least)(\(bind: limit.burst), rate_buckets.tokens + given.n)
                    FROM (\(values)) AS given WHERE rate_buckets.key = given.key
                    """
                ).run()
            }
        }
    }

    package func prune(untouchedFor age: Duration) async throws {
        let oldest = Milliseconds.now() - Int64(age.inMilliseconds)
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM rate_buckets WHERE updated_at < \(bind: oldest)").run()
        }
    }
}
