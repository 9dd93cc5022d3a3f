/// The configuration inside an `AC1:` code: a CBOR map with small integer keys, URLs on the
/// server's own origin stored as paths, and UUID client ids as 16 bytes (docs/activation-codes.md,
/// "The compact configuration").
///
/// Top level: 1 format version (1), 2 scheme, 3 host, 4 port (when not the scheme's default),
/// 5 appID, 6 appVersion, 7 base path, 8 auth items, 9 multiUser, 10 certificate_provider,
/// 11 other keys (text → value).
/// Auth item: 1 type, 2 authorization endpoint, 3 token endpoint, 4 client id, 5 redirect URL,
/// 6 grant type (when not `authorization_code`), 7 scope, 8 requireOtp (when true), 9 end-user UI,
/// 10 XSUAA authorization endpoint, 11 further clients (maps with 4, 5, 6, 7, 13), 12 other `config`
/// keys (text → value; the device, revocation and issuer extensions go here), 13 passcode.
///
/// Decoding gives the document's JSON shape, which ``ConfigurationDocument`` then reads and checks
/// like any other source: the compact form adds no second parser of meaning.
enum CompactConfiguration {
    static let formatVersion = 1

    // MARK: Encoding

    /// The compact form of `document`.
    ///
    /// - Throws: ``ConfigurationError`` when a value (a fractional number) cannot be carried.
    static func encode(_ document: ConfigurationDocument, source: String) throws -> CBOR {
        let origin = Origin(document)
        var map: [CBOR.Entry] = [
            .init(.integer(1), .integer(formatVersion)), .init(.integer(2), .text(document.scheme)),
            .init(.integer(3), .text(document.host)),
        ]
        if document.port != origin.defaultPort { map.append(.init(.integer(4), .integer(document.port))) }
        if let appID = document.appID { map.append(.init(.integer(5), .text(appID))) }
        if let appVersion = document.appVersion { map.append(.init(.integer(6), .text(appVersion))) }
        if !document.basePath.isEmpty { map.append(.init(.integer(7), .text(document.basePath))) }
        map.append(
            .init(
                .integer(8),
                .array(
                    try document.auth.enumerated().map {
                        try encode($1, origin: origin, path: "auth[\($0)]", source: source)
                    })))
        if let multiUser = document.multiUser { map.append(.init(.integer(9), .bool(multiUser))) }
        if let provider = document.certificateProvider { map.append(.init(.integer(10), .text(provider))) }
        if !document.otherKeys.isEmpty {
            map.append(.init(.integer(11), try encode(.object(document.otherKeys), path: "", source: source)))
        }
        return .map(map)
    }

    private static func encode(_ item: AuthItem, origin: Origin, path: String, source: String) throws -> CBOR {
        var map: [CBOR.Entry] = [.init(.integer(1), .text(item.method.typeName))]
        var config = ConfigurationObject()
        switch item.method {
        case .oauth2(let settings):
            map.append(.init(.integer(2), .text(origin.shorten(settings.authorizationEndpoint))))
            map.append(.init(.integer(3), .text(origin.shorten(settings.tokenEndpoint))))
            if let first = settings.clients.first { map += clientEntries(first, origin: origin) }
            if let endUserUI = settings.endUserUI { map.append(.init(.integer(9), .text(origin.shorten(endUserUI)))) }
            if let xsuaa = settings.xsuaaAuthorizationEndpoint {
                map.append(.init(.integer(10), .text(origin.shorten(xsuaa))))
            }
            if settings.clients.count > 1 {
                map.append(
                    .init(
                        .integer(11),
                        .array(settings.clients.dropFirst().map { .map(clientEntries($0, origin: origin)) })))
            }
            // Our extensions travel with the other config keys, in full.
            if let device = settings.deviceAuthorizationEndpoint {
                config["oauth2.deviceAuthorizationEndpoint"] = .string(device)
            }
            if let revocation = settings.revocationEndpoint {
                config["oauth2.revocationEndpoint"] = .string(revocation)
            }
            if let issuer = settings.issuer { config["oauth2.issuer"] = .string(issuer) }
        case .saml2(let settings):
            // Only what differs from the defaults the reader fills in.
            if settings.challengeHeaderName != SAMLSettings.defaultChallengeHeaderName {
                config["saml2.web.post.authchallengeheader.name"] = .string(settings.challengeHeaderName)
            }
            if settings.finishEndpointPath != SAMLSettings.defaultFinishEndpointPath {
                config["saml2.web.post.finish.endpoint.uri"] = .string(settings.finishEndpointPath)
            }
            if settings.finishEndpointRedirectParameter != SAMLSettings.defaultRedirectParameter {
                config["saml2.web.post.finish.endpoint.redirectparam"] = .string(
                    settings.finishEndpointRedirectParameter)
            }
        case .certificate(let provider):
            if let provider { config["provider"] = .string(provider) }
        case .basic, .apiKey, .unknown:
            break
        }
        if item.requireOtp { map.append(.init(.integer(8), .bool(true))) }
        for (key, value) in item.otherConfig { config[key] = value }
        if !config.isEmpty {
            map.append(.init(.integer(12), try encode(.object(config), path: "\(path).config", source: source)))
        }
        return .map(map)
    }

