import Foundation

/// A parsed `getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// (or `OnboardingCode='<code>'`) call.
public struct LookupCall: Sendable, Hashable {
    /// What the call looks up.
    public enum Lookup: Sendable, Hashable {
        /// By e-mail address (`EmailAddress`); preferred when the call gives both.
        case email(String)
        /// By onboarding code (`OnboardingCode`).
        case code(String)
    }

    /// The application id: `AppConfigID` up to its last `:`, never empty.
    public var appID: String
    /// The application version: `AppConfigID` after its last `:`, possibly empty.
    public var version: String
    /// The e-mail address or onboarding code to look up, never empty.
    public var lookup: Lookup

    /// A call as a client makes it.
    public init(appID: String, version: String, lookup: Lookup) {
        self.appID = appID
        self.version = version
        self.lookup = lookup
    }
}

extension LookupCall {
    /// The lookup by e-mail address as the OpenAPI document writes it; a client replaces
    /// `{appConfigID}` (`<appID>:<version>`) and `{emailAddress}`, percent-encoded.
    public static let emailPathTemplate = """
        /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(\
        AppConfigID='{appConfigID}',EmailAddress='{emailAddress}')
        """
    /// The lookup by onboarding code as the OpenAPI document writes it (`{appConfigID}`, `{onboardingCode}`).
    public static let codePathTemplate = """
        /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(\
        AppConfigID='{appConfigID}',OnboardingCode='{onboardingCode}')
        """

    static let name = Array("getApplicationConfiguration(".utf8)

    /// Parses the last segment of a canonical lookup path (``DiscoveryRoute/lookupTemplate``'s
    /// `{function}`): percent-encodings are decoded here, the result must be UTF-8 without control
    /// characters, each argument `Name='value'` (quotes doubled inside), each name at most once.
    /// Total on arbitrary bytes; nil for anything else.
    public init?(function encoded: some Collection<UInt8>) {
        guard let function = PercentEncoding.decoded(encoded),
            function.starts(with: Self.name), function.last == UInt8(ascii: ")"),
            !function.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        var values: [String: String] = [:]
        for argument in Self.split(function[Self.name.count..<(function.count - 1)]) {
            guard let equals = argument.firstIndex(of: UInt8(ascii: "=")),
                let name = String(validatingUTF8Bytes: Self.trimmed(argument[..<equals])),
                let value = Self.unquoted(Self.trimmed(argument[(equals + 1)...])),
                values.updateValue(value, forKey: name) == nil
            else { return nil }
        }
        guard let configID = values["AppConfigID"], let colon = configID.utf8.lastIndex(of: UInt8(ascii: ":")) else {
            return nil
        }
        appID = String(decoding: configID.utf8[..<colon], as: UTF8.self)
        version = String(decoding: configID.utf8[configID.utf8.index(after: colon)...], as: UTF8.self)
        if let email = values["EmailAddress"], !email.isEmpty {
            lookup = .email(email)
        } else if let code = values["OnboardingCode"], !code.isEmpty {
            lookup = .code(code)
        } else {
            return nil
        }
        guard !appID.isEmpty else { return nil }
    }

    /// Splits `a='x,y',b='z'` at the commas outside quotes.
    static func split(_ text: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = text.startIndex
        var quoted = false
        for index in text.indices {
            if text[index] == UInt8(ascii: "'") { quoted.toggle() }
            if text[index] == UInt8(ascii: ","), !quoted {
                parts.append(text[start..<index])
                start = index + 1
            }
        }
        parts.append(text[start...])
        return parts
    }

    static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) })
        else { return [] }
        return text[first...last]
    }

    /// `'it''s'` → `it's`; nil unless quoted.
    static func unquoted(_ text: ArraySlice<UInt8>) -> String? {
        guard text.count >= 2, text.first == UInt8(ascii: "'"), text.last == UInt8(ascii: "'") else { return nil }
        var value: [UInt8] = []
        var afterQuote = false
        for byte in text.dropFirst().dropLast() {
            if byte == UInt8(ascii: "'"), afterQuote {
                afterQuote = false
                continue
            }
            afterQuote = byte == UInt8(ascii: "'")
            value.append(byte)
        }
        return String(validatingUTF8Bytes: value)
    }
}
