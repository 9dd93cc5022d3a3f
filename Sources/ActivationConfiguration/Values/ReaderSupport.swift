/// Pieces the document readers (JSON, XML and binary property lists) share: how input text is quoted
/// in an error, where an offset is, and the errors for the document-wide limits.
enum InputText {
    /// `bytes` as a string, when they are valid UTF-8.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidUTF8`) naming `source` and the first bad byte.
    static func utf8(_ bytes: some Collection<UInt8>, source: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(
                .invalidUTF8, source: source, "not valid UTF-8 at byte \(firstInvalidUTF8(Array(bytes)))")
        }
        return text
    }

    /// The offset of the first byte that does not start or continue a valid UTF-8 sequence.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int {
        var index = 0
        while index < bytes.count {
            let length: Int =
                switch bytes[index] {
                case 0x00...0x7F: 1
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 0
                }
            guard length > 0, index + length <= bytes.count,
                String(validating: bytes[index..<index + length], as: UTF8.self) != nil
            else { return index }
            index += length
        }
        return index
    }

    /// `text` as it may appear inside an error message: at most `limit` characters, control and
    /// bidi characters as visible escapes (``UntrustedText``).
    static func quoted(_ text: some StringProtocol, limit: Int = 40) -> String {
        UntrustedText.escaped(text, maxCharacters: limit)
    }

    /// The start of `bytes[offset...]` as ``quoted(_:limit:)`` shows it (the bytes are valid UTF-8,
    /// or a cut sequence shows as U+FFFD).
    static func quoted(_ bytes: [UInt8], from offset: Int, limit: Int = 40) -> String {
        let start = min(offset, bytes.count)
        let end = min(bytes.count, start + limit * 4)
        return quoted(String(decoding: bytes[start..<end], as: UTF8.self), limit: limit)
    }

    /// A key path with each key shown as ``quoted(_:limit:)`` shows it.
    static func quoted(_ path: ConfigurationPath) -> String {
        ConfigurationPath(
            path.components.map { component in
                if case .key(let key) = component { return .key(quoted(key)) }
                return component
            }
        ).description
    }

    /// Line and column (both from 1; columns count characters, not bytes) of `offset` in UTF-8 text.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

extension ConfigurationError {
    static func tooDeep(_ source: String, limit: Int) -> ConfigurationError {
        ConfigurationError(.tooDeep, source: source, "nesting deeper than \(limit) levels")
    }

    static func tooManyValues(_ source: String, limit: Int) -> ConfigurationError {
        ConfigurationError(
            .tooManyItems, source: source, "more than \(limit) values (the limit for a configuration document)")
    }

    /// A key that an object (dictionary) already holds; `path` is where the object sits.
    static func duplicateKey(_ source: String, _ key: String, in path: ConfigurationPath, _ detail: String = "")
        -> ConfigurationError
    {
        let place = path.components.isEmpty ? "" : "\(InputText.quoted(path)): "
        return ConfigurationError(
            .invalidPropertyList, source: source, "\(place)the key \"\(InputText.quoted(key))\" appears twice\(detail)")
    }
}

/// Dates of property lists as ISO 8601 text in UTC, whole seconds (`2024-01-01T00:00:00Z`), the
/// form `ISO8601DateFormatter` writes, for years 1 to 9999 of the proleptic Gregorian calendar.
enum PropertyListDate {
    /// Seconds from 1970 to 2001-01-01, the epoch of property-list dates.
    private static let referenceDate = 978_307_200
    private static let secondsPerDay = 86_400
    private static let firstDay = days(year: 1, month: 1, day: 1)
    private static let lastDay = days(year: 9999, month: 12, day: 31)

    /// The text for `seconds` since 2001-01-01T00:00:00Z (rounded down to a whole second), or nil
    /// when the date is not finite or outside years 1–9999.
    static func text(secondsSinceReferenceDate seconds: Double) -> String? {
        guard seconds.isFinite else { return nil }
        let floored = seconds.rounded(.down)
        // Beyond ±10^12 s (±31,000 years) no date is in range; checking first keeps Int() safe.
        guard abs(floored) < 1e12 else { return nil }
        let unix = Int(floored) + referenceDate
        let day = unix >= 0 ? unix / secondsPerDay : (unix - secondsPerDay + 1) / secondsPerDay
        guard day >= firstDay, day <= lastDay else { return nil }
        let (year, month, dayOfMonth) = civil(day)
        let time = unix - day * secondsPerDay
        return format(year, month, dayOfMonth, time / 3600, time / 60 % 60, time % 60)
    }

    /// `text` if it is `YYYY-MM-DDTHH:MM:SSZ` naming a real date and time, else nil.
    static func validated(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year >= 1, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        // A day that does not exist (February 30) comes back as another date.
        let (y, m, d) = civil(days(year: year, month: month, day: day))
        return (y, m, d) == (year, month, day) ? text : nil
    }

    private static func format(_ values: Int...) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(values[0], 4))-\(padded(values[1], 2))-\(padded(values[2], 2))T"
            + "\(padded(values[3], 2)):\(padded(values[4], 2)):\(padded(values[5], 2))Z"
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Year, month and day of a day since 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