    private static func clientEntries(_ client: OAuth2Client, origin: Origin) -> [CBOR.Entry] {
        var entries: [CBOR.Entry] = [
            .init(.integer(4), UUIDBytes.bytes(client.clientID).map(CBOR.bytes) ?? .text(client.clientID)),
            .init(
                .integer(5),
                .text(
                    SecurityPolicy.isWebURL(client.redirectURL)
                        ? origin.shorten(client.redirectURL) : client.redirectURL)),
        ]
        if client.grantType != .authorizationCode {
            entries.append(.init(.integer(6), .text(client.grantType.rawValue)))
        }
        if let scope = client.scope { entries.append(.init(.integer(7), .text(scope))) }
        if let passcode = client.passcode { entries.append(.init(.integer(13), .text(passcode))) }
        return entries
    }

    /// A JSON-like value as CBOR: objects become maps with text keys, in their order.
    private static func encode(_ value: ConfigurationValue, path: String, source: String) throws -> CBOR {
        switch value {
        case .string(let text): return .text(text)
        case .integer(let number): return .integer(number)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .data(let bytes): return .bytes(bytes)
        case .array(let items):
            return .array(try items.enumerated().map { try encode($1, path: "\(path)[\($0)]", source: source) })
        case .object(let object):
            return .map(
                try object.map {
                    .init(
                        .text($0.key),
                        try encode($0.value, path: path.isEmpty ? $0.key : "\(path).\($0.key)", source: source))
                })
        case .number(let number):
            throw ConfigurationError(
                .invalidValue, source: source, keyPath: path,
                "the number \(number) has a fraction; AC1 codes carry only whole numbers")
        }
    }

    // MARK: Decoding

    /// The document (JSON shape) of a compact configuration.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidCBOR`) naming the compact key path.
    static func decode(_ item: CBOR, source: String) throws -> ConfigurationValue {
        let top = try Fields(item, path: "compact configuration", source: source, known: Set(1...11))
        let version = try top.integer(1, required: true)
        guard version == formatVersion else {
            throw ConfigurationError(
                .invalidCBOR, source: source,
                """
                the code's configuration has format version \(version ?? 0); \
                this version of activate reads version \(formatVersion)
                """
            )
        }
        guard let scheme = try top.text(2), let host = try top.text(3) else {
            throw top.fail("needs a scheme (2) and a host (3)")
        }
        var document = ConfigurationObject()
        let port = try top.integer(4)
        let basePath = try top.text(7) ?? ""
        let probe = ConfigurationDocument(scheme: scheme, host: host, port: port, basePath: basePath)
        let origin = Origin(probe)
        if basePath.isEmpty {
            document["host"] = .string(host)
            document["port"] = .integer(probe.port)
            document["protocol"] = .string(scheme)
        } else {
            document["serviceURL"] = .string(probe.baseURL)
        }
        if let appID = try top.text(5) { document["appID"] = .string(appID) }
        if let appVersion = try top.text(6) { document["appVersion"] = .string(appVersion) }
        if let items = try top.array(8) {
            document["auth"] = .array(
                try items.enumerated().map { try decodeAuth($1, origin: origin, path: "auth[\($0)]", source: source) })
        }
        if let multiUser = try top.bool(9) { document["multiUser"] = .bool(multiUser) }
        if let provider = try top.text(10) { document["certificate_provider"] = .string(provider) }
        if let other = top[11] {
            guard case .object(let object) = try value(other, path: "compact configuration 11", source: source) else {
                throw top.fail("key 11 is not a map")
            }
            for (key, value) in object where document[key] == nil { document[key] = value }
        }
        return .object(document)
    }

