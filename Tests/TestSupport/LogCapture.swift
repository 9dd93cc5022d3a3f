import Foundation
import Logging

/// Every log line, level and metadata included, kept for the test to search.
public final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    /// All lines so far, one per line.
    public var text: String { lock.withLock { lines.joined(separator: "\n") } }

    /// A logger whose lines at `level` and above are kept here.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lock.withLock { lines.append(line) } }
}

struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var logLevel = Logger.Level.trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let metadata = self.metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) \(metadata) \(event.message)\(event.error.map { " \($0)" } ?? "")")
    }
}
