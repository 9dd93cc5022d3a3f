import Foundation

/// Reads a configuration file: JSON, XML or binary property list, flattened MDM keys
/// (iOS `ConfigurationProvider.plist`, Android `sap_mobile_services.json`).
public struct FileConfigurationProvider: ConfigurationProvider {
    /// The identifier of SAP's file configuration provider.
    public static let defaultIdentifier = "com.sap.configuration.provider.fileconfiguration"
    public let identifier: String
    /// The file to read.
    public var path: String
    /// Reads and checks what the provider finds.
    public var recognizer: PayloadRecognizer

    /// A provider that reads `path`.
    public init(
        path: String, recognizer: PayloadRecognizer = PayloadRecognizer(),
        identifier: String = FileConfigurationProvider.defaultIdentifier
    ) {
        self.path = path
        self.recognizer = recognizer
        self.identifier = identifier
    }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard FileIO.exists(path) else { throw ConfigurationError(.notFound, source: path, "no such file") }
        return try recognizer.configuration(
            from: try FileIO.read(path, limit: recognizer.policy.limits.maxDocumentBytes), source: path)
    }
}

/// Configuration text supplied by the app (scanned QR text, a pasted string): JSON, a signed JWS,
/// or an activation link. Without fixed text it asks for the `JSONstring` input.
public struct JSONStringConfigurationProvider: ConfigurationProvider {
    /// The identifier of SAP's JSON string provider.
    public static let defaultIdentifier = "com.sap.configuration.provider.json"
    public let identifier = JSONStringConfigurationProvider.defaultIdentifier
    /// The text, when the app has it; `nil` asks the loader for ``ProviderInputKey/jsonString``.
    public var text: String?
    /// Reads and checks what the provider finds.
    public var recognizer: PayloadRecognizer

    /// A provider of `text`, or of the text the loader is given.
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
    /// The identifier of SAP's managed configuration provider.
    public static let defaultIdentifier = "com.sap.configuration.provider.managed"
    /// The environment variable that names the managed configuration file.
    public static let environmentVariable = "ACTIVATE_MANAGED_CONFIG"
    public let identifier = ManagedConfigurationProvider.defaultIdentifier
    /// The environment to read ``environmentVariable`` from (the process's, unless a test gives one).
    public var environment: [String: String]
    /// Reads and checks what the provider finds.
    public var recognizer: PayloadRecognizer

    /// A provider that reads the file `environment` names.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        recognizer: PayloadRecognizer = PayloadRecognizer()
    ) {
        self.environment = environment
        self.recognizer = recognizer
    }

    public func provide(input: ProviderInput) async throws -> ProvidedConfiguration {
        guard let path = environment[Self.environmentVariable], !path.isEmpty else {
            throw ConfigurationError(
                .notFound, source: "managed configuration", "\(Self.environmentVariable) is not set")
        }
        var provided = try await FileConfigurationProvider(path: path, recognizer: recognizer).provide(input: input)
        provided.origin = "managed configuration (\(path))"
        return provided
    }
}
