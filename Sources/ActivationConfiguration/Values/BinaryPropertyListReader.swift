import FileAccess

/// A strict reader of binary property lists (`bplist00`), written by hand so that nothing in a
/// hostile file reaches CoreFoundation.
///
/// Objects refer to each other by number, so a small file can describe a large value: object *n*
/// an array `[n-1, n-1]` doubles with every object, and an array may hold itself. The reader
/// therefore walks with an explicit stack (no recursion), counts every reference it follows
/// against `limits.maxValues`, charges every string and data it hands out (also when shared)
/// against `limits.maxDocumentBytes`, refuses nesting beyond `limits.maxDepth`, and names a
/// reference cycle. The trailer and offset table are checked in full before any object is read.
struct BinaryPropertyListReader {
    /// Where the walk is in an open array or dictionary. Plain integers, so that reading it from
    /// the stack copies no arrays (``Container`` holds those).
    private struct Cursor {
        let index: Int
        let isDictionary: Bool
        /// Where the object references start (a dictionary's keys, then its values).
        let references: Int
        let count: Int
        var next = 0
    }

    /// The value an open array or dictionary builds.
    private struct Container {
        /// Where the container sits in its parent (nil for the top object).
        let component: ConfigurationPath.Component?
        var items: [ConfigurationValue] = []
        var entries = ConfigurationObject()
        var key: String?
    }

    private enum Opened {
        case value(ConfigurationValue)
        case container(Cursor)
    }

    /// An object being read, for errors.
    private struct Object {
        let index: Int
        let start: Int
    }

    private let bytes: [UInt8]
    private let source: String
    private let limits: ConfigurationLimits
    private var offsetSize = 0
    private var referenceSize = 0
    private var tableOffset = 0
    private var offsets: [Int] = []
    /// Strings and data already decoded, by byte offset, with their size in the file: a shared
    /// string is read once, and objects laid over each other cost no more than one.
    private var decoded: [Int: (value: ConfigurationValue, size: Int)] = [:]
    private var values = 0
    private var expandedBytes = 0

    /// Parses `bytes` (a binary property list).
    ///
    /// - Throws: ``ConfigurationError`` with `invalidPropertyList`, `tooDeep`, `tooManyItems` or
    ///   `inputTooLarge` (strings and data that expand beyond `limits.maxDocumentBytes`).
    static func parse(_ bytes: [UInt8], source: String, limits: ConfigurationLimits) throws -> ConfigurationValue {
        var reader = BinaryPropertyListReader(bytes: bytes, source: source, limits: limits)
        let top = try reader.readTrailer()
        return try reader.value(top)
    }

    private init(bytes: [UInt8], source: String, limits: ConfigurationLimits) {
        self.bytes = bytes
        self.source = source
        self.limits = limits
    }

    // MARK: Trailer and offset table

