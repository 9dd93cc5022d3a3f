import Foundation

/// A strict reader of XML property lists (Apple's `PropertyList-1.0.dtd`), written by hand so that
/// nothing in a hostile file reaches a general XML parser: no DTD internal subset, hence no entity
/// declarations and no entity expansion; only the five predefined entities and character
/// references; one `<plist>` root holding one value; a `<dict>` key may appear once.
///
/// The reader walks the text once with an explicit stack (no recursion), so depth, the number of
/// values and the time taken are bounded by `limits` and the size of the input.
struct XMLPropertyListReader {
    private enum Element: String {
        case plist, dict, key, array, string, integer, real, `true`, `false`, date, data
    }

    private struct Tag {
        let element: Element
        let start: Int
        let selfClosing: Bool
    }

    /// An open `<plist>`, `<dict>` or `<array>`.
    private struct Frame {
        let element: Element
        let start: Int
        /// Where the container sits in its parent (nil for `<plist>` and the root value).
        let component: ConfigurationPath.Component?
        var items: [ConfigurationValue] = []
        var object = ConfigurationObject()
        /// A `<dict>`'s key that waits for its value, and where it was.
        var key: (name: String, start: Int)?
        var root: ConfigurationValue?
    }

    private let bytes: [UInt8]
    private let source: String
    private let limits: ConfigurationLimits
    private var offset = 0
    private var values = 0

    /// Parses `bytes` (an XML property list in UTF-8).
    ///
    /// - Throws: ``ConfigurationError`` with `invalidPropertyList`, `invalidUTF8`, `tooDeep` or `tooManyItems`.
    static func parse(_ bytes: [UInt8], source: String, limits: ConfigurationLimits) throws -> ConfigurationValue {
        var reader = XMLPropertyListReader(bytes: bytes, source: source, limits: limits)
        return try reader.document()
    }

    private init(bytes: [UInt8], source: String, limits: ConfigurationLimits) {
        self.bytes = bytes
        self.source = source
        self.limits = limits
    }

    // MARK: Document structure

    private mutating func document() throws -> ConfigurationValue {
        // Validating once up front lets the rest treat bytes >= 0x80 as opaque text.
        _ = try InputText.utf8(bytes, source: source)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        if lookingAt("<?xml"), offset + 5 < bytes.count, Self.isSpace(bytes[offset + 5]) { try declaration() }
        try prolog()
        guard lookingAt("<"), !lookingAt("</") else { throw unexpected("expected <plist>") }
        let rootTag = try startTag()
        guard rootTag.element == .plist else {
            throw error("expected <plist>, found <\(rootTag.element.rawValue)>", at: rootTag.start)
        }
        if rootTag.selfClosing { throw error("<plist> holds no value", at: rootTag.start) }

        var stack = [Frame(element: .plist, start: rootTag.start, component: nil)]
        while !stack.isEmpty {
            let last = stack.count - 1
            // Only the scalar fields are read here: a copy of the frame would share its arrays and
            // make every append copy them.
            let (element, key) = (stack[last].element, stack[last].key)
            try skipSpaceAndComments()
            guard offset < bytes.count else {
                throw error("the document ends inside <\(element.rawValue)>")
            }
            guard bytes[offset] == UInt8(ascii: "<") else { throw unexpected("text outside a value") }
            if lookingAt("</") {
                let (name, start) = try endTag()
                guard name == element.rawValue else {
                    throw error("expected </\(element.rawValue)>, found </\(InputText.quoted(name))>", at: start)
                }
                let top = stack.removeLast()
                let value: ConfigurationValue
                switch top.element {
                case .dict:
                    if let key = top.key {
                        throw error("the key \"\(InputText.quoted(key.name))\" has no value", at: key.start)
                    }
                    value = .object(top.object)
                case .array:
                    value = .array(top.items)
                default:
                    guard let root = top.root else { throw error("<plist> holds no value", at: top.start) }
                    try skipSpaceAndComments()
                    guard offset == bytes.count else { throw unexpected("nothing may follow </plist>") }
                    return root
                }
                add(value, to: &stack)
                continue
            }

            let tag = try startTag()
            if tag.element != .key {
                if element == .dict, key == nil {
                    throw error("expected <key> before a value in <dict>", at: tag.start)
                }
                if element == .plist, stack[last].root != nil {
                    throw error("<plist> holds more than one value", at: tag.start)
                }
            }
            switch tag.element {
            case .plist:
                throw error("<plist> inside <plist>", at: tag.start)
            case .key:
                guard element == .dict else { throw error("<key> outside a <dict>", at: tag.start) }
                if let key { throw error("the key \"\(InputText.quoted(key.name))\" has no value", at: tag.start) }
                let name = try text(of: tag)
                if stack[last].object[name] != nil {
                    let (line, column) = InputText.position(of: tag.start, in: bytes)
                    throw ConfigurationError.duplicateKey(
                        source, name, in: path(stack), " (line \(line), column \(column))")
                }
                stack[last].key = (name, tag.start)
            case .dict, .array:
                try countValue()
                if stack.count > limits.maxDepth { throw ConfigurationError.tooDeep(source, limit: limits.maxDepth) }
                if tag.selfClosing {
                    add(tag.element == .dict ? .object(ConfigurationObject()) : .array([]), to: &stack)
                } else {
                    let component: ConfigurationPath.Component? =
                        switch element {
                        case .array: .index(stack[last].items.count)
                        case .dict: key.map { .key($0.name) }
                        default: nil
                        }
                    stack.append(Frame(element: tag.element, start: tag.start, component: component))
                }
            default:
                try countValue()
                add(try scalar(tag), to: &stack)
            }
        }
        throw error("the document ends inside <plist>")  // not reached: </plist> returns
    }

