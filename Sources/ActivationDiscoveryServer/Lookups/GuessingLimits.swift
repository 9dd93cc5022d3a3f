import Foundation
import SQLKit
import Synchronization

/// A token bucket's size: `burst` failures at once, refilled at `perMinute`.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
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
            guard part.hasPrefix("burst="), let value = Double(part.dropFirst(6)), value >= 1, value.isFinite else {
                return nil
            }
            burst = value.rounded(.down)
        }
    }

    /// The limit as ``init(parsing:)`` reads it: `10/min,burst=20`.
    public var description: String {
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        return "\(number(perMinute))/min,burst=\(number(burst))"
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
            return try await buckets.holdsToken(application.key, limit: application.limit, now: now)
                ? nil : application.limit.retryAfter
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
