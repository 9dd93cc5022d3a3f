/// Text inside HTML, for the whole package (the printable code sheet, the sign-in listener's
/// pages): untrusted text made safe for a terminal first (``UntrustedText``, so controls show as
/// visible escapes), then the five characters with a meaning in HTML escaped.
package enum HTMLText {
    /// `text` ready to stand between tags or inside a quoted attribute.
    package static func escaped(_ text: String) -> String {
        var output = ""
        for character in UntrustedText.escaped(text) {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
