import ActivationConfiguration
import Foundation
import Logging

/// `serve --log-format json`: one JSON object a line on stderr: time, level, message and metadata
/// (the request id). Written with the library's JSON writer, so every value is escaped.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel = Logger.Level.info
    var metadata: Logger.Metadata = [:]

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: ConfigurationObject = [
            "time": .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
            "level": .string(event.level.rawValue),
            "message": .string(event.message.description),
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).sorted(by: {
            $0.key < $1.key
        }) where object[key] == nil {
            object[key] = .string(value.description)
        }
        FileHandle.standardError.write(Data((JSONWriter.compact(.object(object)) + "\n").utf8))
    }
}