    private static func decodeAuth(_ item: CBOR, origin: Origin, path: String, source: String) throws
        -> ConfigurationValue
    {
        let fields = try Fields(item, path: path, source: source, known: Set(1...13))
        guard let type = try fields.text(1) else { throw fields.fail("has no type (1)") }
        var config = ConfigurationObject()
        if type == "oauth2" {
            if let url = try fields.text(2) { config["oauth2.authorizationEndpoint"] = .string(origin.expand(url)) }
            if let url = try fields.text(3) { config["oauth2.tokenEndpoint"] = .string(origin.expand(url)) }
            if let url = try fields.text(9) { config["oauth2.endUserUI"] = .string(origin.expand(url)) }
            if let url = try fields.text(10) {
                config["oauth2.xsuaaAuthorizationEndpoint"] = .string(origin.expand(url))
            }
            var clients: [ConfigurationValue] = []
            if fields[4] != nil { clients.append(try decodeClient(fields, origin: origin)) }
            for (index, more) in (try fields.array(11) ?? []).enumerated() {
                clients.append(
                    try decodeClient(
                        try Fields(
                            more, path: "\(path).clients[\(index + 1)]", source: source, known: [4, 5, 6, 7, 13]),
                        origin: origin))
            }
            config["oauth2.clients"] = .array(clients)
        } else if let key = [2, 3, 4, 5, 6, 7, 9, 10, 11, 13].first(where: { fields[$0] != nil }) {
            throw fields.fail("key \(key) belongs to oauth2 items, not \"\(type)\"")
        }
        if let other = fields[12] {
            guard case .object(let object) = try value(other, path: "\(path) 12", source: source) else {
                throw fields.fail("key 12 is not a map")
            }
            for (key, value) in object where config[key] == nil { config[key] = value }
        }
        var object: ConfigurationObject = ["type": .string(type), "requireOtp": .bool(try fields.bool(8) ?? false)]
        if !config.isEmpty || fields[2] != nil { object["config"] = .object(config) }
        return .object(object)
    }

    private static func decodeClient(_ fields: Fields, origin: Origin) throws -> ConfigurationValue {
        let clientID: String
        switch fields[4] {
        case .bytes(let bytes)?:
            guard let uuid = UUIDBytes.text(bytes) else {
                throw fields.fail("key 4 (client id) is \(bytes.count) bytes, not a 16-byte UUID")
            }
            clientID = uuid
        case .text(let text)?: clientID = text
        default: throw fields.fail("needs a client id (4) as text or a 16-byte UUID")
        }
        guard let redirect = try fields.text(5) else { throw fields.fail("needs a redirect URL (5)") }
        var client: ConfigurationObject = [
            "clientID": .string(clientID), "redirectURL": .string(origin.expand(redirect)),
            "grantType": .string(try fields.text(6) ?? OAuth2GrantType.authorizationCode.rawValue),
        ]
        if let scope = try fields.text(7) { client["scope"] = .string(scope) }
        if let passcode = try fields.text(13) { client["passcode"] = .string(passcode) }
        return .object(client)
    }