    /// Puts a finished value into the innermost open container (its key or slot was checked
    /// when the value started).
    private func add(_ value: ConfigurationValue, to stack: inout [Frame]) {
        let last = stack.count - 1
        switch stack[last].element {
        case .array:
            stack[last].items.append(value)
        case .dict:
            if let key = stack[last].key { stack[last].object[key.name] = value }
            stack[last].key = nil
        default:
            stack[last].root = value
        }
    }

    private mutating func countValue() throws {
        values += 1
        if values > limits.maxValues { throw ConfigurationError.tooManyValues(source, limit: limits.maxValues) }
    }

    private func path(_ stack: [Frame]) -> ConfigurationPath {
        ConfigurationPath(stack.compactMap(\.component))
    }

    // MARK: Values

    private mutating func scalar(_ tag: Tag) throws -> ConfigurationValue {
        let element = tag.element
        switch element {
        case .true, .false:
            if !tag.selfClosing {
                guard lookingAt("</") else { throw unexpected("<\(element.rawValue)/> holds nothing") }
                let (name, start) = try endTag()
                guard name == element.rawValue else { throw error("expected </\(element.rawValue)>", at: start) }
            }
            return .bool(element == .true)
        case .string:
            return .string(try text(of: tag))
        default:
            break
        }
        let contentStart = offset
        let content = try text(of: tag)
        let trimmed = content.trimmingCharacters(in: Self.spaces)
        switch element {
        case .integer:
            guard Self.isDecimalInteger(trimmed) else {
                throw error("<integer> holds \"\(InputText.quoted(trimmed))\", not a decimal integer", at: contentStart)
            }
            guard let value = Int(trimmed) else {
                throw error("the integer \(InputText.quoted(trimmed)) is out of range", at: contentStart)
            }
            return .integer(value)
        case .real:
            guard Self.isDecimalReal(trimmed), let value = Double(trimmed), value.isFinite else {
                throw error(
                    "<real> holds \"\(InputText.quoted(trimmed))\", not a finite decimal number", at: contentStart)
            }
            return .number(value)
        case .date:
            guard let date = PropertyListDate.validated(trimmed) else {
                throw error(
                    "<date> holds \"\(InputText.quoted(trimmed))\", not a date like 2024-01-31T12:00:00Z",
                    at: contentStart)
            }
            return .string(date)
        default:  // .data
            // Property lists wrap base64 in lines and indent it: the white space goes first.
            let base64 = String(decoding: content.utf8.filter { !Self.isSpace($0) }, as: UTF8.self)
            guard let data = Base64.decode(base64) else {
                throw error("<data> does not hold valid base64", at: contentStart)
            }
            return .data(data)
        }
    }

