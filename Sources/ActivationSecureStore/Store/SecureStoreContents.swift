import ActivationConfiguration
import Foundation

/// How a store's file key is protected.
public enum StoreProtection: String, Sendable, Hashable, Codable {
    /// By the user's passcode.
    case passcode
    /// By a device secret only (a 0600 file of random bytes beside the store), where the passcode
    /// policy allows a store without a passcode.
    case deviceSecret = "device-secret"
}

/// The credentials onboarding keeps for the configuration's authentication type.
public struct StoredCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The user name of basic authentication.
    public var user: String?
    /// The password of basic authentication.
    public var password: String?
    /// The API key of API-key authentication.
    public var apiKey: String?

    /// Credentials; all are optional.
    public init(user: String? = nil, password: String? = nil, apiKey: String? = nil) {
        self.user = user
        self.password = password
        self.apiKey = apiKey
    }

    /// Whether nothing is kept.
    public var isEmpty: Bool { user == nil && password == nil && apiKey == nil }

    /// Never the secrets themselves: `user alice, password (set)`.
    public var description: String {
        var parts: [String] = []
        if let user { parts.append("user \(user)") }
        if password != nil { parts.append("password (set)") }
        if apiKey != nil { parts.append("API key (set)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// What a configuration signs in with, and so which credentials onboarding asks for.
    public enum Kind: Sendable, Hashable {
        /// A user name and a password (`basic.default`).
        case userAndPassword
        /// An API key (`apikeyonly`).
        case apiKey
    }

    /// The credentials `document`'s sign-in method needs; `nil` for methods that sign in on a web
    /// page or with a certificate (OAuth, SAML), which keep no credentials here.
    public static func kind(for document: ConfigurationDocument) -> Kind? {
        switch document.primaryAuth?.method {
        case .basic?: .userAndPassword
        case .apiKey?: .apiKey
        default: nil
        }
    }

    /// The largest credentials file read.
    public static let maxJSONBytes = 64 << 10

    /// Reads credentials given as JSON for automation: `{"user": "…", "password": "…"}` or
    /// `{"apiKey": "…"}`.
    ///
    /// - Throws: `ConfigurationError` (`invalidJSON`, `wrongType`, `invalidValue`) naming `source`
    ///   and the key; never a secret.
    public init(json bytes: [UInt8], source: String) throws {
        let value = try JSONReader(maxBytes: Self.maxJSONBytes, maxDepth: 2).parse(bytes, source: source)
        guard let object = value.objectValue else {
            throw ConfigurationError(
                .wrongType, source: source,
                "credentials are an object such as {\"user\": …, \"password\": …}, not \(value.kindDescription)")
        }
        for (key, item) in object {
            guard ["user", "password", "apiKey"].contains(key) else {
                throw ConfigurationError(
                    .invalidValue, source: source, keyPath: key, "is not a credential (user, password, apiKey)")
            }
            guard item.stringValue != nil else {
                throw ConfigurationError(.wrongType, source: source, keyPath: key, "must be a string")
            }
        }
        self.init(
            user: object["user"]?.stringValue, password: object["password"]?.stringValue,
            apiKey: object["apiKey"]?.stringValue)
    }

    var value: ConfigurationValue {
        var object = ConfigurationObject()
        if let user { object["user"] = .string(user) }
        if let password { object["password"] = .string(password) }
        if let apiKey { object["apiKey"] = .string(apiKey) }
        return .object(object)
    }

    init(from value: ConfigurationValue, _ read: ContentsReader) throws {
        let object = try read.object(value, "credentials")
        user = try read.string(object, "user", in: "credentials")
        password = try read.string(object, "password", in: "credentials")
        apiKey = try read.string(object, "apiKey", in: "credentials")
    }
}

/// What a secure store holds: the plaintext inside its age file, a JSON object documented in
/// docs/secure-store.md so that its owner can read it with `age -d`, or write one with
/// `age -p` that `activate restore` opens:
///
/// ```json
/// {"format": "activate-secure-store", "version": 1, "protection": "passcode",
///  "passcodeChangedAt": "2026-11-26T10:00:00Z", "lastServerContact": "2026-11-26T10:00:00Z",
///  "configuration": {…the stored configuration…}, "credentials": {"user": "…", "password": "…"},
///  "credentialsCheckedAt": "2026-11-26T10:00:00Z", "signIn": {…tokens, see ``StoredSignIn``…},
///  "clientPolicies": {…settingsExchange…}, "clientPoliciesFrom": "https://mobile.example.com",
///  "values": {"my.key": …}}
/// ```
///
/// Only `format` and `version` are required; a missing policy is SAP's default.
public struct SecureStoreContents: Sendable, Hashable {
    /// The onboarded configuration.
    public var configuration: StoredConfiguration?
    /// The credentials for the configuration's authentication.
    public var credentials: StoredCredentials
    /// The client policies in force.
    public var clientPolicies: ClientPolicies
    /// The base URL of the server the client policies came from, asked again to refresh them;
    /// nil when they came from a file or are SAP's defaults.
    public var clientPoliciesSource: String?
    /// How the file key is protected.
    public var protection: StoreProtection
    /// When the passcode was set; `nil` when unknown (a store written by `age -p`), which starts
    /// the expiry clock at the next change.
    public var passcodeChangedAt: Date?
    /// The last successful contact with the server, which the block-and-wipe policy measures from.
    public var lastServerContact: Date?
    /// The app's own values (the SDK's secure key-value store), by key.
    public var values: ConfigurationObject
    /// When the server accepted ``credentials`` (one validation request); `nil` when they were
    /// stored unchecked (offline).
    public var credentialsCheckedAt: Date?
    /// The OAuth 2.0 session of the last sign-in, when there is one.
    public var signIn: StoredSignIn?

    /// Contents; everything but the protection is optional.
    public init(
        configuration: StoredConfiguration? = nil, credentials: StoredCredentials = StoredCredentials(),
        clientPolicies: ClientPolicies = .default, clientPoliciesSource: String? = nil,
        protection: StoreProtection = .passcode,
        passcodeChangedAt: Date? = nil, lastServerContact: Date? = nil, values: ConfigurationObject = [:],
        credentialsCheckedAt: Date? = nil, signIn: StoredSignIn? = nil
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.credentialsCheckedAt = credentialsCheckedAt
        self.signIn = signIn
        self.clientPolicies = clientPolicies
        self.clientPoliciesSource = clientPoliciesSource
        self.protection = protection
        self.passcodeChangedAt = passcodeChangedAt
        self.lastServerContact = lastServerContact
        self.values = values
    }

    static let format = "activate-secure-store"
    static let version = 1
    /// The plaintext of a store is small; anything much larger is not ours.
    public static let maxPlaintextBytes = 4 << 20

    /// The documented plaintext, as a JSON value.
    public var value: ConfigurationValue {
        var object: ConfigurationObject = [
            "format": .string(Self.format), "version": .integer(Self.version),
            "protection": .string(protection.rawValue),
        ]
        if let passcodeChangedAt { object["passcodeChangedAt"] = .string(passcodeChangedAt.formatted(.iso8601)) }
        if let lastServerContact { object["lastServerContact"] = .string(lastServerContact.formatted(.iso8601)) }
        if let configuration { object["configuration"] = configuration.value }
        if !credentials.isEmpty { object["credentials"] = credentials.value }
        if let credentialsCheckedAt {
            object["credentialsCheckedAt"] = .string(credentialsCheckedAt.formatted(.iso8601))
        }
        if let signIn { object["signIn"] = signIn.value }
        object["clientPolicies"] = clientPolicies.document
        if let clientPoliciesSource { object["clientPoliciesFrom"] = .string(clientPoliciesSource) }
        object["values"] = .object(values)
        return .object(object)
    }

    /// The plaintext's bytes (pretty JSON and a newline, so that `age -d` shows something readable).
    public var plaintext: [UInt8] { Array(JSONWriter.pretty(value).utf8) + [0x0A] }

    /// Reads the documented plaintext.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` naming `source` and the key path.
    public init(plaintext: [UInt8], source: String) throws {
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: Self.maxPlaintextBytes, maxDepth: 64).parse(plaintext, source: source)
        } catch let error as ConfigurationError {
            throw SecureStoreError(
                .storeDamaged, source: source, "the store's contents are not its JSON: \(error.message)")
        }
        try self.init(from: value, source: source)
    }

    /// Reads the documented plaintext from a parsed value.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` naming `source` and the key path.
    public init(from value: ConfigurationValue, source: String) throws {
        let read = ContentsReader(source: source)
        guard let object = value.objectValue else {
            throw read.damaged(nil, "is \(value.kindDescription), not an object")
        }
        guard object["format"] == .string(Self.format) else {
            throw read.damaged("format", "is not \"\(Self.format)\"")
        }
        guard object["version"] == .integer(Self.version) else {
            throw read.damaged(
                "version",
                "is \(object["version"]?.kindDescription ?? "missing"); this activate reads version \(Self.version)")
        }
        switch object["protection"] {
        case nil: protection = .passcode
        case .string(let text)? where StoreProtection(rawValue: text) != nil:
            protection = StoreProtection(rawValue: text) ?? .passcode
        case let other?:
            throw read.damaged("protection", "is \(other.kindDescription), not \"passcode\" or \"device-secret\"")
        }
        passcodeChangedAt = try read.date(object, "passcodeChangedAt")
        lastServerContact = try read.date(object, "lastServerContact")
        if let stored = object["configuration"], stored != .null {
            do {
                configuration = try StoredConfiguration(from: stored, source: "\(source): configuration")
            } catch let error as ConfigurationError {
                throw SecureStoreError(.storeDamaged, source: source, keyPath: "configuration", error.message)
            }
        } else {
            configuration = nil
        }
        credentials = try object["credentials"].map { try StoredCredentials(from: $0, read) } ?? StoredCredentials()
        credentialsCheckedAt = try read.date(object, "credentialsCheckedAt")
        if let stored = object["signIn"], stored != .null {
            signIn = try StoredSignIn(from: stored, read)
        } else {
            signIn = nil
        }
        if let policies = object["clientPolicies"], policies != .null {
            do {
                clientPolicies = try ClientPolicies(from: policies, source: source)
            } catch let error as ConfigurationError {
                throw SecureStoreError(
                    .storeDamaged, source: source,
                    keyPath: ["clientPolicies", error.keyPath].compactMap { $0 }.joined(separator: "."),
                    error.message)
            }
        } else {
            clientPolicies = .default
        }
        switch object["clientPoliciesFrom"] {
        case nil, .null?: clientPoliciesSource = nil
        case .string(let url)?: clientPoliciesSource = url
        case let other?: throw read.damaged("clientPoliciesFrom", "is \(other.kindDescription), not a URL")
        }
        values = try object["values"].map { try read.object($0, "values") } ?? [:]
    }
}

