/// SAP's log settings (`logSettings` of `settingsExchange`): whether the app logs, and how much.
public struct LogSettings: Sendable, Hashable {
    /// SAP's log levels, from none to the most detailed.
    public enum Level: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Nothing is logged.
        case none = "NONE"
        /// Only what stops the app.
        case fatal = "FATAL"
        /// Errors.
        case error = "ERROR"
        /// Warnings and errors.
        case warn = "WARN"
        /// What happens, in outline.
        case info = "INFO"
        /// Details for a developer.
        case debug = "DEBUG"
        /// Every step taken (SAP's most detailed level).
        case path = "PATH"

        /// Levels order from ``none`` to ``path``.
        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    /// Whether the app logs at all (`logEnabled`).
    public var isEnabled = false
    /// How much it logs when it does (`logLevel`).
    public var level = Level.error

    /// SAP's defaults: no logging.
    public init() {}

    /// The level in force: ``level`` when logging is enabled, else ``Level/none``.
    public var effectiveLevel: Level { isEnabled ? level : .none }

    init(reading value: ConfigurationValue?, _ reader: SettingsReader) throws {
        guard let value else { return }
        let object = try reader.object(value)
        isEnabled = try reader.bool(object, "logEnabled") ?? isEnabled
        switch object["logLevel"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let known = Level(rawValue: text.uppercased()) else {
                let levels = Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw reader.invalid(
                    "logLevel",
                    "not one of \(levels): \(ConfigurationValue.string(text).kindDescription)"
                )
            }
            level = known
        case let other?: throw reader.invalid("logLevel", "not a log level: \(other.kindDescription)")
        }
    }
}

/// SAP's usage policy (`usagePolicy` of `settingsExchange`): whether the app may collect usage
/// data, which needs the user's consent, and how often it uploads it.
public struct UsagePolicy: Sendable, Hashable {
    /// Whether usage data may be collected, with the user's consent (`dataCollectionEnabled`).
    public var dataCollectionEnabled = false
    /// Days between uploads of the usage data (`uploadDataAfterDays`; 0: the app decides).
    public var uploadDataAfterDays = 0
    /// Whether crash logs may be uploaded (`crashLogUploadEnabled`).
    public var crashLogUploadEnabled = false

    /// SAP's defaults: no data collection.
    public init() {}

    init(reading value: ConfigurationValue?, _ reader: SettingsReader) throws {
        guard let value else { return }
        let object = try reader.object(value)
        dataCollectionEnabled = try reader.bool(object, "dataCollectionEnabled") ?? dataCollectionEnabled
        uploadDataAfterDays = try reader.count(object, "uploadDataAfterDays", in: 0...36_500) ?? uploadDataAfterDays
        crashLogUploadEnabled = try reader.bool(object, "crashLogUploadEnabled") ?? crashLogUploadEnabled
    }
}

/// SAP's feature restrictions (`featureVectorPolicies` of `settingsExchange`): which of the
/// app's features an administrator has turned off.
public struct FeatureVectorPolicy: Sendable, Hashable {
    /// Whether every feature may run, whatever ``restrictedFeatures`` says (`featureVectorPolicyAllEnabled`).
    public var allEnabled = true
    /// The features that may not run unless ``allEnabled`` (`restrictedPolicies`), in the server's order.
    public var restrictedFeatures: [String] = []

    /// The longest list of restricted features read.
    public static let maxFeatures = 1000

    /// SAP's defaults: every feature may run.
    public init() {}

    /// Whether the feature named `feature` may run.
    public func allows(_ feature: String) -> Bool {
        allEnabled || !restrictedFeatures.contains(feature)
    }

    /// The features that may not run: none when ``allEnabled``.
    public var restricted: [String] { allEnabled ? [] : restrictedFeatures }

    init(reading value: ConfigurationValue?, _ reader: SettingsReader) throws {
        guard let value else { return }
        let object = try reader.object(value)
        allEnabled = try reader.bool(object, "featureVectorPolicyAllEnabled") ?? allEnabled
        switch object["restrictedPolicies"] {
        case nil, .null?: break
        case .array(let items)?:
            guard items.count <= Self.maxFeatures else {
                throw reader.invalid("restrictedPolicies", "lists more than \(Self.maxFeatures) features")
            }
            restrictedFeatures = try items.enumerated().map { index, item in
                guard case .string(let name) = item else {
                    throw reader.invalid("restrictedPolicies[\(index)]", "not a feature name: \(item.kindDescription)")
                }
                return name
            }
        // SAP's cockpit may send the list as one comma-separated string.
        case .string(let text)?:
            restrictedFeatures = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
        case let other?:
            throw reader.invalid("restrictedPolicies", "not a list of feature names: \(other.kindDescription)")
        }
    }
}