    private static let spaces = CharacterSet(charactersIn: " \t\r\n")

    private static func isDecimalInteger(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `[+-]digits[.digits][e[+-]digits]`, digits on at least one side of the point; rules out the
    /// `inf`, `nan` and hex forms `Double()` would also accept.
    private static func isDecimalReal(_ text: String) -> Bool {
        var rest = Substring(text)
        func digits() -> Int {
            let count = rest.prefix { $0.isASCII && $0.isNumber }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        var mantissa = digits()
        if rest.first == "." {
            rest = rest.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }

    /// The character data of `tag` up to its end tag: text, references, CDATA sections and
    /// comments; any other markup is an error.
    private mutating func text(of tag: Tag) throws -> String {
        if tag.selfClosing { return "" }
        let name = tag.element.rawValue
        var text: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "<") {
                if lookingAt("</") {
                    let (closing, start) = try endTag()
                    guard closing == name else {
                        throw error("expected </\(name)>, found </\(InputText.quoted(closing))>", at: start)
                    }
                    return String(decoding: text, as: UTF8.self)
                } else if lookingAt("<![CDATA[") {
                    let start = offset
                    offset += 9
                    guard let end = find("]]>") else { throw error("a CDATA section is not closed", at: start) }
                    while offset < end {
                        try checkCharacter()
                        text.append(bytes[offset])
                        offset += 1
                    }
                    offset = end + 3
                } else if lookingAt("<!--") {
                    try comment()
                } else {
                    throw unexpected("<\(name)> holds text only")
                }
            } else if byte == UInt8(ascii: "&") {
                text.append(contentsOf: try reference())
            } else {
                if byte == UInt8(ascii: "]"), lookingAt("]]>") { throw error("']]>' outside a CDATA section") }
                try checkCharacter()
                text.append(byte)
                offset += 1
            }
        }
        throw error("the document ends inside <\(name)>")
    }

    /// XML allows no control characters in a document but tab, line feed and carriage return.
    private func checkCharacter() throws {
        let byte = bytes[offset]
        if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
            throw error("the control character \(InputText.quoted(String(UnicodeScalar(byte)))) is not allowed in XML")
        }
    }