extension SecureStoreContents {
    /// The app's value for `key`, decoded as `type`; `nil` when there is none.
    ///
    /// - Throws: a `DecodingError` when the value is not a `type`.
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        guard let stored = values[key] else { return nil }
        return try JSONDecoder().decode(Value.self, from: Data(JSONWriter.compact(stored).utf8))
    }

    /// Sets the app's value for `key`; `nil` removes it.
    ///
    /// - Throws: an `EncodingError`, or `ConfigurationError` when the encoded value is not JSON this store keeps.
    public mutating func setValue<Value: Encodable>(_ value: Value?, forKey key: String) throws {
        guard let value else {
            values[key] = nil
            return
        }
        let encoded = try JSONEncoder().encode(value)
        values[key] = try JSONReader(maxBytes: SecureStoreContents.maxPlaintextBytes, maxDepth: 32).parse(
            Array(encoded), source: key)
    }
}

extension SecureStoreContents {
    /// What `restore --json` and `onboard --json` print of a secure store: the configuration's
    /// report with the store's protection, its credentials (secrets `(hidden)` unless
    /// `showingSecrets`) and the last server contact; `nil` when the store holds no configuration.
    public func report(_ activation: ActivationReport, showingSecrets: Bool = false) -> RestoreReport? {
        guard var report = configuration?.report(activation) else { return nil }
        report.protection = protection.rawValue
        if !credentials.isEmpty {
            var shown = credentials
            if !showingSecrets {
                shown.password = shown.password.map { _ in "(hidden)" }
                shown.apiKey = shown.apiKey.map { _ in "(hidden)" }
            }
            report.credentials = shown.value
        }
        report.lastServerContact = lastServerContact?.formatted(.iso8601)
        report.signIn = signInState(showingSecrets: showingSecrets)
        return report
    }

