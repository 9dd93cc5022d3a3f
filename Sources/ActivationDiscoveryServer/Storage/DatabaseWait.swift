import SQLKit
import Synchronization

/// The database did not answer in time: it is down, restarting or saturated. The request is
/// answered 503 with `Retry-After`, never left waiting for the database. When no connection was
/// lent nothing was done; work cut off after that may still commit (a code's use then reads as used).
package struct DatabaseUnavailable: Error, Sendable {}

/// How long the service waits on its database before answering 503.
package enum DatabaseWait {
    /// The longest a request waits for a connection; the work, once lent one, runs to its end.
    package static let lease: Duration = .milliseconds(1500)
    /// The longest `/ready` waits for its answer from the database.
    package static let readiness: Duration = .milliseconds(800)
    /// What `Retry-After` says when the database is away.
    package static let retryAfterSeconds = 2

    /// Runs `use` on the connection `lease` lends, when it lends one within `limit`; otherwise
    /// the wait is cancelled and ``DatabaseUnavailable`` thrown.
    static func leasing<R: Sendable>(
        within limit: Duration = lease,
        _ lend: @Sendable (_ use: @Sendable (any SQLDatabase) async throws -> R) async throws -> R,
        _ use: @Sendable (any SQLDatabase) async throws -> R
    ) async throws -> R {
        let lent = Flag()
        return try await withoutActuallyEscaping(lend) { lend in
            try await withoutActuallyEscaping(use) { use in
                try await withThrowingTaskGroup(of: R?.self) { group in
                    group.addTask {
                        try await lend { database in
                            lent.raise()
                            return try await use(database)
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: limit)
                        if lent.isRaised { return nil }  // lent in time: the work decides
                        throw DatabaseUnavailable()
                    }
                    while let next = try await group.next() {
                        if let result = next {
                            group.cancelAll()
                            return result
                        }
                    }
                    throw DatabaseUnavailable()
                }
            }
        }
    }

    /// The longest a code lookup waits for its answer from the database, lease and work together.
    package static let answer: Duration = .milliseconds(1800)

    /// Runs `body`, or throws ``DatabaseUnavailable`` as soon as it has not finished within
    /// `limit`. The body is then cancelled but not waited for: a query stuck on a database that is
    /// going away ends in its own time, while the caller has its answer.
    package static func finishing<R: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> R)
        async throws -> R
    {
        let race = Race<R>()
        return try await withCheckedThrowingContinuation { continuation in
            race.arm(continuation)
            let timer = Task {
                try await Task.sleep(for: limit)
                if race.resume(with: .failure(DatabaseUnavailable())) { race.cancelWork() }
            }
            race.setWork(
                Task {
                    defer { timer.cancel() }  // not needed once the work has answered
                    do { race.resume(with: .success(try await body())) } catch { race.resume(with: .failure(error)) }
                })
        }
    }

    /// A continuation resumed by whichever comes first, the work or the timer, and the work to
    /// cancel when the timer wins.
    final class Race<R: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<R, any Error>?
            var work: Task<Void, Never>?
            var cancelled = false
        }
        private let state = Mutex(State())

        func arm(_ continuation: CheckedContinuation<R, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Resumes the continuation unless it was resumed already; `true` when this call did.
        @discardableResult
        func resume(with result: Result<R, any Error>) -> Bool {
            guard
                let continuation = state.withLock({ state in
                    defer { state.continuation = nil }
                    return state.continuation
                })
            else { return false }
            continuation.resume(with: result)
            return true
        }

        func setWork(_ work: Task<Void, Never>) {
            if state.withLock({ state in
                state.work = work
                return state.cancelled
            }) {
                work.cancel()
            }
        }

        func cancelWork() {
            state.withLock { state in
                state.cancelled = true
                return state.work
            }?.cancel()
        }
    }

    /// Set once, read from any task.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func raise() { value.store(true, ordering: .releasing) }
        var isRaised: Bool { value.load(ordering: .acquiring) }
    }
}
