/// The data bit stream of a QR symbol: segments of numeric, alphanumeric, byte and kanji mode,
/// each a 4-bit mode indicator, a character count and the characters, up to a terminator.
enum QRBitStream {
    /// The payload bytes of the corrected data codewords: digits and alphanumerics as ASCII, byte
    /// mode as is, kanji as Shift_JIS (``PayloadText`` turns them into text). `nil` when the stream
    /// is malformed (an unknown mode, a count running past the end, a character out of range).
    static func payload(_ data: [UInt8], version: Int, leadingZeroBits: Int = 0) -> [UInt8]? {
        var reader = BitReader(bytes: data)
        guard reader.read(leadingZeroBits) == 0 else { return nil }
        let large = version >= 10  // versions 10…26 have longer character counts
        var payload: [UInt8] = []
        while reader.remaining >= 4 {
            guard let mode = reader.read(4) else { return nil }
            switch mode {
            case 0:
                return payload
            case 1:  // numeric: three digits in 10 bits, two in 7, one in 4
                guard var count = reader.read(large ? 12 : 10) else { return nil }
                while count > 0 {
                    let digits = min(count, 3)
                    guard let value = reader.read([4, 7, 10][digits - 1]), value < [10, 100, 1000][digits - 1] else {
                        return nil
                    }
                    let text = String(value)
                    payload += Array((String(repeating: "0", count: digits - text.count) + text).utf8)
                    count -= digits
                }
            case 2:  // alphanumeric: two characters in 11 bits, one in 6
                guard var count = reader.read(large ? 11 : 9) else { return nil }
                while count > 0 {
                    if count >= 2 {
                        guard let value = reader.read(11), value < 45 * 45 else { return nil }
                        payload += [alphanumeric[value / 45], alphanumeric[value % 45]]
                        count -= 2
                    } else {
                        guard let value = reader.read(6), value < 45 else { return nil }
                        payload.append(alphanumeric[value])
                        count -= 1
                    }
                }
            case 4:  // bytes
                guard let count = reader.read(large ? 16 : 8), reader.remaining >= 8 * count else { return nil }
                for _ in 0..<count { payload.append(UInt8(reader.read(8) ?? 0)) }
            case 8:  // kanji: 13 bits each, a Shift_JIS double byte
                guard let count = reader.read(large ? 10 : 8), reader.remaining >= 13 * count else { return nil }
                for _ in 0..<count {
                    let value = reader.read(13) ?? 0
                    let combined = (value / 0xC0) << 8 | value % 0xC0
                    let shiftJIS = combined + (combined < 0x1F00 ? 0x8140 : 0xC140)
                    payload += [UInt8(shiftJIS >> 8 & 0xFF), UInt8(shiftJIS & 0xFF)]
                }
            case 3:  // structured append: symbol position, count and parity; the payload is this part
                guard reader.read(16) != nil else { return nil }
            case 5:  // FNC1 in first position (GS1): nothing to add
                continue
            case 9:  // FNC1 in second position: an application indicator
                guard reader.read(8) != nil else { return nil }
            default:
                return nil
            }
        }
        return payload
    }

    private static let alphanumeric = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Most significant bit first.
    struct BitReader {
        var bytes: [UInt8]
        var position = 0
        var remaining: Int { bytes.count * 8 - position }

        mutating func read(_ count: Int) -> Int? {
            guard count <= remaining else { return nil }
            var value = 0
            for _ in 0..<count {
                value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
                position += 1
            }
            return value
        }
    }
}