    /// Checks the header, the trailer and every entry of the offset table; returns the top object.
    private mutating func readTrailer() throws -> Int {
        guard bytes.starts(with: Array("bplist00".utf8)) else {
            throw error(
                "the version \"\(InputText.quoted(String(decoding: bytes.prefix(8), as: UTF8.self)))\" is not bplist00")
        }
        // The header, one object of at least one byte, and the 32-byte trailer.
        guard bytes.count >= 8 + 1 + 32 else {
            throw error("\(bytes.count) bytes are too short for a header, an object and a trailer")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let objectCount = unsigned(at: trailer + 8, size: 8)
        let topObject = unsigned(at: trailer + 16, size: 8)
        let table = unsigned(at: trailer + 24, size: 8)
        for (name, size) in [("offset", offsetSize), ("object reference", referenceSize)]
        where ![1, 2, 4, 8].contains(size) {
            throw error("the trailer gives \(size) bytes as the \(name) size (1, 2, 4 or 8)")
        }
        // Every object takes at least one byte between the header and the offset table.
        guard objectCount >= 1, objectCount <= UInt64(trailer - 8) else {
            throw error("the trailer's object count \(objectCount) does not fit a file of \(bytes.count) bytes")
        }
        let count = Int(objectCount)
        guard topObject < objectCount else {
            throw error("the top object \(topObject) is not one of the \(count) objects")
        }
        if referenceSize < 8, count > 1 << (8 * referenceSize) {
            throw error("\(count) objects cannot be told apart with \(referenceSize)-byte references")
        }
        // count ≤ file size and offsetSize ≤ 8, so the product cannot overflow.
        guard table >= 9, table <= UInt64(trailer), count * offsetSize <= trailer - Int(table) else {
            throw error(
                "the offset table (at byte \(table), \(count) entries of \(offsetSize) bytes) lies outside the file")
        }
        tableOffset = Int(table)
        offsets.reserveCapacity(count)
        for index in 0..<count {
            let offset = unsigned(at: tableOffset + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table else {
                throw error(
                    "object \(index) lies at byte \(offset), outside the objects (bytes 8 to \(tableOffset - 1))")
            }
            offsets.append(Int(offset))
        }
        return Int(topObject)
    }

    /// The big-endian unsigned integer of `size` bytes at `offset` (the caller checked the range).
    private func unsigned(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    // MARK: Walking the objects

    private mutating func value(_ top: Int) throws -> ConfigurationValue {
        var onStack = [Bool](repeating: false, count: offsets.count)
        var cursors: [Cursor] = []
        var containers: [Container] = []
        try countValue()
        switch try open(top, depth: 1) {
        case .value(let value): return value
        case .container(let cursor):
            onStack[top] = true
            cursors.append(cursor)
            containers.append(Container(component: nil))
        }
        while let cursor = cursors.last {
            let last = cursors.count - 1
            if cursor.next == cursor.count {
                cursors.removeLast()
                onStack[cursor.index] = false
                let container = containers.removeLast()
                let result: ConfigurationValue =
                    cursor.isDictionary ? .object(container.entries) : .array(container.items)
                guard last > 0 else { return result }
                add(result, to: &containers[last - 1], cursor: &cursors[last - 1])
                continue
            }
            var component = ConfigurationPath.Component.index(cursor.next)
            var reference = try self.reference(at: cursor.references + cursor.next * referenceSize, in: cursor.index)
            if cursor.isDictionary {
                let key = try string(reference, keyOf: cursor.index)
                if containers[last].entries[key] != nil {
                    throw ConfigurationError.duplicateKey(
                        source, key, in: ConfigurationPath(containers.compactMap(\.component)),
                        " (object \(cursor.index))")
                }
                containers[last].key = key
                component = .key(key)
                reference = try self.reference(
                    at: cursor.references + (cursor.count + cursor.next) * referenceSize, in: cursor.index)
            }
            try countValue()
            if onStack[reference] { throw error("object \(reference) contains itself (a reference cycle)") }
            switch try open(reference, depth: cursors.count + 1) {
            case .value(let value):
                add(value, to: &containers[last], cursor: &cursors[last])
            case .container(let child):
                onStack[reference] = true
                cursors.append(child)
                containers.append(Container(component: component))
            }
        }
        throw error("no top object")  // not reached: the top container returns
    }

    private func add(_ value: ConfigurationValue, to container: inout Container, cursor: inout Cursor) {
        if cursor.isDictionary {
            if let key = container.key { container.entries[key] = value }
            container.key = nil
        } else {
            container.items.append(value)
        }
        cursor.next += 1
    }

    private mutating func countValue() throws {
        values += 1
        if values > limits.maxValues { throw ConfigurationError.tooManyValues(source, limit: limits.maxValues) }
    }

    /// The object reference at `offset` inside container `object`.
    private func reference(at offset: Int, in object: Int) throws -> Int {
        let reference = unsigned(at: offset, size: referenceSize)
        guard reference < UInt64(offsets.count) else {
            throw error("object \(object) refers to object \(reference), but there are \(offsets.count)")
        }
        return Int(reference)
    }

    /// A dictionary key: the object must be a string.
    private mutating func string(_ reference: Int, keyOf dictionary: Int) throws -> String {
        let marker = bytes[offsets[reference]] >> 4
        guard marker == 0x5 || marker == 0x6, case .value(.string(let key)) = try open(reference, depth: 0) else {
            throw error("a key of object \(dictionary) is object \(reference), which is not a string")
        }
        return key
    }

    // MARK: Objects

    /// Reads object `index`: a finished scalar, or a cursor for an array or dictionary whose
    /// references are in the file (they are followed by ``value(_:)``).
    private mutating func open(_ index: Int, depth: Int) throws -> Opened {
        let start = offsets[index]
        if let (value, size) = decoded[start] {
            try charge(size)
            return .value(value)
        }
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        let object = Object(index: index, start: start)

        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .value(.null)
            case 0x08: return .value(.bool(false))
            case 0x09: return .value(.bool(true))
            default: throw error(object, "the marker \(Self.hex(marker)) is not a value")
            }
        case 0x1:
            guard low <= 4 else { throw error(object, "an integer of 2^\(low) bytes") }
            let size = 1 << low
            try need(start + 1, size, object)
            switch size {
            case 16:
                // Written only for values beyond Int64: the high half must be the sign of the low one.
                let high = unsigned(at: start + 1, size: 8)
                let value = Int64(bitPattern: unsigned(at: start + 9, size: 8))
                guard high == (value < 0 ? UInt64.max : 0) else {
                    throw error(object, "the 128-bit integer does not fit in 64 bits")
                }
                return .value(.integer(Int(value)))
            case 8:
                return .value(.integer(Int(Int64(bitPattern: unsigned(at: start + 1, size: 8)))))
            default:
                // 1, 2 and 4-byte integers are unsigned.
                return .value(.integer(Int(unsigned(at: start + 1, size: size))))
            }
        case 0x2, 0x3:
            let isDate = marker == 0x33
            guard marker == 0x22 || marker == 0x23 || isDate else {
                throw error(object, "a real or date of 2^\(low) bytes")
            }
            let size = 1 << low
            try need(start + 1, size, object)
            let bits = unsigned(at: start + 1, size: size)
            let number =
                size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits)
            if isDate {
                guard let text = PropertyListDate.text(secondsSinceReferenceDate: number) else {
                    throw error(object, "a date outside years 1 to 9999")
                }
                return .value(.string(text))
            }
            guard number.isFinite else { throw error(object, "a real that is not finite (\(number))") }
            return .value(.number(number))
        case 0x4, 0x5, 0x6:
            let (count, contents) = try self.count(low, after: start, object)
            let size = marker >> 4 == 0x6 ? count * 2 : count
            try need(contents, size, object)
            let value: ConfigurationValue
            switch marker >> 4 {
            case 0x4:
                value = .data(Array(bytes[contents..<contents + size]))
            case 0x5:
                guard bytes[contents..<contents + size].allSatisfy({ $0 < 0x80 }) else {
                    throw error(object, "an ASCII string with a byte above 0x7F")
                }
                value = .string(String(decoding: bytes[contents..<contents + size], as: UTF8.self))
            default:
                value = .string(try utf16(contents, count: count, object))
            }
            try charge(size)
            decoded[start] = (value, size)
            return .value(value)
        case 0x8:
            throw error(object, "a UID (a keyed-archiver reference), which configurations do not use")
        case 0xA, 0xD:
            let isDictionary = marker >> 4 == 0xD
            let (count, references) = try self.count(low, after: start, object)
            // count ≤ the file size (checked by count(_:after:_:)), so the product cannot overflow.
            try need(references, count * referenceSize * (isDictionary ? 2 : 1), object)
            if depth > limits.maxDepth { throw ConfigurationError.tooDeep(source, limit: limits.maxDepth) }
            return .container(Cursor(index: index, isDictionary: isDictionary, references: references, count: count))
        case 0xB, 0xC:
            throw error(object, "a set, which property lists for configurations do not use")
        default:
            throw error(object, "the unknown type marker \(Self.hex(marker))")
        }
    }

