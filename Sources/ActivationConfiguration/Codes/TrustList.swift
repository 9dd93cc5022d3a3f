import Foundation

/// The keys whose `AC1:` codes an app accepts, each with what it may vouch for: the issuer it
/// speaks for, when it is valid, and which hosts its codes may name. Removing a key revokes every
/// code it signed; overlapping validity periods let an administrator roll keys over.
///
/// The file is a JSON array (docs/activation-codes.md, "For administrators"):
/// ```json
/// [{"kid": "3f0c…", "alg": "EdDSA", "publicKey": "-----BEGIN PUBLIC KEY-----…", "issuer": "acme-it",
///   "notBefore": "2026-11-25T00:00:00Z", "notAfter": "2027-11-25T00:00:00Z",
///   "allowedHosts": ["mobile.example.hana.ondemand.com"]}]
/// ```
public struct TrustList: Sendable, Hashable {
    /// One trusted key.
    public struct Entry: Sendable, Hashable {
        /// The public key.
        public var key: VerificationKey
        /// `EdDSA` (Ed25519) or `ES256` (P-256).
        public var algorithm: SignatureAlgorithm
        /// If set, the key's codes must name this issuer (`iss`).
        public var issuer: String?
        /// The key is not trusted before this date.
        public var notBefore: Date?
        /// The key is not trusted after this date.
        public var notAfter: Date?
        /// If not empty, every host in the key's codes must equal an entry or lie under it.
        public var allowedHosts: [String]

        /// - Throws: ``ConfigurationError`` (`invalidTrustList`) for a key that cannot sign `AC1:`
        ///   codes (only Ed25519 and P-256 can), an allowed host that is no domain, or a
        ///   validity period that ends before it starts.
        public init(
            key: VerificationKey, issuer: String? = nil, notBefore: Date? = nil, notAfter: Date? = nil,
            allowedHosts: [String] = [], source: String = "trust list"
        ) throws {
            guard let algorithm = key.activationCodeAlgorithm else {
                throw ConfigurationError(
                    .invalidTrustList, source: source,
                    "an \(key.kind) key cannot sign AC1 codes (Ed25519 or EC P-256 only)")
            }
            if let notBefore, let notAfter, notAfter <= notBefore {
                throw ConfigurationError(.invalidTrustList, source: source, "notAfter is not later than notBefore")
            }
            var hosts: [String] = []
            for entry in allowedHosts {
                do {
                    hosts.append(try CanonicalURL.Host(allowListEntry: entry).description)
                } catch let error as ConfigurationError {
                    throw ConfigurationError(.invalidTrustList, source: source, keyPath: "allowedHosts", error.reason)
                }
            }
            self.key = key
            self.algorithm = algorithm
            self.issuer = issuer
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.allowedHosts = hosts
        }

        /// The key id (16 hex digits).
        public var keyID: String { key.keyID }

        /// Whether the key is trusted at `date`.
        public func isValid(at date: Date) -> Bool {
            (notBefore.map { date >= $0 } ?? true) && (notAfter.map { date <= $0 } ?? true)
        }
    }

    /// The entries, in file order; key ids are unique.
    public private(set) var entries: [Entry]

    /// Trust lists are small; anything larger is refused before it is read.
    public static let maxBytes = 1 << 20
    /// Entries in one list.
    public static let maxEntries = 1000

    /// An empty list.
    public init() {
        entries = []
    }

    /// A list of the given entries.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidTrustList`) when two entries have the same key.
    public init(_ entries: [Entry]) throws {
        self.entries = []
        for entry in entries { try add(entry) }
    }

    /// The entry for an 8-byte key id.
    public func entry(keyID: [UInt8]) -> Entry? {
        entries.first { $0.key.keyIDBytes == keyID }
    }

    /// The entry for a 16-hex-digit key id.
    public func entry(keyID: String) -> Entry? {
        entries.first { $0.keyID == keyID.lowercased() }
    }

    /// Adds a key.
    ///
    /// - Parameters:
    ///   - entry: the key, with its issuer, hosts and validity.
    ///   - replacing: replace an entry for the same key instead of refusing it.
    /// - Throws: ``ConfigurationError`` (`invalidTrustList`) when the key is there already, or
    ///   the list is full.
    public mutating func add(_ entry: Entry, replacing: Bool = false) throws {
        if let index = entries.firstIndex(where: { $0.key == entry.key }) {
            guard replacing else {
                throw ConfigurationError(.invalidTrustList, "the key \(entry.keyID) is in the trust list already")
            }
            entries[index] = entry
            return
        }
        guard entries.count < Self.maxEntries else {
            throw ConfigurationError(.invalidTrustList, "a trust list holds at most \(Self.maxEntries) keys")
        }
        entries.append(entry)
    }

    /// Removes the key with this id; returns whether it was there.
    @discardableResult
    public mutating func remove(keyID: String) -> Bool {
        let before = entries.count
        entries.removeAll { $0.keyID == keyID.lowercased() }
        return entries.count < before
    }

    // MARK: - The file

