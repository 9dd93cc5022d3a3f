import Foundation

/// RFC 3986 percent-encoding, on bytes: what the route parser decodes and the clients encode.
public enum PercentEncoding {
    /// `text` as one path segment (or query value): every byte but the unreserved ones as `%XY`.
    public static func encodeSegment(_ text: String) -> String {
        String(decoding: text.utf8.flatMap { isUnreserved($0) ? [$0] : encoded($0) }, as: UTF8.self)
    }

    /// A path segment decoded: nil when a `%` is malformed or the bytes are not valid UTF-8.
    public static func decodeSegment(_ segment: some StringProtocol) -> String? {
        decoded(segment.utf8).flatMap { String(validatingUTF8Bytes: $0) }
    }

    /// `A-Z a-z 0-9 - . _ ~`: decoding these never changes what a URI means.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The characters a URI may hold raw: unreserved, sub-delims, `: @ / ? %`. Not `# [ ]` (never in a
    /// request path), and no space, control, quote mark, backslash, `< > ^ \` { | }` or byte ≥ 0x80.
    static func isURICharacter(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "%"):
            true
        default: false
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The byte `%XY` at `index` stands for, or nil when `%` is not followed by two hex digits.
    static func decodedByte(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        else { return nil }
        return high << 4 | low
    }

    /// `%XY` with upper-case hex digits.
    static func encoded(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    /// Every `%XY` decoded; nil when one is malformed.
    static func decoded(_ encoded: some Collection<UInt8>) -> [UInt8]? {
        let bytes = Array(encoded)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard let byte = decodedByte(bytes, at: index) else { return nil }
                output.append(byte)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }
}
