import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server URL in the one canonical form that the security policy, the store and the discovery
/// client judge: the host it holds is the host a connection will reach.
///
/// Parsing is strict where readers disagree, so no spelling can make a policy see one host while
/// a resolver or browser connects to another:
/// - the host is lower-case letters, digits and hyphens in dot-separated labels (LDH); a
///   non-ASCII label is converted to its IDNA ASCII form (`bücher.example` → `xn--bcher-kva.example`);
///   percent-encoded and any other characters are refused;
/// - an IPv4 address only as a canonical dotted quad (`127.0.0.1`): the numeric spellings resolvers
///   also accept (`2130706433`, `127.1`, `0x7f.0.0.1`, `0177.0.0.1`) and host names ending in a
///   number are refused; an IPv6 address only in brackets, without a zone, kept in RFC 5952 form;
/// - the port, if written, is 1–65535; user name and password are recorded (and refused by the
///   policy), never kept;
/// - no control characters, spaces, backslashes or non-ASCII outside the host.
public struct CanonicalURL: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lower-cased (`https`).
    public let scheme: String
    /// The host a connection reaches.
    public let host: Host
    /// The port as written, or `nil` for the scheme's default.
    public let port: Int?
    /// The path as written (percent-encoding kept), `""` or starting with `/`.
    public let path: String
    /// The query without `?`, if any.
    public let query: String?
    /// The fragment without `#`, if any.
    public let fragment: String?
    /// Whether the URL carried a user name or password (`https://user@host`); never kept.
    public let hasUserInfo: Bool

    /// The longest URL accepted.
    public static let maxLength = 4096

    /// A host: a DNS name, an IPv4 address or an IPv6 address, in canonical form.
    public enum Host: Sendable, Hashable, CustomStringConvertible {
        /// Lower-case LDH labels (IDNA A-labels for non-ASCII names), without a trailing dot.
        case name(String)
        /// A dotted quad, `192.0.2.1`.
        case ipv4(String)
        /// RFC 5952 text without brackets, `2001:db8::1`.
        case ipv6(String)

        /// Parses a bare host (the `host` key of a document): a name, a dotted quad, or an IPv6
        /// address with or without brackets.
        ///
        /// - Throws: ``ConfigurationError`` (`invalidHost`) whose reason says what is wrong.
        public init(parsing text: String) throws {
            do {
                self = try Self.parse(text)
            } catch {
                throw CanonicalURL.problem(.invalidHost, text, error.why)
            }
        }

        /// Parses an allow-list entry (`--allow-host`, a trust list's `allowedHosts`): a domain
        /// with or without leading and trailing dots (`.hana.ondemand.com`).
        ///
        /// - Throws: ``ConfigurationError`` (`invalidHost`).
        public init(allowListEntry entry: String) throws {
            try self.init(parsing: entry.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
        }

        static func parse(_ text: String) throws(Problem) -> Host {
            if text.hasPrefix("[") || text.contains(":") {
                var inner = Substring(text)
                if inner.hasPrefix("[") {
                    guard inner.hasSuffix("]") else { throw Problem("an IPv6 address in [ ] is not closed") }
                    inner = inner.dropFirst().dropLast()
                }
                return try parseIPv6(inner)
            }
            return try parseName(text)
        }

        /// The host as it appears in a URL (IPv6 in brackets).
        public var description: String {
            switch self {
            case .name(let name): name
            case .ipv4(let address): address
            case .ipv6(let address): "[\(address)]"
            }
        }

        /// The host without brackets: what a document's `host` key holds.
        public var text: String {
            switch self {
            case .name(let name): name
            case .ipv4(let address): address
            case .ipv6(let address): address
            }
        }

        /// Whether the host is an IP address rather than a name.
        public var isIPAddress: Bool {
            if case .name = self { false } else { true }
        }

        /// `localhost`, `127.0.0.0/8`, `::1` (and `::ffff:127.x.x.x`).
        public var isLoopback: Bool {
            switch self {
            case .name(let name): name == "localhost"
            case .ipv4(let address): address.hasPrefix("127.")
            case .ipv6(let address): address == "::1" || address.hasPrefix("::ffff:127.")
            }
        }

        /// Whether this host is `suffix` or lies under it at a label boundary
        /// (`a.example.com` is under `example.com`; `badexample.com` is not).
        public func isEqualOrUnder(_ suffix: Host) -> Bool {
            switch (self, suffix) {
            case (.name(let name), .name(let domain)): name == domain || name.hasSuffix("." + domain)
            default: self == suffix
            }
        }

        // MARK: Parsing

        static func parseIPv6(_ inner: Substring) throws(Problem) -> Host {
            if inner.contains("%") {
                throw Problem("an IPv6 address with a zone (%) is not allowed")
            }
            var address = in6_addr()
            guard inner.utf8.count <= 45, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }),
                inet_pton(AF_INET6, String(inner), &address) == 1
            else {
                throw Problem("not a valid IPv6 address")
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else {
                throw Problem("not a valid IPv6 address")
            }
            return .ipv6(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }

        static func parseName(_ raw: String) throws(Problem) -> Host {
            if raw.isEmpty { throw Problem("the host is empty") }
            if raw.utf8.contains(UInt8(ascii: "%")) {
                throw Problem("percent-encoded characters are not allowed in a host")
            }
            var name = raw
            if !name.utf8.allSatisfy({ $0 < 0x80 }) {
                // IDNA (UTS 46) treats these full stops as dots; map them before splitting. Then the
                // IDNA mapping: compatibility normalisation and lower case, then Punycode per label.
                name = String(
                    String.UnicodeScalarView(
                        name.unicodeScalars.map { ["\u{3002}", "\u{FF0E}", "\u{FF61}"].contains($0) ? "." : $0 }))
                name = name.precomposedStringWithCompatibilityMapping.lowercased()
            }
            if name.hasSuffix(".") { name.removeLast() }  // the root label: same host
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            if let last = labels.last, isNumeric(last) {
                if let address = canonicalIPv4(labels) { return .ipv4(address) }
                if let meaning = ipv4Meaning(labels) {
                    throw Problem(
                        """
                        a numeric address in a non-standard form (resolvers read it as \(meaning)); \
                        write IP addresses as four decimal numbers
                        """
                    )
                }
                throw Problem("a host name cannot end in a number")
            }
            var ascii: [String] = []
            for label in labels {
                if label.isEmpty { throw Problem("a host has an empty label (two dots, or a leading dot)") }
                var converted = String(label).lowercased()
                if !label.allSatisfy(\.isASCII) {
                    guard label.unicodeScalars.allSatisfy(isIDNAScalar), let encoded = Punycode.encode(converted) else {
                        throw Problem("a host may hold only letters, digits and hyphens")
                    }
                    converted = "xn--" + encoded
                }
                guard converted.utf8.allSatisfy(isLDH), converted.first != "-", converted.last != "-" else {
                    throw Problem(
                        "a host may hold only letters, digits and hyphens (and not start or end a label with a hyphen)")
                }
                guard converted.utf8.count <= 63 else { throw Problem("a host label is longer than 63 characters") }
                ascii.append(converted)
            }
            let result = ascii.joined(separator: ".")
            guard result.utf8.count <= 253 else { throw Problem("the host is longer than 253 characters") }
            return .name(result)
        }

        static func isLDH(_ byte: UInt8) -> Bool {
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D
        }

        /// Letters, marks and digits of any script, and hyphens: what an internationalised label may hold.
        static func isIDNAScalar(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII { return isLDH(UInt8(scalar.value)) }
            switch scalar.properties.generalCategory {
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                return true
            default: return false
            }
        }

        /// WHATWG's "ends in a number": all digits, or `0x` and hex digits.
        static func isNumeric(_ label: Substring) -> Bool {
            if !label.isEmpty, label.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
            let lower = label.lowercased()
            return lower.hasPrefix("0x") && lower.dropFirst(2).allSatisfy { $0.isASCII && $0.isHexDigit }
        }

        /// Four decimal numbers 0–255 without leading zeros, or nil.
        static func canonicalIPv4(_ labels: [Substring]) -> String? {
            guard labels.count == 4 else { return nil }
            for label in labels {
                guard !label.isEmpty, label.count <= 3, label.allSatisfy({ $0.isASCII && $0.isNumber }),
                    label == "0" || label.first != "0", let value = Int(label), value <= 255
                else { return nil }
            }
            return labels.joined(separator: ".")
        }

        /// The dotted quad a resolver (inet_aton, WHATWG) makes of a numeric host, or nil.
        static func ipv4Meaning(_ labels: [Substring]) -> String? {
            guard (1...4).contains(labels.count) else { return nil }
            var numbers: [UInt64] = []
            for label in labels {
                let lower = label.lowercased()
                let (digits, radix) =
                    lower.hasPrefix("0x")
                    ? (String(lower.dropFirst(2)), 16)
                    : (lower.count > 1 && lower.hasPrefix("0")) ? (String(lower.dropFirst()), 8) : (lower, 10)
                if digits.isEmpty && radix == 16 {
                    numbers.append(0)
                    continue
                }
                guard digits.count <= 32, let value = UInt64(digits, radix: radix) else { return nil }
                numbers.append(value)
            }
            guard numbers.dropLast().allSatisfy({ $0 <= 255 }), let last = numbers.last,
                last < (UInt64(1) << (8 * UInt64(5 - numbers.count)))
            else { return nil }
            var address = last
            for (index, value) in numbers.dropLast().enumerated() { address += value << (8 * UInt64(3 - index)) }
            return (0..<4).map { String((address >> (8 * UInt64(3 - $0))) & 0xFF) }.joined(separator: ".")
        }
    }

    /// Parses an absolute URL with an authority (`scheme://host…`).
    ///
    /// - Parameters:
    ///   - text: the URL as written.
    ///   - schemes: the schemes accepted (default http and https).
    /// - Throws: ``ConfigurationError`` (`invalidURL` or `invalidHost`) whose reason shows the
    ///   URL (escaped, query hidden) and what is wrong.
    public init(parsing text: String, schemes: Set<String> = ["https", "http"]) throws {
        guard text.utf8.count <= Self.maxLength else {
            throw Self.problem(.invalidURL, text, "longer than \(Self.maxLength) bytes")
        }
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter,
            text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            throw Self.problem(.invalidURL, text, "not a URL (no scheme)")
        }
        let scheme = text[..<colon].lowercased()
        guard schemes.contains(scheme) else {
            throw Self.problem(.invalidURL, text, "not an \(schemes.sorted().joined(separator: " or ")) URL")
        }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw Self.problem(.invalidURL, text, "no // after the scheme") }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex
        var authority = afterSlashes[..<authorityEnd]
        let tail = afterSlashes[authorityEnd...]
        // Outside the host, only printable ASCII: no spaces, controls or backslashes (which some
        // readers take for `/`, ending the host early).
        guard tail.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }),
            !authority.unicodeScalars.contains(where: {
                $0.value <= 0x20 || $0 == "\\" || (0x7F...0x9F).contains($0.value)
            })
        else {
            throw Self.problem(
                .invalidURL, text, "contains spaces, control characters, backslashes or non-ASCII outside the host")
        }
        var hasUserInfo = false
        if let at = authority.lastIndex(of: "@") {
            hasUserInfo = true
            authority = authority[authority.index(after: at)...]
        }
        var hostText = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw Self.problem(.invalidHost, text, "an IPv6 address in [ ] is not closed")
            }
            hostText = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw Self.problem(.invalidHost, text, "unexpected text after the IPv6 address")
                }
                portText = after.dropFirst()
            }
        } else if let portColon = authority.firstIndex(of: ":") {
            hostText = authority[..<portColon]
            portText = authority[authority.index(after: portColon)...]
        }
        if hostText.isEmpty { throw Self.problem(.invalidHost, text, "no host") }
        do {
            host = try Host.parse(String(hostText))
        } catch {
            throw Self.problem(.invalidHost, text, error.why)
        }
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portText), (1...65535).contains(value)
            else {
                throw Self.problem(.invalidURL, text, "the port must be a number from 1 to 65535")
            }
            port = value
        } else {
            port = nil
        }
        var pathEnd = tail.firstIndex { $0 == "?" || $0 == "#" } ?? tail.endIndex
        path = String(tail[..<pathEnd])
        if pathEnd < tail.endIndex, tail[pathEnd] == "?" {
            let queryStart = tail.index(after: pathEnd)
            pathEnd = tail[queryStart...].firstIndex(of: "#") ?? tail.endIndex
            query = String(tail[queryStart..<pathEnd])
        } else {
            query = nil
        }
        fragment = pathEnd < tail.endIndex ? String(tail[tail.index(after: pathEnd)...]) : nil
        guard Self.hasValidPercentEncoding(path) && Self.hasValidPercentEncoding(query ?? "") else {
            throw Self.problem(.invalidURL, text, "a % is not followed by two hex digits")
        }
        self.scheme = scheme
        self.hasUserInfo = hasUserInfo
    }

    /// The scheme's default port (443 for https, 80 for http).
    public var defaultPort: Int { scheme == "http" ? 80 : 443 }

    /// The port a connection uses.
    public var effectivePort: Int { port ?? defaultPort }

    /// `scheme://host[:port]` (the port only when it is not the default).
    public var origin: String {
        "\(scheme)://\(host)\(effectivePort == defaultPort ? "" : ":\(effectivePort)")"
    }

    /// The canonical text: origin, path, query and fragment; never a user name or password.
    public var description: String {
        origin + path + (query.map { "?\($0)" } ?? "") + (fragment.map { "#\($0)" } ?? "")
    }

    static func hasValidPercentEncoding(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, Character(Unicode.Scalar(bytes[index + 1])).isHexDigit,
                    Character(Unicode.Scalar(bytes[index + 2])).isHexDigit
                else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    /// A URL as shown in messages: escaped, shortened, without what may be secret: a user name
    /// and password (`https://…@host`) and the query (`?…`), which may carry tokens.
    public static func shown(_ text: String) -> String {
        var visible = Substring(text)
        if let mark = visible.firstIndex(of: "?") { visible = visible[..<mark] + "?…" }
        if let start = visible.range(of: "://")?.upperBound {
            let authorityEnd = visible[start...].firstIndex { $0 == "/" || $0 == "#" || $0 == "?" } ?? visible.endIndex
            if let at = visible[start..<authorityEnd].lastIndex(of: "@") {
                visible = visible[..<start] + "…" + visible[at...]
            }
        }
        return UntrustedText.escaped(visible, maxCharacters: 120)
    }

    /// Why a host or URL is refused (the caller adds the text and the key path).
    struct Problem: Error {
        var why: String
        init(_ why: String) { self.why = why }
    }

    static func problem(_ code: ConfigurationError.Code, _ text: String, _ why: String) -> ConfigurationError {
        ConfigurationError(code, "\"\(shown(text))\": \(why)")
    }
}
