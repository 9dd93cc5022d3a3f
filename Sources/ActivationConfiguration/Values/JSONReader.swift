import FileAccess

/// A strict JSON reader (RFC 8259) with the caps a hostile input needs: bytes, nesting depth, the
/// number of values and valid UTF-8 are checked as it reads, and errors say where (line and column).
///
/// Written here rather than taken from Foundation because Foundation blurs `true` and `1`, loses
/// key order, and reports neither depth nor position.
public struct JSONReader: Sendable {
    /// Inputs larger than this are refused before parsing.
    public var maxBytes: Int
    /// Arrays and objects nested deeper than this are refused.
    public var maxDepth: Int
    /// Documents with more values than this (scalars, arrays and objects, each counts one) are refused.
    public var maxValues: Int

    /// A reader with the given limits (by default those of ``ConfigurationLimits/default``).
    public init(
        maxBytes: Int = ConfigurationLimits.default.maxDocumentBytes,
        maxDepth: Int = ConfigurationLimits.default.maxDepth,
        maxValues: Int = ConfigurationLimits.default.maxValues
    ) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxValues = maxValues
    }

    /// Parses one JSON value that fills `bytes` (surrounding white space allowed).
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - source: names the input in errors (a file name, `-`, or `payload`).
    /// - Throws: ``ConfigurationError`` with `inputTooLarge`, `invalidUTF8`, `tooDeep`, `tooManyItems`
    ///   or `invalidJSON`.
    public func parse(_ bytes: [UInt8], source: String) throws -> ConfigurationValue {
        if bytes.count > maxBytes {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                "\(ByteCount(bytes.count)) exceeds the \(ByteCount(maxBytes)) limit for a configuration document")
        }
        var parser = Parser(bytes: bytes, source: source, maxDepth: maxDepth, maxValues: maxValues)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        let source: String
        let maxDepth: Int
        let maxValues: Int
        var offset = 0
        var values = 0

        func error(_ message: String, at position: Int? = nil) -> ConfigurationError {
            let (line, column) = InputText.position(of: position ?? offset, in: bytes)
            return ConfigurationError(
                .invalidJSON, source: source, "invalid JSON at line \(line), column \(column): \(message)")
        }

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func value(depth: Int) throws -> ConfigurationValue {
            guard offset < bytes.count else { throw error("the document ends too early") }
            values += 1
            if values > maxValues { throw ConfigurationError.tooManyValues(source, limit: maxValues) }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character '\(Self.show(bytes[offset]))'")
            }
        }

        mutating func checkDepth(_ depth: Int) throws {
            if depth > maxDepth { throw ConfigurationError.tooDeep(source, limit: maxDepth) }
        }

        mutating func object(depth: Int) throws -> ConfigurationValue {
            try checkDepth(depth)
            offset += 1
            var object = ConfigurationObject()
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                    throw error("expected a key in quotes")
                }
                let keyStart = offset
                let key = try string()
                if object[key] != nil {
                    throw error("the key \"\(InputText.quoted(key))\" appears twice", at: keyStart)
                }
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
                    throw error("expected ':' after a key")
                }
                offset += 1
                skipWhitespace()
                object[key] = try value(depth: depth)
                skipWhitespace()
                guard offset < bytes.count else { throw error("the document ends inside an object") }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    return .object(object)
                }
                throw error("expected ',' or '}' in an object")
            }
        }

        mutating func array(depth: Int) throws -> ConfigurationValue {
            try checkDepth(depth)
            offset += 1
            var items: [ConfigurationValue] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth))
                skipWhitespace()
                guard offset < bytes.count else { throw error("the document ends inside an array") }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    return .array(items)
                }
                throw error("expected ',' or ']' in an array")
            }
        }

        mutating func literal(_ word: String) throws {
            let expected = Array(word.utf8)
            guard offset + expected.count <= bytes.count, Array(bytes[offset..<offset + expected.count]) == expected
            else {
                throw error("unexpected character '\(Self.show(bytes[offset]))'")
            }
            offset += expected.count
        }

        mutating func number() throws -> ConfigurationValue {
            let start = offset
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            func digits() -> Int {
                let begin = offset
                while offset < bytes.count, (0x30...0x39).contains(bytes[offset]) { offset += 1 }
                return offset - begin
            }
            let integerStart = offset
            let integerDigits = digits()
            guard integerDigits > 0 else { throw error("a number needs digits") }
            if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
                throw error("numbers cannot start with 0", at: integerStart)
            }
            var isInteger = true
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                isInteger = false
                guard digits() > 0 else { throw error("a fraction needs digits") }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                isInteger = false
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard digits() > 0 else { throw error("an exponent needs digits") }
            }
            let text = String(decoding: bytes[start..<offset], as: UTF8.self)
            if isInteger, let value = Int(text) { return .integer(value) }
            guard let value = Double(text), value.isFinite else {
                throw error("the number \(text) is out of range", at: start)
            }
            return .number(value)
        }

        mutating func string() throws -> String {
            let start = offset
            offset += 1
            var scalars = String.UnicodeScalarView()
            while true {
                guard offset < bytes.count else { throw error("a string is not closed", at: start) }
                let byte = bytes[offset]
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard offset < bytes.count else { throw error("a string is not closed", at: start) }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                                bytes[offset + 1] == UInt8(ascii: "u")
                            else {
                                throw error("a lone UTF-16 surrogate in \\u escape")
                            }
                            offset += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else {
                                throw error("a lone UTF-16 surrogate in \\u escape")
                            }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw error("a lone UTF-16 surrogate in \\u escape")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("an invalid \\u escape") }
                        scalars.append(scalar)
                    default:
                        throw error("an invalid escape '\\\(Self.show(escape))'", at: offset - 2)
                    }
                case 0x00..<0x20:
                    throw error("a control character in a string must be escaped")
                case 0x00..<0x80:
                    scalars.append(Unicode.Scalar(byte))
                    offset += 1
                default:
                    scalars.append(try utf8Scalar())
                }
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                guard let digit = Self.hexValue(byte) else { throw error("a \\u escape needs four hex digits") }
                value = value << 4 | digit
            }
            offset += 4
            return value
        }

        static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: UInt32(byte - 0x30)
            case 0x41...0x46: UInt32(byte - 0x41 + 10)
            case 0x61...0x66: UInt32(byte - 0x61 + 10)
            default: nil
            }
        }

        /// One multi-byte UTF-8 sequence, strictly (no overlongs, no surrogates).
        mutating func utf8Scalar() throws -> Unicode.Scalar {
            let start = offset
            let lead = bytes[offset]
            let (count, minimum): (Int, UInt32) =
                switch lead {
                case 0xC2...0xDF: (2, 0x80)
                case 0xE0...0xEF: (3, 0x800)
                case 0xF0...0xF4: (4, 0x10000)
                default: (0, 0)
                }
            guard count > 0, offset + count <= bytes.count else { throw invalidUTF8(at: start) }
            var value = UInt32(lead) & (0xFF >> (count + 1))
            for byte in bytes[offset + 1..<offset + count] {
                guard byte & 0xC0 == 0x80 else { throw invalidUTF8(at: start) }
                value = value << 6 | UInt32(byte & 0x3F)
            }
            guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw invalidUTF8(at: start) }
            offset += count
            return scalar
        }

        func invalidUTF8(at position: Int) -> ConfigurationError {
            ConfigurationError(.invalidUTF8, source: source, "not valid UTF-8 at byte \(position)")
        }

        static func show(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
        }
    }
}

/// Caps on configuration inputs (§6 of the reference: every input is capped, and the error names the cap).
public struct ConfigurationLimits: Sendable, Hashable {
    /// The most bytes of a document (JSON, property list) or payload text.
    public var maxDocumentBytes: Int
    /// The deepest nesting of arrays and objects.
    public var maxDepth: Int
    /// The most items in `auth`.
    public var maxAuthItems: Int
    /// The most entries in one `oauth2.clients` array.
    public var maxClients: Int
    /// The most values one document may produce: scalars, arrays and objects each count one (keys
    /// do not). A binary property list counts every reference it follows, so objects that share
    /// references cannot expand a small file into an exponentially large value.
    public var maxValues: Int

    /// Limits; the defaults suit any real configuration document.
    public init(
        maxDocumentBytes: Int = 256 << 10, maxDepth: Int = 32, maxAuthItems: Int = 16, maxClients: Int = 32,
        maxValues: Int = 100_000
    ) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
        self.maxAuthItems = maxAuthItems
        self.maxClients = maxClients
        self.maxValues = maxValues
    }

    /// 256 KiB documents, depth 32, 16 auth items, 32 clients each, 100,000 values.
    public static let `default` = ConfigurationLimits()
}
