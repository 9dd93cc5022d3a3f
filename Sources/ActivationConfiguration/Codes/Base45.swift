/// Base45 (RFC 9285): bytes as text in the QR alphanumeric alphabet, two bytes to three
/// characters, so that a QR code holds them in its dense alphanumeric mode.
///
/// Decoding is strict: a character outside the alphabet, a dangling single character, or a group
/// whose value does not fit its bytes (`GGW` is 65,535 + 1) is an error, never skipped.
public enum Base45 {
    /// The 45 characters, in value order.
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Character (ASCII) → value, or -1.
    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        return table
    }()

    /// Whether `character` is one of the 45.
    public static func isAlphabet(_ character: UInt8) -> Bool {
        character < 128 && values[Int(character)] >= 0
    }

    /// Encodes bytes.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 1) / 2 * 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            if let second = iterator.next() {
                var value = Int(first) << 8 | Int(second)
                for _ in 0..<3 {
                    output.append(alphabet[value % 45])
                    value /= 45
                }
            } else {
                output.append(alphabet[Int(first) % 45])
                output.append(alphabet[Int(first) / 45])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes text (strictly).
    ///
    /// - Throws: ``ConfigurationError`` (`invalidBase45`) naming the position of the first bad
    ///   character or group.
    public static func decode(_ text: some StringProtocol, source: String) throws -> [UInt8] {
        let characters = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(characters.count / 3 * 2 + 1)
        func value(at index: Int) throws -> Int {
            let character = characters[index]
            guard isAlphabet(character) else {
                throw ConfigurationError(
                    .invalidBase45, source: source, "character \(index + 1) is not Base45 (only 0-9 A-Z space $%*+-./:)"
                )
            }
            return Int(values[Int(character)])
        }
        // Every character is checked before any group is read, so a stray character is named as such.
        if let bad = characters.firstIndex(where: { !isAlphabet($0) }) { _ = try value(at: bad) }
        var index = 0
        while index < characters.count {
            let remaining = characters.count - index
            if remaining == 1 {
                throw ConfigurationError(
                    .invalidBase45, source: source, "the Base45 text ends with a single character (truncated?)")
            }
            if remaining == 2 {
                let number = try value(at: index) + 45 * value(at: index + 1)
                guard number <= 0xFF else {
                    throw ConfigurationError(
                        .invalidBase45, source: source,
                        "the last Base45 pair (characters \(index + 1)-\(index + 2)) is out of range")
                }
                output.append(UInt8(number))
                index += 2
            } else {
                let number = try value(at: index) + 45 * value(at: index + 1) + 2025 * value(at: index + 2)
                guard number <= 0xFFFF else {
                    throw ConfigurationError(
                        .invalidBase45, source: source,
                        "the Base45 group at characters \(index + 1)-\(index + 3) is out of range")
                }
                output.append(UInt8(number >> 8))
                output.append(UInt8(number & 0xFF))
                index += 3
            }
        }
        return output
    }
}
