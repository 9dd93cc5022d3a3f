import Foundation
import SQLKit
import Synchronization

/// A token bucket's size: `burst` failures at once, refilled at `perMinute`.
package struct RateLimit: Sendable, Hashable {
    package var perMinute: Double
    package var burst: Double

    package init(perMinute: Double, burst: Double) {
        self.perMinute = perMinute
        self.burst = burst
    }

    /// Parses `10/min`, `10/min,burst=20`, `2/s` or `off` (nil); the burst defaults to twice the
    /// per-minute rate, at least 1.
    package init?(parsing text: String) {
        var parts = text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let rate = parts.first else { return nil }
        parts.removeFirst()
        let pieces = rate.split(separator: "/")
        guard pieces.count == 2, let count = Double(pieces[0]), count > 0, count.isFinite else { return nil }
        switch pieces[1] {
        case "s", "sec", "second": perMinute = count * 60
        case "m", "min", "minute": perMinute = count
        case "h", "hour": perMinute = count / 60
        default: return nil
        }
        burst = max(1, (perMinute * 2).rounded(.down))
        for part in parts {
            guard part.hasPrefix("burst="), let value = Double(part.dropFirst(6)), value >= 1, value.isFinite else { return nil }
            burst = value.rounded(.down)
        }
    }

    /// Tokens earned per millisecond.
    var perMillisecond: Double { perMinute / 60_000 }

    /// Whole seconds until an empty bucket holds one token again (a `Retry-After`).
    var retryAfter: Int { max(1, Int((60 / perMinute).rounded(.up))) }
}

/// Failed code lookups allowed per client address and per application
/// (`discovery-service.md`, "Abuse limits"): each code lookup takes one token from its client's
/// bucket and from its application's first, and a lookup that finds a document gives them back,
/// so only failures count and concurrent guesses cannot overdraw a bucket.
package struct GuessingLimits: Sendable {
    /// Per client address; nil: unlimited.
    package var perClient: RateLimit?
    /// Per application; nil: unlimited.
    package var perApplication: RateLimit?
    /// Where the buckets are kept.
    package var buckets: any TokenBuckets

    package init(perClient: RateLimit?, perApplication: RateLimit?, buckets: any TokenBuckets) {
        self.perClient = perClient
        self.perApplication = perApplication
        self.buckets = buckets
    }

    /// The contract's defaults: 10 a minute (burst 20) per client, 600 a minute per application.
    package static let defaultPerClient = RateLimit(perMinute: 10, burst: 20)
    package static let defaultPerApplication = RateLimit(perMinute: 600, burst: 600)

    private func keyed(client: String, appID: String) -> [(key: String, limit: RateLimit)] {
        [perClient.map { ("client:\(client)", $0) }, perApplication.map { ("app:\(appID)", $0) }].compactMap { $0 }
    }

    /// Takes a token for one code lookup; nil when granted, else the seconds to wait.
    package func take(client: String, appID: String, now: Date = Date()) async throws -> Int? {
        var taken: [(key: String, limit: RateLimit)] = []
        for bucket in keyed(client: client, appID: appID) {
            if try await buckets.take(bucket.key, limit: bucket.limit, now: now) {
                taken.append(bucket)
            } else {
                for earlier in taken { try await buckets.giveBack(earlier.key, limit: earlier.limit) }
                return bucket.limit.retryAfter
            }
        }
        return nil
    }

    /// Gives back the tokens of a lookup that found its document.
    package func giveBack(client: String, appID: String) async throws {
        for bucket in keyed(client: client, appID: appID) { try await buckets.giveBack(bucket.key, limit: bucket.limit) }
    }
}

/// Where token buckets live: in this process (``MemoryTokenBuckets``) or in the database, shared by
/// every instance (``DatabaseTokenBuckets``).
package protocol TokenBuckets: Sendable {
    /// Takes one token from the bucket `key` (full when new); false when it holds less than one.
    func take(_ key: String, limit: RateLimit, now: Date) async throws -> Bool
    /// Puts one token back (never above the burst).
    func giveBack(_ key: String, limit: RateLimit) async throws
}

/// Buckets in memory, for one instance (`--database none`). At most ``maxBuckets`` are kept: when
/// more are needed, those that have refilled completely, which hold no information, are dropped.
package final class MemoryTokenBuckets: TokenBuckets {
    private struct Bucket { var tokens: Double; var at: Int64 }
    private let buckets = Mutex([String: Bucket]())
    package static let maxBuckets = 100_000

    package init() {}

    package func take(_ key: String, limit: RateLimit, now: Date) -> Bool {
        let at = Milliseconds.from(now)
        return buckets.withLock { buckets in
            if buckets.count >= Self.maxBuckets, buckets[key] == nil {
                buckets = buckets.filter { Self.refilled($0.value, limit: limit, at: at) < limit.burst }
                if buckets.count >= Self.maxBuckets { return false }  // every bucket busy: refuse rather than forget
            }
            let tokens = buckets[key].map { Self.refilled($0, limit: limit, at: at) } ?? limit.burst
            guard tokens >= 1 else { return false }
            buckets[key] = Bucket(tokens: tokens - 1, at: max(at, buckets[key]?.at ?? at))
            return true
        }
    }

    package func giveBack(_ key: String, limit: RateLimit) {
        buckets.withLock { buckets in
            if var bucket = buckets[key] {
                bucket.tokens = min(limit.burst, bucket.tokens + 1)
                buckets[key] = bucket
            }
        }
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

    package func take(_ key: String, limit: RateLimit, now: Date) async throws -> Bool {
        let at = Milliseconds.from(now)
        let (least, greatest): (SQLQueryString, SQLQueryString) = database.dialect == "sqlite" ? ("MIN", "MAX") : ("LEAST", "GREATEST")
        // The refill, in SQL: min(burst, tokens + elapsed × rate); clocks of instances may differ a little.
        let refilled: SQLQueryString = """
            \(least)(\(bind: limit.burst), rate_buckets.tokens + \(greatest)(0, \(bind: at) - rate_buckets.updated_at) * \(bind: limit.perMillisecond))
            """
        return try await database.withConnection { sql in
            try await sql.raw("""
                INSERT INTO rate_buckets (key, tokens, updated_at) VALUES (\(bind: key), \(bind: limit.burst - 1), \(bind: at))
                ON CONFLICT (key) DO UPDATE SET tokens = \(refilled) - 1, updated_at = \(greatest)(rate_buckets.updated_at, \(bind: at))
                WHERE \(refilled) >= 1
                RETURNING key
                """).first() != nil
        }
    }

    package func giveBack(_ key: String, limit: RateLimit) async throws {
        let least: SQLQueryString = database.dialect == "sqlite" ? "MIN" : "LEAST"
        try await database.withConnection { sql in
            try await sql.raw("UPDATE rate_buckets SET tokens = \(least)(\(bind: limit.burst), tokens + 1) WHERE key = \(bind: key)").run()
        }
    }
}