    /// A CBOR value as a JSON-like value (the map-with-text-keys subset).
    private static func value(_ item: CBOR, path: String, source: String) throws -> ConfigurationValue {
        switch item {
        case .text(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .bytes(let bytes): return .data(bytes)
        case .unsigned, .negative:
            guard let number = item.intValue else {
                throw ConfigurationError(.invalidCBOR, source: source, keyPath: path, "an integer out of range")
            }
            return .integer(number)
        case .array(let items):
            return .array(try items.enumerated().map { try value($1, path: "\(path)[\($0)]", source: source) })
        case .map(let entries):
            var object = ConfigurationObject()
            for entry in entries {
                guard let key = entry.key.textValue else {
                    throw ConfigurationError(.invalidCBOR, source: source, keyPath: path, "a map key is not text")
                }
                object[key] = try value(entry.value, path: "\(path).\(key)", source: source)
            }
            return .object(object)
        case .tagged:
            throw ConfigurationError(
                .invalidCBOR, source: source, keyPath: path, "tags are not used in a configuration")
        }
    }

    /// The integer-keyed fields of one compact map, with typed, path-naming accessors.
    private struct Fields {
        let entries: [Int: CBOR]
        let path: String
        let source: String

        init(_ item: CBOR, path: String, source: String, known: Set<Int>) throws {
            self.path = path
            self.source = source
            guard let map = item.mapValue else {
                throw ConfigurationError(
                    .invalidCBOR, source: source, keyPath: path, "\(item.kindDescription), not a map")
            }
            var entries: [Int: CBOR] = [:]
            for entry in map {
                guard let key = entry.key.intValue, known.contains(key) else {
                    throw ConfigurationError(
                        .invalidCBOR, source: source, keyPath: path,
                        "unknown key \(entry.key.intValue.map(String.init) ?? entry.key.kindDescription)")
                }
                entries[key] = entry.value
            }
            self.entries = entries
        }

        subscript(key: Int) -> CBOR? { entries[key] }

        func fail(_ message: String) -> ConfigurationError {
            ConfigurationError(.invalidCBOR, source: source, keyPath: path, "\(message)")
        }

        func text(_ key: Int) throws -> String? {
            guard let item = entries[key] else { return nil }
            guard let text = item.textValue else { throw fail("key \(key) is \(item.kindDescription), not text") }
            return text
        }

        func integer(_ key: Int, required: Bool = false) throws -> Int? {
            guard let item = entries[key] else {
                if required { throw fail("key \(key) is missing") }
                return nil
            }
            guard let number = item.intValue else {
                throw fail("key \(key) is \(item.kindDescription), not an integer")
            }
            return number
        }

        func bool(_ key: Int) throws -> Bool? {
            guard let item = entries[key] else { return nil }
            guard case .bool(let flag) = item else {
                throw fail("key \(key) is \(item.kindDescription), not a boolean")
            }
            return flag
        }

        func array(_ key: Int) throws -> [CBOR]? {
            guard let item = entries[key] else { return nil }
            guard let items = item.arrayValue else { throw fail("key \(key) is \(item.kindDescription), not an array") }
            return items
        }
    }

    /// The server's origin, `scheme://host[:port]`: URLs on it are stored as their paths.
    private struct Origin {
        let text: String
        let defaultPort: Int

        init(_ document: ConfigurationDocument) {
            defaultPort = document.scheme == "http" ? 80 : 443
            var origin = document
            origin.basePath = ""
            text = origin.baseURL
        }

        /// `/path` for a URL on this origin, `""` for the origin itself, else the URL unchanged.
        func shorten(_ url: String) -> String {
            guard url.hasPrefix(text) else { return url }
            let rest = url.dropFirst(text.count)
            return rest.isEmpty || rest.hasPrefix("/") ? String(rest) : url
        }

        func expand(_ stored: String) -> String {
            stored.isEmpty || stored.hasPrefix("/") ? text + stored : stored
        }
    }
}

/// Lower-case canonical UUID text ↔ its 16 bytes; other spellings stay text, so a client id
/// always reads back exactly as it was written.
enum UUIDBytes {
    static func bytes(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count == 36 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < 36 {
            if [8, 13, 18, 23].contains(index) {
                guard characters[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                continue
            }
            guard let high = hexValue(characters[index]), let low = hexValue(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    static func text(_ bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return nil }
        let hex = Hex.encode(bytes)
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
