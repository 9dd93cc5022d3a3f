import ArgumentParser
import Foundation

/// A time on the command line: a date (`2027-01-31`, midnight UTC), a date and time
/// (`2027-01-31T12:00:00Z`, RFC 3339), or a span from now (`14d`, `12h`, `30m`).
struct DateArgument: ExpressibleByArgument, Sendable {
    enum Value: Sendable {
        case absolute(Date)
        case fromNow(TimeInterval)
    }

    let value: Value

    init?(argument: String) {
        let units: [Character: TimeInterval] = ["d": 86_400, "h": 3_600, "m": 60]
        if let unit = argument.last.flatMap({ units[$0] }), let count = Int(argument.dropLast()), count > 0,
            count <= 100 * 365 * 24 * 60
        {
            value = .fromNow(TimeInterval(count) * unit)
        } else if let date = try? Date(argument, strategy: .iso8601) {
            value = .absolute(date)
        } else if let date = try? Date(argument + "T00:00:00Z", strategy: .iso8601), argument.count == 10 {
            value = .absolute(date)
        } else {
            return nil
        }
    }

    /// The time this argument names, counting spans from `now`.
    func date(from now: Date) -> Date {
        switch value {
        case .absolute(let date): date
        case .fromNow(let span): now.addingTimeInterval(span)
        }
    }

    static var defaultValueDescription: String {
        "a date (2027-01-31), a time (2027-01-31T12:00:00Z) or a span from now (14d, 12h, 30m)"
    }
}
