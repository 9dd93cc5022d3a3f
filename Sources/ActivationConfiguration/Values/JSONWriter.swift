/// Writes ``ConfigurationValue``s as compact JSON: no white space, keys in the object's order,
/// `/` and non-ASCII left as they are (the densest form for a QR code), control characters escaped.
public enum JSONWriter {
    /// The compact JSON text of `value`.
    public static func compact(_ value: ConfigurationValue) -> String {
        var output = ""
        write(value, into: &output, indent: nil)
        return output
    }

    /// Indented JSON (two spaces), for people.
    public static func pretty(_ value: ConfigurationValue) -> String {
        var output = ""
        write(value, into: &output, indent: "")
        return output
    }

    private static func write(_ value: ConfigurationValue, into output: inout String, indent: String?) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .integer(let number): output += String(number)
        case .number(let number):
            output += number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .string(let text): writeString(text, into: &output)
        case .data(let bytes): writeString(Base64.encode(bytes), into: &output)
        case .array(let items):
            let members = items.map { item -> String in
                var text = ""
                write(item, into: &text, indent: indent.map { $0 + "  " })
                return text
            }
            writeContainer("[", "]", members, into: &output, indent: indent)
        case .object(let object):
            let members = object.entries.map { entry -> String in
                var text = ""
                writeString(entry.key, into: &text)
                text += indent == nil ? ":" : ": "
                write(entry.value, into: &text, indent: indent.map { $0 + "  " })
                return text
            }
            writeContainer("{", "}", members, into: &output, indent: indent)
        }
    }

    private static func writeContainer(
        _ open: String, _ close: String, _ members: [String], into output: inout String, indent: String?
    ) {
        guard let indent, !members.isEmpty else {
            output += open + members.joined(separator: ",") + close
            return
        }
        let inner = indent + "  "
        output += open + "\n" + inner + members.joined(separator: ",\n" + inner) + "\n" + indent + close
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
