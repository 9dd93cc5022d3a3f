import Foundation

/// Base64 (RFC 4648) for the whole package, in its two alphabets: standard (property-list
/// `<data>`, JSON of binary values, PEM, the store's keys, HTML data URLs) and URL-safe without
/// padding (JWS). One implementation, Foundation's, behind one set of names.
package enum Base64 {
    /// Standard base64 with padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Standard base64 in lines of 64 characters, as PEM wants.
    package static func encodeLines(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    }

    /// The bytes of standard, padded base64; `nil` for anything else (white space included).
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Data(base64Encoded: String(text)).map(Array.init)
    }

    /// Standard base64 without padding, as age writes it.
    package static func encodeUnpadded(_ bytes: some Sequence<UInt8>) -> String {
        encode(bytes).replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of canonical standard base64 without padding (RFC 4648 section 3.5: unused bits
    /// zero); `nil` for padding, any other character, or a non-canonical encoding.
    package static func decodeUnpaddedCanonical(_ text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.allSatisfy({ isStandardByte($0) }), text.utf8.count % 4 != 1 else { return nil }
        let padded = String(text) + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let bytes = decode(padded), encodeUnpadded(bytes) == String(text) else { return nil }
        return bytes
    }

    private static func isStandardByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2B
            || byte == 0x2F
    }

    /// URL-safe base64 (`-` and `_`), without padding (RFC 7515).
    package static func encodeURL(_ bytes: some Sequence<UInt8>) -> String {
        encode(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of URL-safe base64 without padding; `nil` for any other character or length.
    package static func decodeURL(_ text: some StringProtocol) -> [UInt8]? {
        guard text.allSatisfy(isURLCharacter) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if standard.count % 4 == 1 { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return decode(standard)
    }

    /// A character of the URL-safe alphabet.
    package static func isURLCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
