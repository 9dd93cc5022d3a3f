import FileAccess
import Foundation

/// What onboarding keeps: the normalised document, where it came from, when, and whether its
/// signature was verified, with the signed code and key that prove it (never a bare claim).
public struct StoredConfiguration: Sendable, Hashable {
    /// The normalised, policy-checked document.
    public var document: ConfigurationDocument
    /// The provider that found it.
    public var providerID: String
    /// Where the provider found it, for people (a file name, a URL without its query).
    public var origin: String
    /// When it was stored.
    public var storedAt: Date
    /// Whether it was signed, and by which key if the signature was verified.
    public var signature: SignatureStatus
    /// For a verified signature: the signed code and the key that verified it, so that the
    /// signature can be checked again on every restore.
    public var signatureProof: SignatureProof?

    /// A record of `document` as `providerID` found it at `origin`.
    public init(
        document: ConfigurationDocument, providerID: String, origin: String, storedAt: Date = Date(),
        signature: SignatureStatus, signatureProof: SignatureProof? = nil
    ) {
        self.document = document
        self.providerID = providerID
        self.origin = origin
        self.storedAt = storedAt
        self.signature = signature
        self.signatureProof = signatureProof
    }

    /// What `restore --json` and `onboard --json` print (docs/onboarding.md, "restore --json"): the stored form
    /// with the document's secrets redacted, without the signed code (which carries the document as
    /// signed, passcode included), and with the `configuration` of `report`, the ``ActivationReport``
    /// of this configuration.
    public func report(_ report: ActivationReport) -> RestoreReport {
        RestoreReport(
            format: Self.format, provider: providerID, origin: origin, storedAt: storedAt.formatted(.iso8601),
            signature: SignatureRecord(signature, proof: signatureProof),
            document: document.value(includeSecrets: false),
            configuration: InspectReport.Configuration(document: report.payload.document ?? document, report: report))
    }

    /// The version of the stored form; a store of another version is not read.
    static let format = 1

    /// The stored form: `{"format":1,"provider":…,"origin":…,"storedAt":…,"signature":{…},"document":{…}}`;
    /// a verified signature also keeps `signedCode` (the JWS) and `publicKey` (base64 DER).
    public var value: ConfigurationValue {
        let signatureObject = SignatureRecord(signature, proof: signatureProof).storeValue(
            signedCode: signatureProof?.signedCode)
        return .object([
            "format": .integer(Self.format), "provider": .string(providerID), "origin": .string(origin),
            "storedAt": .string(storedAt.formatted(.iso8601)), "signature": .object(signatureObject),
            "document": document.value(includeSecrets: true),
        ])
    }

