import ActivationConfiguration

/// `application/x-www-form-urlencoded`, both ways: the bodies sent to token, device and
/// revocation endpoints, the authorization request's query, and the redirect's query read back.
enum FormEncoding {
    /// `name=value&…`, every byte but the unreserved ones (RFC 3986 §2.3) percent-encoded.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// One name or value, every byte but the unreserved ones percent-encoded.
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Why a query could not be read.
    struct Problem: Error, Sendable {
        let why: String
        init(_ why: String) { self.why = why }
    }

    /// The fields of a query (without `?`): `+` is a space, `%XX` a byte, the result must be
    /// UTF-8. At most `maxFields` fields; an empty query has none.
    static func decode(_ query: Substring, maxFields: Int) throws(Problem) -> [(name: String, value: String)] {
        guard !query.isEmpty else { return [] }
        var fields: [(name: String, value: String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard fields.count < maxFields else { throw Problem("more than \(maxFields) parameters") }
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(pieces[0])
            let value = pieces.count > 1 ? try decodeComponent(pieces[1]) : ""
            fields.append((name, value))
        }
        return fields
    }

    static func decodeComponent(_ text: Substring) throws(Problem) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case 0x2B: bytes.append(0x20)
            case 0x25:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw Problem("a % not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
            case 0x00...0x20, 0x7F...0xFF:
                throw Problem("a control character, space or non-ASCII byte that is not percent-encoded")
            default: bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw Problem("a value that is not UTF-8") }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