    /// Reads a trust-list file (JSON).
    ///
    /// - Throws: ``ConfigurationError`` naming the file, the entry and the key.
    public init(contentsOf path: String) throws {
        try self.init(json: try FileIO.read(path, limit: Self.maxBytes), source: path)
    }

    /// Reads a trust list from its JSON bytes.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidTrustList`, or the JSON reader's errors) naming
    ///   `source`, the entry and the key.
    public init(json bytes: [UInt8], source: String) throws {
        let value = try JSONReader(maxBytes: Self.maxBytes, maxDepth: 4, maxValues: 20 * Self.maxEntries + 10).parse(
            bytes, source: source)
        guard let items = value.arrayValue else {
            throw ConfigurationError(
                .invalidTrustList, source: source, "a trust list is a JSON array of keys, not \(value.kindDescription)")
        }
        guard items.count <= Self.maxEntries else {
            throw ConfigurationError(
                .invalidTrustList, source: source, "\(items.count) keys; a trust list holds at most \(Self.maxEntries)")
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            entries.append(try Self.entry(item, source: source, path: "[\(index)]"))
        }
        do {
            try self.init(entries)
        } catch let error as ConfigurationError {
            throw ConfigurationError(.invalidTrustList, source: source, error.message)
        }
    }

    private static func entry(_ item: ConfigurationValue, source: String, path: String) throws -> Entry {
        func fail(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(.invalidTrustList, source: source, keyPath: "\(path).\(key)", message)
        }
        guard let object = item.objectValue else {
            throw ConfigurationError(
                .invalidTrustList, source: source, keyPath: path, "\(item.kindDescription), not an object")
        }
        let known: Set = ["kid", "alg", "publicKey", "issuer", "notBefore", "notAfter", "allowedHosts"]
        if let unknown = object.map(\.key).first(where: { !known.contains($0) }) {
            throw fail(unknown, "unknown key (known: \(known.sorted().joined(separator: ", ")))")
        }
        guard let pem = object["publicKey"]?.stringValue else {
            throw fail("publicKey", "missing, or not a PEM string")
        }
        let key = try VerificationKey(pem: pem, source: "\(source): \(path).publicKey")
        guard let kid = object["kid"]?.stringValue else { throw fail("kid", "missing, or not a string") }
        guard kid == key.keyID else {
            throw fail(
                "kid",
                """
                "\(kid.prefix(20))" is not the key's id (\(key.keyID): the first 8 bytes of SHA-256 of its \
                SubjectPublicKeyInfo, in hex)
                """
            )
        }
        func string(_ key: String) throws -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value.stringValue else { throw fail(key, "\(value.kindDescription), not a string") }
            return text
        }
        func date(_ key: String) throws -> Date? {
            switch object[key] {
            case nil: return nil
            case .integer(let seconds)?: return Date(timeIntervalSince1970: TimeInterval(seconds))
            case .string(let text)?:
                guard let date = try? Date(text, strategy: .iso8601) else {
                    throw fail(key, "\"\(text.prefix(40))\" is not an RFC 3339 date such as 2027-01-31T00:00:00Z")
                }
                return date
            case let other?: throw fail(key, "\(other.kindDescription), not a date")
            }
        }
        var hosts: [String] = []
        if let value = object["allowedHosts"] {
            guard let items = value.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("allowedHosts", "not an array of host names")
            }
            hosts = items.compactMap(\.stringValue)
        }
        let entry = try Entry(
            key: key, issuer: try string("issuer"), notBefore: try date("notBefore"), notAfter: try date("notAfter"),
            allowedHosts: hosts, source: "\(source): \(path)")
        if let alg = try string("alg"), alg != entry.algorithm.rawValue {
            throw fail(
                "alg",
                "\"\(alg.prefix(20))\" does not match the key (an \(key.kind) key signs \(entry.algorithm.rawValue))")
        }
        return entry
    }

    /// The file's JSON: pretty, one key per entry line group, stable for diffs.
    public var json: String {
        JSONWriter.pretty(
            .array(
                entries.map { entry in
                    var object: ConfigurationObject = [
                        "kid": .string(entry.keyID), "alg": .string(entry.algorithm.rawValue),
                        "publicKey": .string(entry.key.pemRepresentation),
                    ]
                    if let issuer = entry.issuer { object["issuer"] = .string(issuer) }
                    if let notBefore = entry.notBefore { object["notBefore"] = .string(notBefore.formatted(.iso8601)) }
                    if let notAfter = entry.notAfter { object["notAfter"] = .string(notAfter.formatted(.iso8601)) }
                    if !entry.allowedHosts.isEmpty {
                        object["allowedHosts"] = .array(entry.allowedHosts.map(ConfigurationValue.string))
                    }
                    return .object(object)
                })) + "\n"
    }

    /// Writes the list atomically, replacing the file.
    ///
    /// - Throws: ``ConfigurationError`` when the file cannot be written.
    public func write(to path: String) throws {
        try FileIO.write(Array(json.utf8), to: path, replace: true)
    }
}
