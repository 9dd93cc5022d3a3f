import Foundation

/// Reads a configuration file: JSON, XML or binary property list, flattened MDM keys
/// (iOS `ConfigurationProvider.plist`, Android `sap_mobile_services.json`).
public struct FileConfigurationProvider: ConfigurationProvider {
    public static let defaultIdentifier = "com.sap.configuration.provider.fileconfiguration"
    public let identifier: String
    public var path: String
    public var recognizer: PayloadRecognizer

    public init(path: String, recognizer: PayloadRecognizer = PayloadRecognizer(), identifier: String = FileConfigurationProvider.defaultIdentifier) {
        self.path = path
        self.recognizer = recognizer
        self.identifier = identifier
    }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard FileIO.exists(path) else { throw ConfigurationError(.notFound, source: path, "no such file") }
        return try recognizer.configuration(from: try FileIO.read(path, limit: recognizer.policy.limits.maxDocumentBytes), source: path)
    }
}

/// Configuration text supplied by the app (scanned QR text, a pasted string): JSON, a signed JWS,
/// or an activation link. Without fixed text it asks for the `JSONstring` input.
public struct JSONStringConfigurationProvider: ConfigurationProvider {
    public static let defaultIdentifier = "com.sap.configuration.provider.json"
    public let identifier = JSONStringConfigurationProvider.defaultIdentifier
    public var text: String?
    public var recognizer: PayloadRecognizer

    public init(text: String? = nil, recognizer: PayloadRecognizer = PayloadRecognizer()) {
        self.text = text
        self.recognizer = recognizer
    }

    public var inputKeys: [ProviderInputKey] { text == nil ? [.jsonString] : [] }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard let text = text ?? input[.jsonString] else {
            throw ConfigurationError(.notFound, source: "JSON string", "none was given")
        }
        return try recognizer.configuration(from: Array(text.utf8), source: "JSON string")
    }
}

/// Managed (MDM) configuration. On Linux (decision): the JSON or property-list file named by the
/// environment variable `ACTIVATE_MANAGED_CONFIG`; MDM consoles' flattened keys are inflated.
public struct ManagedConfigurationProvider: ConfigurationProvider {
    public static let defaultIdentifier = "com.sap.configuration.provider.managed"
    public static let environmentVariable = "ACTIVATE_MANAGED_CONFIG"
    public let identifier = ManagedConfigurationProvider.defaultIdentifier
    public var environment: [String: String]
    public var recognizer: PayloadRecognizer

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, recognizer: PayloadRecognizer = PayloadRecognizer()) {
        self.environment = environment
        self.recognizer = recognizer
    }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard let path = environment[Self.environmentVariable], !path.isEmpty else {
            throw ConfigurationError(.notFound, source: "managed configuration", "\(Self.environmentVariable) is not set")
        }
        var provided = try await FileConfigurationProvider(path: path, recognizer: recognizer).provide(input: input)
        provided.origin = "managed configuration (\(path))"
        return provided
    }
}