    /// Reads the stored form back. This checks the form only; ``check(against:source:)`` decides
    /// whether the configuration may be used.
    ///
    /// - Throws: ``ConfigurationError`` (`storeDamaged`) saying what is wrong.
    public init(from value: ConfigurationValue, source: String) throws {
        func damaged(_ why: String) -> ConfigurationError { Self.damaged(source, why) }
        guard let object = value.objectValue else { throw damaged("not an object") }
        guard object["format"] == .integer(Self.format) else {
            throw damaged("unknown format \(object["format"]?.kindDescription ?? "missing")")
        }
        guard let provider = object["provider"]?.stringValue, let origin = object["origin"]?.stringValue,
            let stamp = object["storedAt"]?.stringValue, let storedAt = Date(storedTime: stamp),
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
            signatureProof = nil
        case "verified":
            guard let algorithm = signatureObject["algorithm"]?.stringValue.flatMap(SignatureAlgorithm.init(rawValue:)),
                let fingerprint = signatureObject["keyFingerprint"]?.stringValue
            else { throw damaged("signature fields are missing") }
            guard let signedCode = signatureObject["signedCode"]?.stringValue,
                let keyText = signatureObject["publicKey"]?.stringValue,
                let der = Base64.decode(keyText), let key = try? VerificationKey(derRepresentation: der)
            else {
                throw damaged("it records a verified signature without the signed code and key that prove it")
            }
            signature = .verified(
                algorithm: algorithm, keyFingerprint: fingerprint, keyID: signatureObject["keyID"]?.stringValue)
            signatureProof = SignatureProof(signedCode: signedCode, key: key)
        default:
            throw damaged("unknown signature status \(status)")
        }
        providerID = provider
        self.origin = origin
        self.storedAt = storedAt
    }

    /// Decides whether a stored configuration may be used, as onboarding decided when it stored
    /// it: the signature requirement, a verified signature checked again (the signed code must
    /// verify with the recorded key, that key must be one of the policy's keys if it names any,
    /// and the signed document must be the stored one), and every URL against the policy. A
    /// hand-edited store therefore cannot change the server or claim a signature it lacks.
    ///
    /// - Throws: ``ConfigurationError``: `signatureRequired`, `signatureForbidden`,
    ///   `signatureInvalid`, `storeDamaged`, or the policy's URL errors, naming `source`.
    public func check(against policy: SecurityPolicy, source: String) throws {
        switch signature {
        case .unsigned:
            if policy.signature == .required {
                throw ConfigurationError(
                    .signatureRequired, source: source,
                    "the stored configuration is not signed, and the policy requires a signature")
            }
        case .verified(let algorithm, let fingerprint, _):
            if policy.signature == .forbidden {
                throw ConfigurationError(
                    .signatureForbidden, source: source,
                    "the stored configuration is signed, and the policy forbids signed codes")
            }
            guard let proof = signatureProof else {
                throw Self.damaged(source, "it records a verified signature without proof")
            }
            guard proof.key.fingerprint == fingerprint else {
                throw Self.damaged(source, "the recorded key fingerprint is not the stored key's")
            }
            let signedValue: ConfigurationValue
            if ActivationCode.isActivationCode(proof.signedCode) {
                // Removing a key from the trust list revokes what it signed, stored codes too.
                let trusted = policy.activationCodeKeys
                guard trusted.entries.isEmpty || trusted.entry(keyID: proof.key.keyIDBytes) != nil else {
                    throw ConfigurationError(
                        .unknownKey, source: source,
                        """
                        the stored configuration was signed with key \(fingerprint), \
                        which is not in the trust list (revoked?)
                        """
                    )
                }
                guard proof.key.activationCodeAlgorithm == algorithm else {
                    throw Self.damaged(source, "the recorded algorithm is not the key's")
                }
                do {
                    signedValue = try ActivationCode.document(
                        of: proof.signedCode, signedBy: proof.key, source: "\(source) (stored signed code)")
                } catch {
                    throw Self.damaged(source, "the stored signature does not verify")
                }
                if let entry = trusted.entry(keyID: proof.key.keyIDBytes) {
                    try policy.check(document, signedBy: entry, source: source)
                }
            } else {
                if !policy.verificationKeys.isEmpty && !policy.verificationKeys.contains(proof.key) {
                    throw ConfigurationError(
                        .signatureInvalid, source: source,
                        """
                        the stored configuration was signed with key \(fingerprint), \
                        which is not among the given public keys
                        """
                    )
                }
                let parts = try CompactJWS.parse(proof.signedCode, source: "\(source) (stored signed code)")
                guard parts.algorithm == algorithm else {
                    throw Self.damaged(source, "the recorded algorithm is not the signed code's")
                }
                do {
                    _ = try CompactJWS.verify(parts, with: [proof.key], source: source)
                } catch {
                    throw Self.damaged(source, "the stored signature does not verify")
                }
                signedValue = try JSONReader(maxBytes: policy.limits.maxDocumentBytes, maxDepth: policy.limits.maxDepth)
                    .parse(parts.payload, source: "\(source) (signed payload)")
            }
            var signed = try ConfigurationDocument(
                from: signedValue, source: "\(source) (signed payload)", limits: policy.limits)
            // Onboarding records the app id it was given when the document names none.
            if signed.appID == nil { signed.appID = document.appID }
            guard signed == document else {
                throw Self.damaged(source, "the stored document is not the one that was signed")
            }
        }
        try policy.check(document, source: source)
    }

    static func damaged(_ source: String, _ why: String) -> ConfigurationError {
        ConfigurationError(.storeDamaged, source: source, "the stored configuration is damaged (\(why))")
    }
}

/// Where onboarding persists its configuration. Pluggable: apps may keep it in a keychain, a
/// database, or anywhere else.
public protocol ConfigurationStore: Sendable {
    /// Stores the configuration, atomically. Without `replacing`, a configuration that is
    /// already stored is kept and the call throws (`fileExists`); the check and the write are
    /// one step, so of two processes onboarding at once, one wins and the other is told.
    func save(_ configuration: StoredConfiguration, replacing: Bool) throws
    /// The stored configuration, or `nil` when nothing is onboarded.
    func load() throws -> StoredConfiguration?
    /// Removes the stored configuration and anything derived from it; `false` if there was none.
    @discardableResult func remove() throws -> Bool
}

