import ActivationDiscoveryProtocol
import Hummingbird

/// A typed path parameter: made from the segment the router captured (still percent-encoded, as
/// the canonical path has it), or refused with the protocol's error. Handlers receive these types,
/// never raw strings.
protocol PathParameter: Sendable {
    /// The parameter of a captured segment.
    init(segment: Substring) throws(Refusal)
}

extension DiscoveryServer.Context {
    /// The path parameter `name` of the route matched, as `Value`.
    func parameter<Value: PathParameter>(_ name: String, as type: Value.Type = Value.self) throws(Refusal) -> Value {
        guard let segment = coreContext.parameters.get(name).map({ Substring($0) }) else {
            // Only a route registered without the parameter gets here: a server bug, not a client error.
            throw Refusal(.notFound, "no such resource")
        }
        return try Value(segment: segment)
    }
}

/// A segment percent-decoded, or a 400 naming what it should have been.
private func decodedSegment(_ segment: Substring, what: String) throws(Refusal) -> String {
    guard let text = PercentEncoding.decodeSegment(segment) else {
        throw Refusal(.badRequest, "the \(what) is not valid percent-encoded UTF-8")
    }
    return text
}

/// An application id or document name of the admin API: 1-200 of `A-Z a-z 0-9 . _ -`, not
/// starting with `.` (the OpenAPI document's `Name` pattern).
struct AdminName: Sendable, Hashable {
    let value: String

    /// `text`, checked as a `what` (`application id`, `document name`).
    init(_ text: String, what: String) throws(Refusal) {
        guard (1...200).contains(text.utf8.count), !text.hasPrefix("."),
            text.utf8.allSatisfy({ Self.allowed($0) })
        else {
            throw Refusal(.badRequest, "a \(what) is 1-200 of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.'")
        }
        value = text
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// `{appID}` of an admin path.
struct ApplicationID: PathParameter {
    let value: String
    init(segment: Substring) throws(Refusal) {
        value = try AdminName(decodedSegment(segment, what: "application id"), what: "application id").value
    }
}

/// `{name}` of a document's admin path.
struct DocumentName: PathParameter {
    let value: String
    init(segment: Substring) throws(Refusal) {
        value = try AdminName(decodedSegment(segment, what: "document name"), what: "document name").value
    }
}

/// `{domain}` of a domain mapping's admin path: a lower-cased DNS name of letters, digits, `-`
/// and dots, at least two labels (international names in their punycode form).
struct DomainName: PathParameter {
    let value: String

    init(segment: Substring) throws(Refusal) {
        try self.init(decodedSegment(segment, what: "domain"))
    }

    init(_ text: String) throws(Refusal) {
        let domain = text.lowercased()
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard domain.utf8.count <= 253, labels.count >= 2,
            labels.allSatisfy({
                (1...63).contains($0.utf8.count) && !$0.hasPrefix("-") && !$0.hasSuffix("-")
                    && $0.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
            })
        else {
            throw Refusal(
                .badRequest, "not a domain name such as example.com (use the punycode form of international names)")
        }
        value = domain
    }
}

/// `{id}` of a code's admin path: a positive number.
struct CodeID: PathParameter {
    let value: Int64
    init(segment: Substring) throws(Refusal) {
        guard let id = Int64(segment), id > 0 else { throw Refusal(.badRequest, "a code id is a positive number") }
        value = id
    }
}

/// `{appID}` of the `settingsExchange` path: any id in valid UTF-8 without control characters
/// (SAP's ids are not limited to the admin API's names); a path that names no such id is no
/// resource (404).
struct SettingsAppID: PathParameter {
    let value: String
    init(segment: Substring) throws(Refusal) {
        guard let id = PercentEncoding.decodeSegment(segment), !id.isEmpty,
            !id.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { throw Refusal(.notFound, "no such resource") }
        value = id
    }
}

/// `{function}` of the lookup path.
extension LookupCall: PathParameter {
    init(segment: Substring) throws(Refusal) {
        guard let call = LookupCall(function: segment.utf8) else {
            throw Refusal(
                .badRequest,
                """
                expected getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>') \
                or OnboardingCode='<code>'
                """
            )
        }
        self = call
    }
}