    /// The sign-in state of the configuration's method; `nil` for methods that keep nothing here
    /// (SAML, certificates) or without a configuration.
    public func signInState(showingSecrets: Bool = false) -> SignInState? {
        guard let method = configuration?.document.primaryAuth?.method else { return nil }
        switch method {
        case .oauth2:
            var state = SignInState(method: method.typeName, signedIn: signIn != nil)
            if let signIn {
                state.user = signIn.subject
                state.signedInAt = signIn.signedInAt.formatted(.iso8601)
                state.accessTokenExpiresAt = signIn.expiresAt?.formatted(.iso8601)
                state.refreshTokenKept = signIn.refreshToken != nil
                state.scope = signIn.scope
                if showingSecrets {
                    state.accessToken = signIn.accessToken
                    state.refreshToken = signIn.refreshToken
                }
            }
            return state
        case .basic, .apiKey:
            var state = SignInState(method: method.typeName, signedIn: !credentials.isEmpty)
            state.user = credentials.user
            state.checkedAt = credentials.isEmpty ? nil : credentialsCheckedAt?.formatted(.iso8601)
            return state
        default:
            return nil
        }
    }
}

/// Reads the store's fields, naming the key path of what is wrong.
struct ContentsReader {
    var source: String

    func damaged(_ keyPath: String?, _ message: String) -> SecureStoreError {
        SecureStoreError(.storeDamaged, source: source, keyPath: keyPath, message)
    }

