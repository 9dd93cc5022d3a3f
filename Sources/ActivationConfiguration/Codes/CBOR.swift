import FileAccess

/// A CBOR data item (RFC 8949) of the profile activation codes use: integers, byte and text
/// strings, arrays, maps, tags, `false`, `true` and `null`. Floating-point numbers, `undefined`
/// and other simple values are not part of it.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: 0 … 2⁶⁴−1.
    case unsigned(UInt64)
    /// Major type 1: the value −1 − `n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Entries in the order they were read or made; keys are unique.
    case map([Entry])
    /// Major type 6: a tag number and the item it tags.
    case tagged(UInt64, CBOR)
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null

    /// One key–value pair of a map.
    public struct Entry: Sendable, Hashable {
        /// The key.
        public var key: CBOR
        /// The value.
        public var value: CBOR

        /// A pair of `key` and `value`.
        public init(_ key: CBOR, _ value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    /// An integer item for `value`.
    public static func integer(_ value: Int) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value of an integer item that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -Int(value) - 1 : nil
        default: nil
        }
    }

    /// The text, if this is a text string.
    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The bytes, if this is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    /// The items, if this is an array.
    public var arrayValue: [CBOR]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The entries, if this is a map.
    public var mapValue: [Entry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The value under integer key `key` of a map item.
    public subscript(key: Int) -> CBOR? {
        mapValue?.first { $0.key.intValue == key }?.value
    }

    /// What the item is, for error messages.
    var kindDescription: String {
        switch self {
        case .unsigned, .negative: "an integer"
        case .bytes: "a byte string"
        case .text: "a text string"
        case .array: "an array"
        case .map: "a map"
        case .tagged(let tag, _): "tag \(tag)"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

// MARK: - Writing

extension CBOR {
    /// The deterministic encoding (RFC 8949 §4.2.1): shortest heads, definite lengths, map keys
    /// sorted by their encoded bytes.
    public var encoded: [UInt8] {
        var output: [UInt8] = []
        encode(into: &output)
        return output
    }

    func encode(into output: inout [UInt8]) {
        switch self {
        case .unsigned(let value): Self.head(0, value, into: &output)
        case .negative(let value): Self.head(1, value, into: &output)
        case .bytes(let bytes):
            Self.head(2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            Self.head(3, UInt64(text.utf8.count), into: &output)
            output += text.utf8
        case .array(let items):
            Self.head(4, UInt64(items.count), into: &output)
            for item in items { item.encode(into: &output) }
        case .map(let entries):
            Self.head(5, UInt64(entries.count), into: &output)
            let sorted = entries.map { (key: $0.key.encoded, value: $0.value) }.sorted {
                $0.key.lexicographicallyPrecedes($1.key)
            }
            for entry in sorted {
                output += entry.key
                entry.value.encode(into: &output)
            }
        case .tagged(let tag, let item):
            Self.head(6, tag, into: &output)
            item.encode(into: &output)
        case .bool(let value): output.append(value ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            output += [type | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        case 0x1_0000...0xFFFF_FFFF:
            output += [type | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        default: output += [type | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        }
    }
}

// MARK: - Reading

/// Reads CBOR strictly: one item filling the input, with the limits given, and only the
/// deterministic forms a conforming encoder writes. Refused, each with the byte offset:
/// indefinite lengths, non-shortest heads, floats and simple values other than `false`, `true`,
/// `null`, tags not allowed by the caller, duplicate map keys, invalid UTF-8 in text, trailing
/// bytes, and anything past the depth, item or byte limits.
public struct CBORReader: Sendable {
    /// Nesting of arrays, maps and tags.
    public var maxDepth: Int
    /// Data items in all (each key, value and element counts).
    public var maxItems: Int
    /// Input bytes.
    public var maxBytes: Int
    /// Tags that may appear.
    public var allowedTags: Set<UInt64>

    /// A reader that refuses input nested deeper than `maxDepth`, with more than `maxItems` items or
    /// `maxBytes` bytes, or with a tag not in `allowedTags`.
    public init(maxDepth: Int, maxItems: Int, maxBytes: Int, allowedTags: Set<UInt64> = []) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxBytes = maxBytes
        self.allowedTags = allowedTags
    }

    /// Reads one item that fills `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the encoded item, and nothing after it.
    ///   - what: names the item in errors, e.g. `the code's COSE frame`.
    ///   - source: names the input in errors.
    /// - Throws: ``ConfigurationError``: `invalidCBOR`, `tooDeep`, `tooManyItems`, `inputTooLarge`.
    public func read(_ bytes: [UInt8], what: String, source: String) throws -> CBOR {
        guard bytes.count <= maxBytes else {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                "\(what) is \(ByteCount(bytes.count)), over the \(ByteCount(maxBytes)) limit")
        }
        var cursor = Cursor(bytes: bytes, reader: self, what: what, source: source)
        let item = try cursor.item(depth: 0)
        guard cursor.offset == bytes.count else {
            throw cursor.fail("\(bytes.count - cursor.offset) bytes follow the end", at: cursor.offset)
        }
        return item
    }

    private struct Cursor {
        let bytes: [UInt8]
        let reader: CBORReader
        let what: String
        let source: String
        var offset = 0
        var items = 0

        init(bytes: [UInt8], reader: CBORReader, what: String, source: String) {
            self.bytes = bytes
            self.reader = reader
            self.what = what
            self.source = source
        }

        func fail(_ message: String, at position: Int, code: ConfigurationError.Code = .invalidCBOR)
            -> ConfigurationError
        {
            ConfigurationError(code, source: source, keyPath: what, "\(message) (byte \(position))")
        }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw fail("ends in the middle of an item (truncated?)", at: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: UInt64) throws -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count - offset) else {
                throw fail("a string of \(count) bytes runs past the end", at: offset)
            }
            defer { offset += Int(count) }
            return bytes[offset..<offset + Int(count)]
        }

        /// The head's major type and argument, in shortest form only.
        mutating func head() throws -> (major: UInt8, argument: UInt64, start: Int) {
            let start = offset
            let initial = try byte()
            let major = initial >> 5
            let additional = initial & 0x1F
            let argument: UInt64
            switch additional {
            case 0..<24:
                argument = UInt64(additional)
            case 24...27:
                let length = 1 << (additional - 24)
                var value: UInt64 = 0
                for _ in 0..<length { value = value << 8 | UInt64(try byte()) }
                let shortest: UInt64 =
                    switch length {
                    case 1: 24
                    case 2: 0x100
                    case 4: 0x1_0000
                    default: 0x1_0000_0000
                    }
                if major == 7 {
                    throw fail(
                        length == 1
                            ? "simple value \(value) is not used in activation codes"
                            : "floating-point numbers are not used in activation codes", at: start)
                }
                guard value >= shortest else {
                    throw fail("the length or value \(value) is not in its shortest form", at: start)
                }
                argument = value
            case 31:
                throw fail("indefinite-length items are not allowed", at: start)
            default:
                throw fail("reserved additional information \(additional)", at: start)
            }
            return (major, argument, start)
        }

        mutating func item(depth: Int) throws -> CBOR {
            items += 1
            guard items <= reader.maxItems else {
                throw fail("more than \(reader.maxItems) items", at: offset, code: .tooManyItems)
            }
            let (major, argument, start) = try head()
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(Array(try take(argument)))
            case 3:
                let raw = try take(argument)
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw fail("a text string is not valid UTF-8", at: start)
                }
                return .text(text)
            case 4:
                try nest(depth, at: start)
                // Every element is at least one byte: a count beyond the rest of the input is a lie.
                guard argument <= UInt64(bytes.count - offset) else {
                    throw fail("an array of \(argument) items runs past the end", at: start)
                }
                var elements: [CBOR] = []
                elements.reserveCapacity(Int(argument))
                for _ in 0..<argument { elements.append(try item(depth: depth + 1)) }
                return .array(elements)
            case 5:
                try nest(depth, at: start)
                guard argument <= UInt64(bytes.count - offset) / 2 else {
                    throw fail("a map of \(argument) entries runs past the end", at: start)
                }
                var entries: [CBOR.Entry] = []
                var seen = Set<CBOR>()
                for _ in 0..<argument {
                    let keyStart = offset
                    let key = try item(depth: depth + 1)
                    guard seen.insert(key).inserted else {
                        throw fail("a map has the key \(Self.describe(key)) twice", at: keyStart)
                    }
                    entries.append(CBOR.Entry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6:
                guard reader.allowedTags.contains(argument) else {
                    throw fail("tag \(argument) is not allowed here", at: start)
                }
                try nest(depth, at: start)
                return .tagged(argument, try item(depth: depth + 1))
            default:
                switch argument {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw fail("simple value \(argument) is not used in activation codes", at: start)
                }
            }
        }

        func nest(_ depth: Int, at position: Int) throws {
            guard depth < reader.maxDepth else {
                throw fail("nested deeper than \(reader.maxDepth) levels", at: position, code: .tooDeep)
            }
        }

        static func describe(_ key: CBOR) -> String {
            if let number = key.intValue { return String(number) }
            if let text = key.textValue { return "\"\(text.prefix(40))\"" }
            return key.kindDescription
        }
    }
}
