/// The discovery service's public resources (the admin API's are ``AdminOperation``): each one's
/// path template, the methods it answers and the label it is logged and counted under; and the one
/// way from an untrusted request target to the path the server routes on, ``canonicalPath(of:)``.
///
/// The server routes the canonical path only, so `//config-api.svc/…`, `/x/../config-api.svc/…` and
/// `/config-api.svc/%41pplicationConfigurations/…` reach the lookup as the canonical form does.
/// Paths are case-sensitive: `/CONFIG-API.svc/…` is no resource.
///
/// ``canonicalPath(of:)`` is total and bounded: any input, valid UTF-8 or not, gives a path or a
/// refusal in time linear in its length (targets over ``maxTargetLength`` bytes are refused before
/// they are read), so fuzzers may call it on arbitrary bytes. This module needs nothing but
/// Foundation, so the fuzz target imports it without the server's network and database stack.
public enum DiscoveryRoute: String, Sendable, CaseIterable {
    /// `/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(…)`: a lookup by e-mail
    /// address or onboarding code (the segment is a ``LookupCall``).
    case lookup
    /// SAP's `settingsExchange` path of an application's client policies (``settingsTemplate``:
    /// both ids the same).
    case settings
    /// `/health`: the process runs.
    case health
    /// `/ready`: the database can be reached and takes writes.
    case ready
    /// `/metrics`: Prometheus text.
    case metrics
    /// `/openapi.yaml`: the service's OpenAPI description.
    case openAPI
    /// `/admin`: the console's page.
    case console
    /// `/admin/{file}`: the console's script and style.
    case consoleFile

    /// Requests whose target is longer than this are refused (414).
    public static let maxTargetLength = 4096

    /// Why a request target is refused before routing.
    public enum TargetError: Error, Sendable, Hashable {
        /// Longer than ``maxTargetLength`` bytes (414).
        case tooLong
        /// Not of the form `/path[?query]`, a byte outside RFC 3986's URI characters (spaces, controls,
        /// bytes ≥ 0x80), `%` not followed by two hex digits, or an encoded `/` or NUL (400).
        case malformed
    }

    /// The lookup function's path; its last segment is the call.
    public static let lookupTemplate = "/config-api.svc/ApplicationConfigurations/{function}"
    /// Where the service serves its OpenAPI description.
    public static let openAPIPath = "/openapi.yaml"
    /// The operations paths: liveness, readiness, Prometheus metrics.
    public static let healthPath = "/health", readyPath = "/ready", metricsPath = "/metrics"
    /// The console's page; its files are below it.
    public static let consolePath = "/admin"
    /// SAP's `settingsExchange` path as the OpenAPI document writes it.
    public static let settingsTemplate = """
        /mobileservices/application/{appID}/storage/v1/runtime/application/{appIDAgain}/global/mobileservices/\
        settingsExchange
        """

    /// The path template, parameters in braces.
    public var template: String {
        switch self {
        case .lookup: Self.lookupTemplate
        case .settings: Self.settingsTemplate
        case .health: Self.healthPath
        case .ready: Self.readyPath
        case .metrics: Self.metricsPath
        case .openAPI: Self.openAPIPath
        case .console: Self.consolePath
        case .consoleFile: Self.consolePath + "/{file}"
        }
    }

    /// The methods answered: `GET`, and `HEAD` where reading changes nothing. A lookup by code
    /// uses the code up, so a lookup answers `GET` only: a prefetcher's `HEAD` must not spend it.
    public var methods: [String] {
        self == .lookup ? ["GET"] : ["GET", "HEAD"]
    }

    /// The fixed label logged and counted for this route: `lookup`, `settings`, `health`, `ready`,
    /// `metrics`, `openapi` or `console`. Never request text.
    public var label: String {
        switch self {
        case .lookup: "lookup"
        case .settings: "settings"
        case .health: "health"
        case .ready: "ready"
        case .metrics: "metrics"
        case .openAPI: "openapi"
        case .console, .consoleFile: "console"
        }
    }

