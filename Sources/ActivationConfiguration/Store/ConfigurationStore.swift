import Foundation

/// What onboarding keeps: the normalised document, where it came from, when, and whether its
/// signature was verified (never a raw signed string without that result).
public struct StoredConfiguration: Sendable, Hashable {
    public var document: ConfigurationDocument
    public var providerID: String
    public var origin: String
    public var storedAt: Date
    public var signature: SignatureStatus

    public init(document: ConfigurationDocument, providerID: String, origin: String, storedAt: Date = Date(), signature: SignatureStatus) {
        self.document = document
        self.providerID = providerID
        self.origin = origin
        self.storedAt = storedAt
        self.signature = signature
    }

    /// The stored form: `{"format":1,"provider":…,"origin":…,"storedAt":…,"signature":{…},"document":{…}}`.
    public var value: ConfigurationValue {
        var signatureObject: ConfigurationObject = ["status": .string(signature.name)]
        if case .verified(let algorithm, let fingerprint, let keyID) = signature {
            signatureObject["algorithm"] = .string(algorithm.rawValue)
            signatureObject["keyFingerprint"] = .string(fingerprint)
            if let keyID { signatureObject["keyID"] = .string(keyID) }
        }
        return .object([
            "format": .integer(1), "provider": .string(providerID), "origin": .string(origin),
            "storedAt": .string(storedAt.formatted(.iso8601)), "signature": .object(signatureObject),
            "document": document.value(includeSecrets: true),
        ])
    }

    /// Reads the stored form back.
    ///
    /// - Throws: ``ConfigurationError`` (`storeDamaged`) saying what is wrong.
    public init(from value: ConfigurationValue, source: String) throws {
        func damaged(_ why: String) -> ConfigurationError {
            ConfigurationError(.storeDamaged, "\(source): the stored configuration is damaged (\(why)); run `activate reset` to remove it")
        }
        guard let object = value.objectValue else { throw damaged("not an object") }
        guard object["format"] == .integer(1) else { throw damaged("unknown format \(object["format"]?.kindDescription ?? "missing")") }
        guard let provider = object["provider"]?.stringValue, let origin = object["origin"]?.stringValue,
              let stamp = object["storedAt"]?.stringValue, let storedAt = try? Date(stamp, strategy: .iso8601),
              let signatureObject = object["signature"]?.objectValue, let status = signatureObject["status"]?.stringValue,
              let documentValue = object["document"]
        else { throw damaged("a field is missing") }
        do {
            document = try ConfigurationDocument(from: documentValue, source: source)
        } catch let error as ConfigurationError {
            throw damaged(error.reason)
        }
        switch status {
        case "unsigned":
            signature = .unsigned
        case "verified":
            guard let algorithm = signatureObject["algorithm"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)),
                  let fingerprint = signatureObject["keyFingerprint"]?.stringValue else { throw damaged("signature fields are missing") }
            signature = .verified(algorithm: algorithm, keyFingerprint: fingerprint, keyID: signatureObject["keyID"]?.stringValue)
        default:
            throw damaged("unknown signature status \(status)")
        }
        providerID = provider
        self.origin = origin
        self.storedAt = storedAt
    }
}

/// Where onboarding persists its configuration. Pluggable: apps may keep it in a keychain, a
/// database, or anywhere else.
public protocol ConfigurationStore: Sendable {
    /// Replaces the stored configuration, atomically.
    func save(_ configuration: StoredConfiguration) throws
    /// The stored configuration, or `nil` when nothing is onboarded.
    func load() throws -> StoredConfiguration?
    /// Removes the stored configuration and anything derived from it; `false` if there was none.
    @discardableResult func remove() throws -> Bool
}

/// The default store: one JSON file, written atomically with mode 0600 in a 0700 directory.
public struct FileConfigurationStore: ConfigurationStore {
    public var path: String

    public init(path: String = FileConfigurationStore.defaultPath()) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/activate/configuration.json`, else `~/.config/activate/configuration.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? "\(environment["HOME"] ?? NSHomeDirectory())/.config"
        return "\(base)/activate/configuration.json"
    }

    /// The store file is small; anything much larger is not ours.
    static let maxBytes = 1 << 20

    public func save(_ configuration: StoredConfiguration) throws {
        let directory = FileIO.parentDirectory(of: path)
        if !FileIO.exists(directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ConfigurationError(.fileUnwritable, "\(directory): cannot create the configuration directory")
            }
        }
        try FileIO.write(Array(JSONWriter.pretty(configuration.value).utf8) + [0x0A], to: path, replace: true, mode: 0o600)
    }

    public func load() throws -> StoredConfiguration? {
        guard FileIO.exists(path) else { return nil }
        let bytes = try FileIO.read(path, limit: Self.maxBytes)
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: Self.maxBytes).parse(bytes, source: path)
        } catch let error as ConfigurationError {
            throw ConfigurationError(.storeDamaged, "\(path): the stored configuration is damaged (\(error.reason.dropFirst(path.count + 2))); run `activate reset` to remove it")
        }
        return try StoredConfiguration(from: value, source: path)
    }

    @discardableResult
    public func remove() throws -> Bool {
        try FileIO.remove(path)
    }
}
