/// The one place where text that came from outside (a scanned code, a document, a file name, a
/// server's answer) is made safe to show on a terminal or in a log.
///
/// A code may carry ESC sequences that rewrite the screen, a carriage return or newline that
/// forges a second "You will be connected to" line, or bidirectional controls that make
/// `moc.live` read as `evil.com`. Every such character is shown as a visible escape, `\u{1B}`,
/// so the reader sees that something is there and what it is. Printable text, including
/// non-Latin scripts and emoji, is left as it is.
public enum UntrustedText {
    /// `text` with every character that could change how a terminal shows it replaced by a
    /// visible `\u{…}` escape; at most `maxCharacters` characters are kept (then `…`).
    public static func escaped(_ text: some StringProtocol, maxCharacters: Int = .max) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maxCharacters {
                result += "…"
                break
            }
            if needsEscape(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return result
    }

    /// Whether `text` holds anything ``escaped(_:maxCharacters:)`` would escape.
    public static func isPlain(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains(where: needsEscape)
    }

    /// JSON text with the characters JSON allows raw but a terminal acts on (DEL, C1 controls,
    /// bidirectional and other invisible formatting characters, line separators) written as
    /// `\uXXXX` escapes, as JSON permits for any character. A JSON writer already escapes C0
    /// controls inside strings, so raw tab, newline and carriage return are layout and stay; every
    /// other such character is inside a string, and the JSON means the same.
    public static func escapingJSON(_ json: String) -> String {
        func needsJSONEscape(_ scalar: Unicode.Scalar) -> Bool {
            needsEscape(scalar) && scalar != "\n" && scalar != "\t" && scalar != "\r"
        }
        guard json.unicodeScalars.contains(where: needsJSONEscape) else { return json }
        var result = ""
        for scalar in json.unicodeScalars {
            guard needsJSONEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return result
    }

    /// Control characters (C0, DEL, C1), line and paragraph separators, and invisible format
    /// characters (bidirectional embeddings, overrides and isolates, marks, zero-width space,
    /// byte-order mark, tags). Zero-width joiner and non-joiner stay: scripts and emoji need them,
    /// and they cannot reorder or hide text.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        if value < 0xA0 { return false }
        if value == 0x200C || value == 0x200D { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: return true
        default: return false
        }
    }
}
