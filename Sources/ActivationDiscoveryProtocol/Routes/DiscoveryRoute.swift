/// What a request target asks the discovery service for.
///
/// The one way from untrusted request text to routing: ``canonicalPath(of:)`` rewrites the target
/// into one canonical path, and the route is chosen on that path only, so `//config-api.svc/…`,
/// `/x/../config-api.svc/…` and `/config-api.svc/%41pplicationConfigurations/…` reach the lookup
/// as the canonical form does. Paths are case-sensitive: `/CONFIG-API.svc/…` is ``unknown``.
///
/// Total and bounded: any input, valid UTF-8 or not, gives a route in time linear in its length
/// (targets over ``maxTargetLength`` bytes are refused before they are read), so
/// fuzzers may call `init(target:)` on arbitrary bytes. It needs nothing but the standard library, so
/// the fuzz target imports this module without the server's network and database stack.
public enum DiscoveryRoute: Sendable, Hashable {
    /// `/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(…)` with arguments that parse.
    case lookup(LookupCall)
    /// The lookup function's path with arguments that do not parse (400).
    case malformedLookup
    /// `/health` (200).
    case health
    /// `/ready`: 200 when the database can be reached, else 503.
    case ready
    /// `/metrics`: Prometheus text.
    case metrics
    /// `/openapi.yaml`: the service's OpenAPI description.
    case openAPI
    /// SAP's `settingsExchange` path of an application's client policies,
    /// `/mobileservices/application/{appID}/storage/v1/runtime/application/{appID}/global/mobileservices/settingsExchange`
    /// (both ids the same, percent-decoded, valid UTF-8 without control characters).
    case settings(appID: String)
    /// `/admin/v1/…`: the admin API; its path segments after `/admin/v1/`, percent-decoded, each
    /// valid UTF-8 without control characters.
    case admin([String])
    /// `/admin/` and the console's files below it: the file's name (empty for the page itself).
    case console(String)
    /// Any other canonical path (404).
    case unknown
    /// A target refused before routing (400 or 414).
    case refused(TargetError)

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

    static let functionPrefix = "/config-api.svc/ApplicationConfigurations/"
    static let adminPrefix = "/admin/v1/"
    static let settingsPrefix = "/mobileservices/application/"
    /// Where the service serves its OpenAPI description.
    public static let openAPIPath = "/openapi.yaml"
    /// The operations paths: liveness, readiness, Prometheus metrics.
    public static let healthPath = "/health", readyPath = "/ready", metricsPath = "/metrics"
    /// SAP's `settingsExchange` path as the OpenAPI document writes it.
    public static let settingsTemplate =
        settingsPrefix + "{appID}/storage/v1/runtime/application/{appIDAgain}/global/mobileservices/settingsExchange"

    /// The `settingsExchange` path of `appID`'s client policies, the id percent-encoded.
    public static func settingsPath(appID: String) -> String {
        let id = PercentEncoding.encodeSegment(appID)
        return settingsTemplate.replacingOccurrences(of: "{appID}", with: id).replacingOccurrences(
            of: "{appIDAgain}", with: id)
    }

    /// Routes a request target as the server receives it (`/path?query`).
    public init(target: String) {
        self.init(target: target.utf8)
    }

    /// Routes a request target given as bytes (for fuzzing: any bytes are accepted).
    public init(target bytes: some Collection<UInt8>) {
        let path: String
        do {
            path = try Self.canonicalPath(of: bytes)
        } catch {
            self = .refused(error)
            return
        }
        if path == Self.healthPath {
            self = .health
        } else if path == Self.readyPath {
            self = .ready
        } else if path == Self.metricsPath {
            self = .metrics
        } else if path == Self.openAPIPath {
            self = .openAPI
        } else if path.hasPrefix(Self.adminPrefix) {
            let raw = path.dropFirst(Self.adminPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            let segments = raw.compactMap {
                PercentEncoding.decoded($0.utf8).flatMap { String(validatingUTF8Bytes: $0) }
            }
            let clean =
                segments.count == raw.count
                && !segments.contains {
                    $0.isEmpty || $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
                }
            self = clean ? .admin(segments) : .unknown
        } else if path == "/admin" || path == "/admin/" {
            self = .console("")
        } else if path.hasPrefix("/admin/"), !path.dropFirst(7).contains("/") {
            self = .console(String(path.dropFirst(7)))
        } else if path.hasPrefix(Self.settingsPrefix) {
            self = Self.settingsAppID(path).map { .settings(appID: $0) } ?? .unknown
        } else if path.hasPrefix(Self.functionPrefix) {
            let function = path.utf8.dropFirst(Self.functionPrefix.utf8.count)
            if function.contains(UInt8(ascii: "/")) {
                self = .unknown
            } else {
                self = LookupCall(function: function).map(Self.lookup) ?? .malformedLookup
            }
        } else {
            self = .unknown
        }
    }

    /// The fixed label logged for this route: `lookup`, `health`, `ready`, `metrics`, `openapi`,
    /// `settings`, `admin`, `console` or `other`. Never request text.
    public var label: String {
        switch self {
        case .lookup, .malformedLookup: "lookup"
        case .health: "health"
        case .ready: "ready"
        case .metrics: "metrics"
        case .openAPI: "openapi"
        case .settings: "settings"
        case .admin: "admin"
        case .console: "console"
        case .unknown, .refused: "other"
        }
    }

    /// The application id of a canonical `settingsExchange` path, or nil when the path is not one:
    /// `mobileservices/application/{appID}/storage/v1/runtime/application/{appID}/global/mobileservices/settingsExchange`.
    static func settingsAppID(_ path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count == 11 else { return nil }
        let parts = Array(segments)
        let fixed: [(Int, Substring)] = [
            (0, "mobileservices"), (1, "application"), (3, "storage"), (4, "v1"), (5, "runtime"),
            (6, "application"), (8, "global"), (9, "mobileservices"), (10, "settingsExchange"),
        ]
        guard fixed.allSatisfy({ parts[$0.0] == $0.1 }), parts[2] == parts[7],
            let decoded = PercentEncoding.decoded(parts[2].utf8), let appID = String(validatingUTF8Bytes: decoded),
            !appID.isEmpty, !appID.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return appID
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