    /// The `settingsExchange` path of `appID`'s client policies, the id percent-encoded.
    public static func settingsPath(appID: String) -> String {
        let id = PercentEncoding.encodeSegment(appID)
        return settingsTemplate.replacingOccurrences(of: "{appID}", with: id).replacingOccurrences(
            of: "{appIDAgain}", with: id)
    }

    /// The canonical path of a request target (its query dropped, not decoded).
    ///
    /// Percent-encoded unreserved characters (`A-Z a-z 0-9 - . _ ~`) are decoded, other encodings
    /// are kept with upper-case hex digits; `.` and `..` segments are resolved without ever going
    /// above the root; repeated `/` are collapsed. A trailing `/` is kept.
    ///
    /// - Throws: ``TargetError/tooLong`` over ``maxTargetLength`` bytes;
    ///   ``TargetError/malformed`` for anything but `/path[?query]` in URI characters, for a `%` not
    ///   followed by two hex digits, and for an encoded `/` or NUL anywhere.
    public static func canonicalPath(of target: some Collection<UInt8>) throws(TargetError) -> String {
        guard target.count <= Self.maxTargetLength else { throw .tooLong }
        let bytes = Array(target)
        guard bytes.first == UInt8(ascii: "/") else { throw .malformed }
        let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
        // The query is not routed on, but must be as well formed as the path.
        var index = pathEnd
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard let decoded = PercentEncoding.decodedByte(bytes, at: index), decoded != 0 else {
                    throw .malformed
                }
                index += 3
            } else {
                guard PercentEncoding.isURICharacter(byte) else { throw .malformed }
                index += 1
            }
        }

        var output: [UInt8] = []
        output.reserveCapacity(pathEnd + 1)
        var segmentStarts: [Int] = []  // where each kept segment's `/` is in `output`
        var segment: [UInt8] = []
        var endsWithSlash = false  // the last segment was empty, `.` or `..`: `/a/`, `/a/.` and `/a/b/..` give `/a/`
        index = 1
        while index <= pathEnd {
            if index == pathEnd || bytes[index] == UInt8(ascii: "/") {
                endsWithSlash = true
                switch segment {
                case [], [UInt8(ascii: ".")]:
                    break  // `//` collapses; `.` stays
                case [UInt8(ascii: "."), UInt8(ascii: ".")]:
                    if let start = segmentStarts.popLast() { output.removeSubrange(start...) }  // never above the root
                default:
                    segmentStarts.append(output.count)
                    output.append(UInt8(ascii: "/"))
                    output.append(contentsOf: segment)
                    endsWithSlash = false
                }
                segment.removeAll(keepingCapacity: true)
                index += 1
                continue
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard let decoded = PercentEncoding.decodedByte(bytes, at: index), decoded != 0,
                    decoded != UInt8(ascii: "/")
                else {
                    throw .malformed
                }
                if PercentEncoding.isUnreserved(decoded) {
                    segment.append(decoded)
                } else {
                    segment.append(contentsOf: PercentEncoding.encoded(decoded))
                }
                index += 3
            } else {
                guard PercentEncoding.isURICharacter(byte) else { throw .malformed }
                segment.append(byte)
                index += 1
            }
        }
        if output.isEmpty || endsWithSlash { output.append(UInt8(ascii: "/")) }
        // Only ASCII was appended, so this decoding never repairs anything.
        return String(decoding: output, as: UTF8.self)
    }
}

extension String {
    /// The bytes as a string when they are valid UTF-8 (no overlong forms, no surrogates), else nil.
    init?(validatingUTF8Bytes bytes: some Collection<UInt8>) {
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, so a repaired string differs from its input.
        guard string.utf8.elementsEqual(bytes) else { return nil }
        self = string
    }
}
