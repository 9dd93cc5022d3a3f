import Foundation

/// Turns scanned payload bytes into text the way QR readers do.
///
/// zbar in binary mode hands over byte-mode data untouched (it converts only when the code carries an
/// ECI designator). Without a designator the standard's default is ISO-8859-1, but real codes are
/// mostly UTF-8 and, in Japan, Shift_JIS. The rules, in order (the same evidence ZXing weighs):
/// 1. a UTF-16 byte-order mark: UTF-16;
/// 2. valid UTF-8 with a byte-order mark or any multi-byte character: UTF-8; pure ASCII is ASCII;
/// 3. valid Shift_JIS with a run of 3+ katakana or 3+ double-byte characters: Shift_JIS;
/// 4. valid in both Shift_JIS and ISO-8859-1: Shift_JIS if the text has exactly one pair of
///    katakana or 10% or more bytes that would be Latin-1 symbols; ISO-8859-1 otherwise;
/// 5. else the first valid of ISO-8859-1, Shift_JIS, UTF-8.
public enum PayloadText {
    /// The character sets ``decode(_:)`` chooses between.
    public enum Charset: String, Sendable, Hashable {
        /// UTF-8, what most real codes carry.
        case utf8 = "UTF-8"
        /// UTF-16, chosen only when the bytes start with a byte-order mark.
        case utf16 = "UTF-16"
        /// Shift_JIS, the Japanese character set.
        case shiftJIS = "Shift_JIS"
        /// ISO-8859-1 (Latin-1), the standard's default; every byte sequence is valid in it.
        case isoLatin1 = "ISO-8859-1"
    }

    /// Decodes payload bytes into text and names the character set used.
    public static func decode(_ bytes: [UInt8]) -> (text: String, charset: Charset) {
        let charset = guessCharset(bytes)
        if let text = decode(bytes, as: charset) { return (text, charset) }
        // Every byte sequence is valid ISO-8859-1, so this never fails.
        return (String(bytes.map { Character(UnicodeScalar($0)) }), .isoLatin1)
    }

    static func decode(_ bytes: [UInt8], as charset: Charset) -> String? {
        switch charset {
        case .utf8:
            return String(validating: bytes, as: UTF8.self)
        case .utf16:
            return String(bytes: bytes, encoding: .utf16)
        case .shiftJIS:
            return String(bytes: bytes, encoding: .shiftJIS)
        case .isoLatin1:
            return String(bytes.map { Character(UnicodeScalar($0)) })
        }
    }

    /// Chooses the character set of `bytes` by the rules in the type's documentation.
    public static func guessCharset(_ bytes: [UInt8]) -> Charset {
        if bytes.count > 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return .utf16
        }
        var evidence = Evidence()
        for byte in bytes where evidence.anyPossible {
            evidence.add(byte)
        }
        evidence.finish()
        let hasBOM = bytes.count > 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        if evidence.canBeUTF8 && (hasBOM || evidence.utf8MultiByteCharacters > 0) { return .utf8 }
        if evidence.canBeShiftJIS && (evidence.maxKatakanaRun >= 3 || evidence.maxDoubleByteRun >= 3) {
            return .shiftJIS
        }
        if evidence.canBeLatin1 && evidence.canBeShiftJIS {
            let looksJapanese =
                (evidence.maxKatakanaRun == 2 && evidence.katakanaCount == 2)
                || evidence.latin1Symbols * 10 >= bytes.count
            return looksJapanese ? .shiftJIS : .isoLatin1
        }
        if evidence.canBeLatin1 { return .isoLatin1 }
        if evidence.canBeShiftJIS { return .shiftJIS }
        return .utf8
    }

    /// Byte-by-byte validity and statistics for UTF-8, ISO-8859-1 and Shift_JIS at once.
    private struct Evidence {
        var canBeUTF8 = true, canBeLatin1 = true, canBeShiftJIS = true
        var utf8Pending = 0, utf8MultiByteCharacters = 0
        var latin1Symbols = 0
        var sjisPending = 0, katakanaCount = 0, katakanaRun = 0, maxKatakanaRun = 0
        var doubleByteRun = 0, maxDoubleByteRun = 0

        var anyPossible: Bool { canBeUTF8 || canBeLatin1 || canBeShiftJIS }

        mutating func add(_ byte: UInt8) {
            if canBeUTF8 {
                if utf8Pending > 0 {
                    if byte & 0xC0 == 0x80 { utf8Pending -= 1 } else { canBeUTF8 = false }
                } else if byte & 0x80 != 0 {
                    switch byte {
                    case 0xC2...0xDF: utf8Pending = 1
                    case 0xE0...0xEF: utf8Pending = 2
                    case 0xF0...0xF4: utf8Pending = 3
                    default: canBeUTF8 = false
                    }
                    utf8MultiByteCharacters += 1
                }
            }
            if canBeLatin1 {
                if (0x80...0x9F).contains(byte) {
                    canBeLatin1 = false  // C1 controls: never in real Latin-1 text
                } else if byte > 0x9F && (byte < 0xC0 || byte == 0xD7 || byte == 0xF7) {
                    latin1Symbols += 1
                }
            }
            if canBeShiftJIS {
                if sjisPending > 0 {
                    if byte < 0x40 || byte == 0x7F || byte > 0xFC { canBeShiftJIS = false } else { sjisPending -= 1 }
                } else if byte == 0x80 || byte == 0xA0 || byte > 0xEF {
                    canBeShiftJIS = false
                } else if byte > 0xA0 && byte < 0xE0 {
                    katakanaCount += 1
                    doubleByteRun = 0
                    katakanaRun += 1
                    maxKatakanaRun = max(maxKatakanaRun, katakanaRun)
                } else if byte > 0x7F {
                    sjisPending = 1
                    katakanaRun = 0
                    doubleByteRun += 1
                    maxDoubleByteRun = max(maxDoubleByteRun, doubleByteRun)
                } else {
                    katakanaRun = 0
                    doubleByteRun = 0
                }
            }
        }

        mutating func finish() {
            if utf8Pending > 0 { canBeUTF8 = false }
            if sjisPending > 0 { canBeShiftJIS = false }
        }
    }
}