extension ConfigurationStore {
    /// Stores the configuration, replacing one that is already stored.
    public func save(_ configuration: StoredConfiguration) throws {
        try save(configuration, replacing: true)
    }
}

/// The default store: one JSON file, mode 0600, in a folder (0700 when it creates it) that only
/// its owner can write. Writes are atomic and serialised by a lock file beside the store, and
/// the store is read only if it is a regular file (not a link) that nobody else can change.
public struct FileConfigurationStore: ConfigurationStore {
    /// The store file.
    public var path: String

    /// A store at `path` (by default ``defaultPath(environment:)``).
    public init(path: String = FileConfigurationStore.defaultPath()) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/activate/configuration.json`, else `~/.config/activate/configuration.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? "\(environment["HOME"] ?? NSHomeDirectory())/.config"
        return "\(base)/activate/configuration.json"
    }

    /// The store file is small; anything much larger is not ours.
    static let maxBytes = 1 << 20

    var directory: String { Files.parentFolder(of: path) }
    /// The lock file beside the store; it stays when the store is removed (removing a lock file races).
    var lockPath: String { "\(directory)/.\(path.split(separator: "/").last.map(String.init) ?? "configuration").lock" }

    public func save(_ configuration: StoredConfiguration, replacing: Bool) throws {
        try FileIO.makeDirectory(directory, mode: 0o700)
        try FileIO.converting(checkDirectory)
        try FileIO.withExclusiveLock(lockPath) {
            if !replacing && FileIO.exists(path) {
                throw ConfigurationError(.fileExists, source: path, "a configuration is already stored")
            }
            try FileIO.write(
                Array(JSONWriter.pretty(configuration.value).utf8) + [0x0A], to: path, replace: true, mode: 0o600)
        }
    }

    public func load() throws -> StoredConfiguration? {
        let stored = try FileIO.converting { () throws(FileFailure) -> Bool in
            guard let status = try Files.status(path) else { return false }
            try checkDirectory()
            try Files.requirePrivate(path, status, what: "the stored configuration")
            return true
        }
        guard stored else { return nil }
        let bytes = try FileIO.read(path, limit: Self.maxBytes, followLinks: false)
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: Self.maxBytes).parse(bytes, source: path)
        } catch let error as ConfigurationError {
            throw StoredConfiguration.damaged(path, String(error.reason.dropFirst(path.count + 2)))
        }
        return try StoredConfiguration(from: value, source: path)
    }

    /// Whether the file at ``path`` has this store's form: a JSON object with the stored form's
    /// `format`, `provider`, `origin`, `storedAt`, `signature` and `document` (valid or not). Only
    /// such a file is taken for a plaintext store, moved into a secure store or removed by a
    /// reset; any other file, JSON or not, is left alone.
    public var holdsStoredForm: Bool {
        guard FileIO.exists(path), let bytes = try? FileIO.read(path, limit: Self.maxBytes, followLinks: false),
            let value = try? JSONReader(maxBytes: Self.maxBytes).parse(bytes, source: path),
            let object = value.objectValue
        else { return false }
        return object["format"] == .integer(StoredConfiguration.format)
            && ["provider", "origin", "storedAt", "signature", "document"].allSatisfy { object[$0] != nil }
    }

    @discardableResult
    public func remove() throws -> Bool {
        guard FileIO.exists(directory) else { return false }
        return try FileIO.withExclusiveLock(lockPath) { try FileIO.remove(path) }
    }

    /// The store's folder must be a real folder that only its owner (this user or root) can write:
    /// anyone else who can write there can swap the store.
    func checkDirectory() throws(FileFailure) {
        guard let status = try Files.status(directory) else {
            throw FileFailure(.unreadable, directory, "the configuration folder is missing")
        }
        guard status.type == .directory else {
            throw FileFailure(.unreadable, directory, "is \(FileFailure.describe(status.type)), not a folder")
        }
        try Files.requirePrivate(directory, status, what: "the configuration folder")
    }
}

extension Date {
    /// A time as the stores write theirs (ISO 8601), in whole seconds: a fraction of a second would
    /// not survive the next write, so a value read back would differ from the one written.
    package init?(storedTime text: String) {
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        self.init(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
