import Foundation
import SQLKit
import Synchronization

/// A token bucket's size: `burst` failures at once, refilled at `perMinute`.
public struct RateLimit: Sendable, Hashable {
    /// Tokens refilled per minute.
    public var perMinute: Double
    /// The bucket's size: failures allowed at once.
    public var burst: Double

    /// A limit of `burst` failures at once, refilled at `perMinute`.
    public init(perMinute: Double, burst: Double) {
        self.perMinute = perMinute
        self.burst = burst
    }

    /// Parses `10/min`, `10/min,burst=20`, `2/s` or `off` (nil); the burst defaults to twice the
    /// per-minute rate, at least 1.
    public init?(parsing text: String) {
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
/// (`discovery-service.md`, "Abuse limits").
///
/// The client's bucket is exact: each code lookup takes a token before it runs
/// (``admit(client:appID:now:)``), so however many guesses a client sends at once, no more than its
/// allowance are answered; a lookup that finds its document gives the token back
/// (``settle(client:appID:failed:now:)``), within ``giveBackInterval``, many at once. The
/// application's bucket, which all its clients share, is only read before a lookup (in the same
/// statement that takes the client's token) and charged after a failure: a successful lookup never
/// waits on that one busy row, and concurrent failures overdraw it by at most the lookups under
/// way (it then owes the tokens).
package final class GuessingLimits: Sendable {
    /// Per client address; nil: unlimited.
    package let perClient: RateLimit?
    /// Per application; nil: unlimited.
    package let perApplication: RateLimit?
    /// Where the buckets are kept.
    package let buckets: any TokenBuckets
    /// Tokens of successful lookups not given back yet, by client bucket.
    private let pendingGiveBacks = Mutex([String: Int]())

    /// How often tokens of successful lookups are given back: until then a client's bucket is a
    /// little stricter, never looser.
    package static let giveBackInterval = Duration.milliseconds(100)

    package init(perClient: RateLimit?, perApplication: RateLimit?, buckets: any TokenBuckets) {
        self.perClient = perClient
        self.perApplication = perApplication
        self.buckets = buckets
    }

    /// The contract's defaults: 10 a minute (burst 20) per client, 600 a minute per application.
    package static let defaultPerClient = RateLimit(perMinute: 10, burst: 20)
    package static let defaultPerApplication = RateLimit(perMinute: 600, burst: 600)

    /// Lets one code lookup of `appID` run, or not (nil `appID`: the client's bucket only, for a
    /// wrong admin token, which is a failure already). Nil when admitted, else the seconds to wait.
    package func admit(client: String, appID: String?, now: Date = Date()) async throws -> Int? {
        let application = appID.flatMap { appID in perApplication.map { (key: "app:\(appID)", limit: $0) } }
        guard let perClient else {
            guard let application else { return nil }
            return try await buckets.holdsToken(application.key, limit: application.limit, now: now) ? nil : application.limit.retryAfter
        }
        let verdict = try await buckets.take("client:\(client)", limit: perClient, alsoChecking: application, now: now)
        guard verdict.taken else { return perClient.retryAfter }
        guard verdict.otherHoldsToken else {
            pendingGiveBacks.withLock { $0["client:\(client)", default: 0] += 1 }
            return application?.limit.retryAfter
        }
        return nil
    }

    /// Settles an admitted lookup: a success gives the client's token back, a failure is charged to
    /// the application.
    package func settle(client: String, appID: String, failed: Bool, now: Date = Date()) async throws {
        if failed {
            if let perApplication { try await buckets.charge("app:\(appID)", limit: perApplication, now: now) }
        } else if perClient != nil {
            pendingGiveBacks.withLock { $0["client:\(client)", default: 0] += 1 }
        }
    }

    /// Gives back the tokens of the lookups that succeeded since the last call.
    package func giveBackPending() async throws {
        guard let perClient else { return }
        let pending = pendingGiveBacks.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        if !pending.isEmpty { try await buckets.giveBack(pending, limit: perClient) }
    }

    /// How long an untouched bucket takes to fill up again: after that it holds nothing worth keeping.
    var refillTime: Duration {
        let minutes = [perClient, perApplication].compactMap { $0.map { $0.burst / $0.perMinute } }.max() ?? 0
        return .seconds(minutes * 60)
    }

    /// Until cancelled: gives tokens back every ``giveBackInterval``, and drops the buckets that
    /// have filled up again every minute (without it, every address that ever failed a lookup
    /// would keep a bucket).
    package func maintain() async {
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: Self.giveBackInterval)
                try await giveBackPending()
                if ContinuousClock.now - lastPrune >= .seconds(60) {
                    lastPrune = ContinuousClock.now
                    try await buckets.prune(untouchedFor: refillTime + .seconds(1))
                }
            } catch is CancellationError {
                return
            } catch {
                continue  // the database is away: try again at the next interval
            }
        }
    }
}