    /// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`, `&#…;` or `&#x…;`, as UTF-8.
    private mutating func reference() throws -> [UInt8] {
        let start = offset
        // The longest valid reference is `&#x` + six hex digits + `;` (leading zeros aside).
        guard let end = bytes[start..<min(bytes.count, start + 16)].firstIndex(of: UInt8(ascii: ";")) else {
            throw error("'&' starts no entity or character reference (write &amp;)")
        }
        let name = String(decoding: bytes[start + 1..<end], as: UTF8.self)
        offset = end + 1
        switch name {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default: break
        }
        guard name.hasPrefix("#") else {
            throw error("unknown entity &\(InputText.quoted(name)); (only &lt; &gt; &amp; &quot; &apos;)", at: start)
        }
        let hex = name.hasPrefix("#x")
        let digits = name.dropFirst(hex ? 2 : 1)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && (hex ? $0.isHexDigit : $0.isNumber) }),
            let code = UInt32(digits, radix: hex ? 16 : 10), code != 0, let scalar = Unicode.Scalar(code)
        else {
            throw error("&\(InputText.quoted(name)); is not a valid character reference", at: start)
        }
        return Array(String(Character(scalar)).utf8)
    }

    // MARK: Markup

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    private func lookingAt(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { prefix in
            offset + prefix.count <= bytes.count && (0..<prefix.count).allSatisfy { bytes[offset + $0] == prefix[$0] }
        }
    }

    /// The offset of the next `text` from `offset` on.
    private func find(_ text: StaticString) -> Int? {
        text.withUTF8Buffer { pattern in
            guard let first = pattern.first, bytes.count >= pattern.count else { return nil }
            var index = offset
            while index <= bytes.count - pattern.count {
                if bytes[index] == first, (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) {
                    return index
                }
                index += 1
            }
            return nil
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = offset
        while offset < bytes.count, Self.isSpace(bytes[offset]) { offset += 1 }
        return offset > start
    }

    private mutating func skipSpaceAndComments() throws {
        while true {
            skipSpace()
            guard lookingAt("<!--") else { return }
            try comment()
        }
    }

    private mutating func comment() throws {
        let start = offset
        offset += 4
        guard let end = find("--") else { throw error("a comment is not closed", at: start) }
        guard end + 2 < bytes.count, bytes[end + 2] == UInt8(ascii: ">") else {
            throw error("'--' inside a comment", at: end)
        }
        offset = end + 3
    }

    private mutating func name() -> String {
        let start = offset
        while offset < bytes.count, Self.isNameByte(bytes[offset]) { offset += 1 }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// `<name attributes>` or `<name attributes/>` of a property-list element.
    private mutating func startTag() throws -> Tag {
        let start = offset
        offset += 1
        let name = name()
        guard !name.isEmpty else {
            offset = start
            throw unexpected("expected an element")
        }
        guard let element = Element(rawValue: name) else {
            throw error("unknown element <\(InputText.quoted(name))>", at: start)
        }
        let (attributes, selfClosing) = try attributes(closing: false)
        for attribute in attributes where !(element == .plist && attribute.name == "version") {
            throw error("<\(name)> takes no attribute \(InputText.quoted(attribute.name))", at: attribute.start)
        }
        return Tag(element: element, start: start, selfClosing: selfClosing)
    }

    /// `</name>`, returning the name and where the tag starts.
    private mutating func endTag() throws -> (String, Int) {
        let start = offset
        offset += 2
        let name = name()
        skipSpace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ">") else {
            throw unexpected("expected '>' to end </\(InputText.quoted(name))>")
        }
        offset += 1
        return (name, start)
    }

    /// The attributes up to `>` or `/>` (or `?>` in the XML declaration).
    private mutating func attributes(closing declaration: Bool) throws -> (
        attributes: [(name: String, value: String, start: Int)], selfClosing: Bool
    ) {
        var attributes: [(name: String, value: String, start: Int)] = []
        while true {
            let spaced = skipSpace()
            if declaration {
                if lookingAt("?>") {
                    offset += 2
                    return (attributes, false)
                }
            } else if lookingAt("/>") {
                offset += 2
                return (attributes, true)
            } else if lookingAt(">") {
                offset += 1
                return (attributes, false)
            }
            let start = offset
            let name = name()
            guard spaced, !name.isEmpty else {
                offset = start
                throw unexpected(declaration ? "expected an attribute or '?>'" : "expected an attribute, '>' or '/>'")
            }
            if attributes.contains(where: { $0.name == name }) {
                throw error("the attribute \(name) appears twice", at: start)
            }
            skipSpace()
            guard lookingAt("=") else { throw unexpected("expected '=' after the attribute \(name)") }
            offset += 1
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") || bytes[offset] == UInt8(ascii: "'") else {
                throw unexpected("expected a quoted value for the attribute \(name)")
            }
            let quote = bytes[offset]
            offset += 1
            var value: [UInt8] = []
            while true {
                guard offset < bytes.count else {
                    throw error("the value of the attribute \(name) is not closed", at: start)
                }
                let byte = bytes[offset]
                if byte == quote { break }
                if byte == UInt8(ascii: "<") { throw error("'<' in the value of the attribute \(name)") }
                if byte == UInt8(ascii: "&") {
                    value.append(contentsOf: try reference())
                } else {
                    try checkCharacter()
                    value.append(byte)
                    offset += 1
                }
            }
            offset += 1
            attributes.append((name, String(decoding: value, as: UTF8.self), start))
        }
    }

    /// `<?xml version="1.0" encoding="UTF-8" standalone="…"?>`; only UTF-8 is read.
    private mutating func declaration() throws {
        let start = offset
        offset += 5
        let (attributes, _) = try attributes(closing: true)
        guard let version = attributes.first(where: { $0.name == "version" }), version.value.hasPrefix("1.") else {
            throw error("the XML declaration needs version=\"1.0\"", at: start)
        }
        for attribute in attributes {
            switch attribute.name {
            case "version", "standalone":
                break
            case "encoding":
                guard attribute.value.uppercased() == "UTF-8" else {
                    throw error(
                        "the encoding \(InputText.quoted(attribute.value)) is not supported (only UTF-8)",
                        at: attribute.start)
                }
            default:
                throw error(
                    "the XML declaration takes no attribute \(InputText.quoted(attribute.name))", at: attribute.start)
            }
        }
    }

    /// Comments, white space and at most one `<!DOCTYPE plist …>` before the root.
    private mutating func prolog() throws {
        var doctype = false
        while true {
            try skipSpaceAndComments()
            guard lookingAt("<!DOCTYPE") else { return }
            if doctype { throw error("a second DOCTYPE") }
            doctype = true
            try documentType()
        }
    }

    /// `<!DOCTYPE plist PUBLIC "…" "…">`, `<!DOCTYPE plist SYSTEM "…">` or `<!DOCTYPE plist>`.
    /// An internal subset is refused: it is where entities would be declared.
    private mutating func documentType() throws {
        offset += 9
        guard skipSpace(), name() == "plist" else { throw unexpected("the DOCTYPE must name plist") }
        let spaced = skipSpace()
        var literals = 0
        if spaced, lookingAt("PUBLIC") {
            offset += 6
            literals = 2
        } else if spaced, lookingAt("SYSTEM") {
            offset += 6
            literals = 1
        }
        for _ in 0..<literals {
            guard skipSpace(), offset < bytes.count,
                bytes[offset] == UInt8(ascii: "\"") || bytes[offset] == UInt8(ascii: "'")
            else {
                throw unexpected("expected a quoted identifier in the DOCTYPE")
            }
            let quote = bytes[offset]
            guard let end = bytes[(offset + 1)...].firstIndex(of: quote) else {
                throw error("an identifier in the DOCTYPE is not closed")
            }
            offset = end + 1
        }
        skipSpace()
        if lookingAt("[") { throw error("a DOCTYPE with an internal subset (entity declarations) is not allowed") }
        guard lookingAt(">") else { throw unexpected("expected '>' to end the DOCTYPE") }
        offset += 1
    }

    // MARK: Errors

    private func error(_ message: String, at position: Int? = nil) -> ConfigurationError {
        let (line, column) = InputText.position(of: position ?? offset, in: bytes)
        return ConfigurationError(
            .invalidPropertyList, source: source, "invalid property list at line \(line), column \(column): \(message)")
    }

    /// `message`, then what stands at the current offset.
    private func unexpected(_ message: String) -> ConfigurationError {
        if offset >= bytes.count { return error("\(message), found the end of the document") }
        if lookingAt("<!ENTITY") { return error("entity declarations are not allowed") }
        if lookingAt("<!DOCTYPE") { return error("a DOCTYPE must come before <plist>") }
        if lookingAt("<?") { return error("processing instructions are not allowed") }
        return error("\(message), found \"\(InputText.quoted(bytes, from: offset))\"")
    }
}