    func object(_ value: ConfigurationValue, _ keyPath: String) throws -> ConfigurationObject {
        guard let object = value.objectValue else {
            throw damaged(keyPath, "is \(value.kindDescription), not an object")
        }
        return object
    }

    func string(_ object: ConfigurationObject, _ key: String, in parent: String) throws -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw damaged("\(parent).\(key)", "is \(other.kindDescription), not a string")
        }
    }

    func date(_ object: ConfigurationObject, _ key: String, in parent: String? = nil) throws -> Date? {
        let path = parent.map { "\($0).\(key)" } ?? key
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let date = Date(storedTime: text) else {
                throw damaged(path, "is not an ISO 8601 time: \(UntrustedText.escaped(String(text.prefix(40))))")
            }
            return date
        case let other?: throw damaged(path, "is \(other.kindDescription), not an ISO 8601 time")
        }
    }
}

extension SecureStoreContents {
    /// Days since the passcode was set, when that is past the policy's expiry; `nil` otherwise.
    public func passcodeExpiredDays(now: Date) -> Int? {
        let days = clientPolicies.passcode.expiresInDays
        guard days > 0, let changed = passcodeChangedAt else { return nil }
        let elapsed = now.timeIntervalSince(changed) / 86_400
        return elapsed >= Double(days) ? Int(elapsed) : nil
    }
}
