import Logging
import Synchronization

/// Tells the operator why requests are answered 503: a warning naming the database's error, at most
/// one every ``interval``, so that an outage under load does not flood the log. The error's text is
/// the driver's (SQLite's message, PostgresNIO's redacted description): never a bound value, so
/// never a code or e-mail address.
final class DatabaseTroubleLog: Sendable {
    /// The least time between two warnings.
    static let interval: Duration = .seconds(10)
    private let logger: Logger
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(logger: Logger) {
        self.logger = logger
    }

    /// Logs `error`, met while answering `route`, unless a warning went out less than ``interval`` ago.
    func report(_ error: any Error, route: String) {
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard last.map({ now - $0 >= Self.interval }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let what = error is DatabaseUnavailable ? "it did not answer in time" : String(describing: error)
        logger.warning(
            """
            answering 503 to \(route): the database failed: \(what); \
            failures in the next \(Self.interval) are not logged
            """
        )
    }
}