/// Where token buckets live: in this process (``MemoryTokenBuckets``) or in the database, shared by
/// every instance (``DatabaseTokenBuckets``). A bucket that does not exist is full.
package protocol TokenBuckets: Sendable {
    /// Takes one token from the bucket `key`, unless it holds less than one; and tells, in the same
    /// step, whether the bucket `other` holds a token (it is not changed).
    func take(_ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
              now: Date) async throws -> (taken: Bool, otherHoldsToken: Bool)
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
    private struct Bucket { var tokens: Double; var at: Int64 }
    private let buckets = Mutex([String: Bucket]())
    package static let maxBuckets = 100_000

    package init() {}

    package func take(_ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
                      now: Date) -> (taken: Bool, otherHoldsToken: Bool) {
        let at = Milliseconds.from(now)
        return buckets.withLock { buckets in
            let otherHoldsToken = other.map { other in Self.tokens(in: buckets, other.key, limit: other.limit, at: at) >= 1 } ?? true
            if buckets.count >= Self.maxBuckets, buckets[key] == nil {
                buckets = buckets.filter { Self.refilled($0.value, limit: limit, at: at) < limit.burst }
                if buckets.count >= Self.maxBuckets { return (false, otherHoldsToken) }  // every bucket busy: refuse rather than forget
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
        return "\(least)(\(bind: limit.burst), \(ident: table).tokens + \(greatest)(0, \(bind: at) - \(ident: table).updated_at) * \(bind: limit.perMillisecond))"
    }

    package func take(_ key: String, limit: RateLimit, alsoChecking other: (key: String, limit: RateLimit)?,
                      now: Date) async throws -> (taken: Bool, otherHoldsToken: Bool) {
        let at = Milliseconds.from(now), refilled = refilled(limit, at: at), greatest = functions.greatest
        // The other bucket as it stood before this statement (a missing one is full).
        let otherTokens: SQLQueryString = other.map { other in
            "(SELECT \(self.refilled(other.limit, at: at, table: "other")) FROM rate_buckets AS other WHERE other.key = \(bind: other.key))"
        } ?? "NULL"
        let row = try await database.withConnection { sql in
            try await sql.raw("""
                INSERT INTO rate_buckets (key, tokens, updated_at) VALUES (\(bind: key), \(bind: limit.burst - 1), \(bind: at))
                ON CONFLICT (key) DO UPDATE SET tokens = \(refilled) - 1, updated_at = \(greatest)(rate_buckets.updated_at, \(bind: at))
                WHERE \(refilled) >= 1
                RETURNING \(otherTokens) AS other_tokens
                """).first()
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
        let at = Milliseconds.from(now), refilled = refilled(limit, at: at), greatest = functions.greatest
        try await database.withConnection { sql in
            try await sql.raw("""
                INSERT INTO rate_buckets (key, tokens, updated_at) VALUES (\(bind: key), \(bind: limit.burst - 1), \(bind: at))
                ON CONFLICT (key) DO UPDATE SET tokens = \(greatest)(\(bind: -limit.burst), \(refilled) - 1),
                  updated_at = \(greatest)(rate_buckets.updated_at, \(bind: at))
                """).run()
        }
    }

    package func giveBack(_ counts: [String: Int], limit: RateLimit) async throws {
        let least = functions.least
        let entries = Array(counts)
        for start in stride(from: 0, to: entries.count, by: Self.maxGiveBacksPerStatement) {
            let rows = entries[start..<min(entries.count, start + Self.maxGiveBacksPerStatement)].enumerated().map { index, entry -> SQLQueryString in
                index == 0 ? "SELECT \(bind: entry.key) AS key, \(bind: entry.value) AS n" : "SELECT \(bind: entry.key), \(bind: entry.value)"
            }
            let values = rows.dropFirst().reduce(rows[0]) { $0 + " UNION ALL " + $1 }
            try await database.withConnection { sql in
                try await sql.raw("""
                    UPDATE rate_buckets SET tokens = \(least)(\(bind: limit.burst), rate_buckets.tokens + given.n)
                    FROM (\(values)) AS given WHERE rate_buckets.key = given.key
                    """).run()
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
