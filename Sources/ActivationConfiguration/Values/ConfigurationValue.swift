/// A value of a configuration document as it was read from JSON or a property list, before it is
/// given a meaning. Objects keep the order of their keys, so nothing is reordered on the way
/// through.
public enum ConfigurationValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A number with a fraction or exponent.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array, in order.
    case array([ConfigurationValue])
    /// An object, its keys in the order they were read.
    case object(ConfigurationObject)
    /// Raw bytes (property lists only).
    case data([UInt8])
    /// `null`.
    case null

    /// What the value is, for error messages: `a string "abc"`, `an array`, ….
    public var kindDescription: String {
        switch self {
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "a string \"\(shown)\""
        case .integer(let value): return "the number \(value)"
        case .number(let value): return "the number \(value)"
        case .bool(let value): return "the boolean \(value)"
        case .array: return "an array"
        case .object: return "an object"
        case .data: return "binary data"
        case .null: return "null"
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object, if this is one.
    public var objectValue: ConfigurationObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The items, if this is an array.
    public var arrayValue: [ConfigurationValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// Equal as JSON values: a whole ``number(_:)`` equals the same ``integer(_:)`` (`44e3` is
    /// `44000`), as JSON does not tell them apart and ``JSONWriter`` writes both the same way, so
    /// a value read back from what was written equals what was written.
    public static func == (lhs: ConfigurationValue, rhs: ConfigurationValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.integer(let a), .number(let b)), (.number(let b), .integer(let a)):
            Double(a) == b && Int(exactly: b) == a
        case (.bool(let a), .bool(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.null, .null): true
        default: false
        }
    }

    /// Hashes as `==` compares: a whole ``number(_:)`` as the ``integer(_:)`` it equals.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let text):
            hasher.combine(0)
            hasher.combine(text)
        case .integer(let number):
            hasher.combine(1)
            hasher.combine(number)
        case .number(let number):
            if let whole = Int(exactly: number) {
                hasher.combine(1)
                hasher.combine(whole)
            } else {
                hasher.combine(2)
                hasher.combine(number)
            }
        case .bool(let flag):
            hasher.combine(3)
            hasher.combine(flag)
        case .array(let items):
            hasher.combine(4)
            hasher.combine(items)
        case .object(let object):
            hasher.combine(5)
            hasher.combine(object)
        case .data(let bytes):
            hasher.combine(6)
            hasher.combine(bytes)
        case .null: hasher.combine(7)
        }
    }
}

/// A configuration object: key–value pairs in their original order. Keys are unique.
public struct ConfigurationObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The key–value pairs, in order.
    public private(set) var entries: [(key: String, value: ConfigurationValue)] = []
    /// Key → position in `entries`, so lookups stay O(1) for hostile objects with many keys.
    private var positions: [String: Int] = [:]

    /// An empty object.
    public init() {}

    public init(dictionaryLiteral elements: (String, ConfigurationValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// An object of `entries`, in order; a repeated key keeps its first place and its last value.
    public init(_ entries: [(String, ConfigurationValue)]) {
        for (key, value) in entries { self[key] = value }
    }

    /// The value for `key`; setting `nil` removes the key, setting a new key appends it.
    public subscript(key: String) -> ConfigurationValue? {
        get { positions[key].map { entries[$0].value } }
        set {
            if let index = positions[key] {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                    positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.key, $0) })
                }
            } else if let newValue {
                positions[key] = entries.count
                entries.append((key, newValue))
            }
        }
    }

    /// The first key that equals `key` ignoring case (`serviceURL` / `ServiceUrl`).
    public func key(caseInsensitive key: String) -> String? {
        let lowered = key.lowercased()
        return entries.first { $0.key.lowercased() == lowered }?.key
    }

    /// The keys, in order.
    public var keys: [String] { entries.map(\.key) }
    /// The number of keys.
    public var count: Int { entries.count }
    /// Whether the object has no keys.
    public var isEmpty: Bool { entries.isEmpty }

    public func makeIterator() -> IndexingIterator<[(key: String, value: ConfigurationValue)]> {
        entries.makeIterator()
    }

    public static func == (lhs: ConfigurationObject, rhs: ConfigurationObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.key)
            hasher.combine(entry.value)
        }
    }
}

/// Where a value sits in a document: `auth[0].config.oauth2.tokenEndpoint`.
public struct ConfigurationPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// A key of an object.
        case key(String)
        /// A position in an array, from 0.
        case index(Int)
    }

    /// The steps from the document to the value.
    public private(set) var components: [Component]

    /// A path of `components` (none: the document itself).
    public init(_ components: [Component] = []) { self.components = components }

    /// The document itself.
    public static let root = ConfigurationPath()

    /// This path, then the object key `key`.
    public func appending(_ key: String) -> ConfigurationPath { ConfigurationPath(components + [.key(key)]) }
    /// This path, then the array position `index`.
    public func appending(_ index: Int) -> ConfigurationPath { ConfigurationPath(components + [.index(index)]) }

    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

extension ConfigurationValue: Decodable {
    /// Decodes any JSON value. Object keys come in the decoder's order, which `JSONDecoder` does not
    /// keep; read documents with ``JSONReader``, which does.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: DynamicKey.self) {
            var object = ConfigurationObject()
            for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                object[key.stringValue] = try container.decode(ConfigurationValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var items: [ConfigurationValue] = []
            while !container.isAtEnd { items.append(try container.decode(ConfigurationValue.self)) }
            self = .array(items)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .integer(number)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

extension ConfigurationValue: Encodable {
    /// Encodes as the natural JSON value (data as base64 text).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .data(let bytes):
            var container = encoder.singleValueContainer()
            try container.encode(Base64.encode(bytes))
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let object):
            var container = encoder.container(keyedBy: DynamicKey.self)
            for (key, value) in object { try container.encode(value, forKey: DynamicKey(key)) }
        }
    }

    fileprivate struct DynamicKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