    /// The item count of the object at `start` (in the marker, or an integer after it when the
    /// marker says 0xF) and where its contents start.
    private func count(_ low: Int, after start: Int, _ object: Object) throws -> (Int, Int) {
        guard low == 0xF else { return (low, start + 1) }
        try need(start + 1, 1, object)
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw error(object, "the count is not an integer of 1, 2, 4 or 8 bytes")
        }
        let size = 1 << Int(marker & 0x0F)
        try need(start + 2, size, object)
        let count = unsigned(at: start + 2, size: size)
        guard count <= UInt64(tableOffset) else { throw error(object, "a count of \(count), more than the file holds") }
        return (Int(count), start + 2 + size)
    }

    /// Checks that `length` bytes from `offset` lie among the objects.
    private func need(_ offset: Int, _ length: Int, _ object: Object) throws {
        guard offset <= tableOffset, length <= tableOffset - offset else {
            throw error(object, "its \(length) bytes run past the objects")
        }
    }

    /// Big-endian UTF-16, surrogates paired.
    private func utf16(_ start: Int, count: Int, _ object: Object) throws -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < count {
            let unit = UInt32(unsigned(at: start + index * 2, size: 2))
            index += 1
            var code = unit
            if (0xD800...0xDBFF).contains(unit) {
                let low = index < count ? UInt32(unsigned(at: start + index * 2, size: 2)) : 0
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(object, "a UTF-16 string with a lone surrogate")
                }
                index += 1
                code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(code) else {
                throw error(object, "a UTF-16 string with a lone surrogate")
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// Counts the bytes of strings and data handed out, shared ones each time: the value must stay
    /// about as large as a document may be.
    private mutating func charge(_ size: Int) throws {
        expandedBytes += size
        if expandedBytes > limits.maxDocumentBytes {
            throw ConfigurationError(
                .inputTooLarge, source: source,
                """
                its strings and data add up to more than \(ByteCount(limits.maxDocumentBytes)), \
                the limit for a configuration document
                """
            )
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    private func error(_ object: Object, _ message: String) -> ConfigurationError {
        error("object \(object.index) at byte \(object.start): \(message)")
    }

    private func error(_ message: String) -> ConfigurationError {
        ConfigurationError(.invalidPropertyList, source: source, "invalid binary property list: \(message)")
    }
}
