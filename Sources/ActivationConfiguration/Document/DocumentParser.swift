import Foundation

extension ConfigurationDocument {
    /// Interprets a parsed value as a configuration document, normalising the variants the SDKs
    /// write (see the type's documentation).
    ///
    /// - Parameters:
    ///   - value: the document as read from JSON or a property list.
    ///   - source: names the input in errors (`config.json`, `payload`).
    ///   - limits: caps on auth items, clients and nesting.
    /// - Throws: ``ConfigurationError`` whose reason names the source and the key path, e.g.
    ///   `config.json: auth[0].config.oauth2.clients[0].grantType: "implicit" is not authorization_code or password`.
    public init(from value: ConfigurationValue, source: String, limits: ConfigurationLimits = .default) throws {
        var reader = ValueReader(source: source, limits: limits)
        self = try reader.document(value)
    }
}

/// Walks a ``ConfigurationValue`` and builds a ``ConfigurationDocument``, with errors that name
/// the key path.
struct ValueReader {
    let source: String
    let limits: ConfigurationLimits
    /// The document's base URL, once read: the legacy flat oauth2 form redirects there.
    var documentBaseURL = ""

    func fail(_ code: ConfigurationError.Code, _ path: ConfigurationPath, _ message: String) -> ConfigurationError {
        ConfigurationError(code, source: source, at: path, message)
    }

    /// Keys the document model interprets at the top level (matched exactly, except serviceURL).
    static let documentKeys: Set<String> = [
        "host", "port", "protocol", "appID", "appVersion", "multiUser", "certificate_provider", "auth",
    ]

    mutating func document(_ value: ConfigurationValue) throws -> ConfigurationDocument {
        guard var object = value.objectValue else {
            throw fail(.wrongType, .root, "expected a configuration object, found \(value.kindDescription)")
        }
        if object.keys.contains(where: { $0.contains("/") }) {
            object = try MDMKeys.inflate(object, source: source, limits: limits)
        }
        let root = ConfigurationPath.root
        var document = try baseURL(object)
        documentBaseURL = document.baseURL
        document.appID = try optionalString(object, "appID", at: root)
        document.appVersion = try optionalString(object, "appVersion", at: root)
        document.multiUser = try object["multiUser"].map { try bool($0, at: root.appending("multiUser")) }
        document.certificateProvider = try optionalString(object, "certificate_provider", at: root)
        if let auth = object["auth"] {
            document.auth = try authItems(auth, at: root.appending("auth"))
        }
        let serviceKey = object.key(caseInsensitive: "serviceURL")
        document.otherKeys = ConfigurationObject(
            object.entries.filter { !Self.documentKeys.contains($0.key) && $0.key != serviceKey }.map {
                ($0.key, $0.value)
            })
        return document
    }

    /// `serviceURL` (any casing) wins; otherwise `protocol://host:port`.
    func baseURL(_ object: ConfigurationObject) throws -> ConfigurationDocument {
        let root = ConfigurationPath.root
        if let key = object.key(caseInsensitive: "serviceURL") {
            let path = root.appending(key)
            let url = try canonicalURL(try string(object[key]!, at: path), at: path)
            var basePath = url.path
            while basePath.hasSuffix("/") { basePath.removeLast() }
            return ConfigurationDocument(scheme: url.scheme, host: url.host.text, port: url.port, basePath: basePath)
        }
        guard let hostValue = object["host"] else {
            throw fail(.missingKey, root.appending("host"), "missing; a configuration needs host or serviceURL")
        }
        let hostPath = root.appending("host")
        let host = try string(hostValue, at: hostPath)
        if host.contains("://") || host.contains("/") || host.contains("?") || host.contains("@") {
            let shown = UntrustedText.escaped(host, maxCharacters: 80)
            throw fail(
                .invalidHost, hostPath,
                "\"\(shown)\" must be a host name only, without scheme or path (put a full URL in serviceURL)"
            )
        }
        let canonicalHost: CanonicalURL.Host
        do {
            canonicalHost = try CanonicalURL.Host(parsing: host)
        } catch let error as ConfigurationError {
            throw fail(error.code, hostPath, error.reason)
        }
        let scheme =
            try object["protocol"].map { try string($0, at: root.appending("protocol")).lowercased() } ?? "https"
        guard scheme == "https" || scheme == "http" else {
            throw fail(.invalidValue, root.appending("protocol"), "\"\(scheme)\" is not https or http")
        }
        let port = try object["port"].map { try self.port($0, at: root.appending("port")) }
        return ConfigurationDocument(scheme: scheme, host: canonicalHost.text, port: port)
    }

    mutating func authItems(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> [AuthItem] {
        guard let items = value.arrayValue else {
            throw fail(.wrongType, path, "expected an array of auth items, found \(value.kindDescription)")
        }
        if items.count > limits.maxAuthItems {
            throw fail(.tooManyItems, path, "\(items.count) auth items exceed the limit of \(limits.maxAuthItems)")
        }
        if items.isEmpty {
            throw fail(.missingKey, path, "is empty; name at least one authentication method")
        }
        let parsed = try items.enumerated().map { try authItem($0.element, at: path.appending($0.offset)) }
        guard parsed.contains(where: { if case .unknown = $0.method { false } else { true } }) else {
            let types = parsed.map(\.method.typeName).map { "\"\($0)\"" }.joined(separator: ", ")
            throw fail(
                .unsupportedAuth, path.appending(0).appending("type"),
                "unknown authentication type \(types); supported: oauth2, saml2.web.post, basic.default, apikeyonly")
        }
        return parsed
    }

    func authItem(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> AuthItem {
        guard let item = value.objectValue else {
            throw fail(.wrongType, path, "expected an auth item object, found \(value.kindDescription)")
        }
        guard let typeValue = item["type"] else { throw fail(.missingKey, path.appending("type"), "missing") }
        let type = try string(typeValue, at: path.appending("type"))
        let requireOtp = try item["requireOtp"].map { try bool($0, at: path.appending("requireOtp")) } ?? false
        let configPath = path.appending("config")
        var config = ConfigurationObject()
        if let configValue = item["config"], configValue != .null {
            guard let object = configValue.objectValue else {
                throw fail(.wrongType, configPath, "expected an object, found \(configValue.kindDescription)")
            }
            config = object
        }
        var interpreted: Set<String> = []
        let method: AuthMethod
        switch type.lowercased() {
        case "oauth2":
            method = .oauth2(try oauth2(config, at: configPath, interpreted: &interpreted))
        case "saml2.web.post":
            method = .saml2(try saml(config, at: configPath, interpreted: &interpreted))
        case "basic.default", "basic":
            method = .basic
        case "apikeyonly":
            method = .apiKey
        case "certificate.sdkprovider":
            method = .certificate(provider: try optionalString(config, "provider", at: configPath))
            interpreted.insert("provider")
        default:
            method = .unknown(type: type)
        }
        let others = ConfigurationObject(
            config.entries.filter { !interpreted.contains($0.key) }.map { ($0.key, $0.value) })
        return AuthItem(method: method, requireOtp: requireOtp, otherConfig: others)
    }

    func oauth2(_ config: ConfigurationObject, at path: ConfigurationPath, interpreted: inout Set<String>) throws
        -> OAuth2Settings
    {
        func url(_ key: String, required: Bool) throws -> String? {
            interpreted.insert(key)
            guard let value = config[key] else {
                if required { throw fail(.missingKey, path.appending(key), "missing") }
                return nil
            }
            // Kept in canonical form: what is stored and shown is what the policy judged.
            return try canonicalURL(try string(value, at: path.appending(key)), at: path.appending(key)).description
        }
        let authorization = try url("oauth2.authorizationEndpoint", required: true)!
        let token = try url("oauth2.tokenEndpoint", required: true)!
        let endUserUI = try url("oauth2.endUserUI", required: false)
        let xsuaa = try url("oauth2.xsuaaAuthorizationEndpoint", required: false)
        let device = try url("oauth2.deviceAuthorizationEndpoint", required: false)
        let revocation = try url("oauth2.revocationEndpoint", required: false)
        let issuer = try url("oauth2.issuer", required: false)

        var clients: [OAuth2Client] = []
        if let clientsValue = config["oauth2.clients"] {
            interpreted.insert("oauth2.clients")
            let clientsPath = path.appending("oauth2.clients")
            guard let items = clientsValue.arrayValue else {
                throw fail(
                    .wrongType, clientsPath, "expected an array of clients, found \(clientsValue.kindDescription)")
            }
            if items.count > limits.maxClients {
                throw fail(
                    .tooManyItems, clientsPath, "\(items.count) clients exceed the limit of \(limits.maxClients)")
            }
            clients = try items.enumerated().map { try client($0.element, at: clientsPath.appending($0.offset)) }
        } else if config["oauth2.clientID"] != nil {
            // The legacy flat form: one client's keys directly in config.
            interpreted.formUnion([
                "oauth2.clientID", "oauth2.grantType", "oauth2.redirectURL", "oauth2.passcode", "oauth2.clientSecret",
                "oauth2.scope",
            ])
            let flat = ConfigurationObject(
                config.entries.compactMap { entry in
                    entry.key.hasPrefix("oauth2.") ? (String(entry.key.dropFirst("oauth2.".count)), entry.value) : nil
                })
            var legacy = flat
            if legacy["redirectURL"] == nil { legacy["redirectURL"] = .string(documentBaseURL) }
            clients = [try client(.object(legacy), at: path)]
        }
        if clients.isEmpty {
            throw fail(
                .missingKey, path.appending("oauth2.clients"), "missing; an oauth2 method needs at least one client")
        }
        return OAuth2Settings(
            authorizationEndpoint: authorization, tokenEndpoint: token, endUserUI: endUserUI,
            xsuaaAuthorizationEndpoint: xsuaa, clients: clients, deviceAuthorizationEndpoint: device,
            revocationEndpoint: revocation, issuer: issuer)
    }

    func client(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> OAuth2Client {
        guard let object = value.objectValue else {
            throw fail(.wrongType, path, "expected a client object, found \(value.kindDescription)")
        }
        func required(_ key: String) throws -> String {
            guard let value = object[key] else { throw fail(.missingKey, path.appending(key), "missing") }
            let text = try string(value, at: path.appending(key))
            if text.isEmpty { throw fail(.invalidValue, path.appending(key), "is empty") }
            return text
        }
        let clientID = try required("clientID")
        var redirect = Self.withoutPortZero(try required("redirectURL"))
        if SecurityPolicy.isWebURL(redirect) {
            redirect = try canonicalURL(redirect, at: path.appending("redirectURL")).description
        } else if !(Self.hasScheme(redirect) && UntrustedText.isPlain(redirect) && !redirect.contains(" ")) {
            let shown = UntrustedText.escaped(redirect, maxCharacters: 80)
            throw fail(
                .invalidURL, path.appending("redirectURL"),
                "\"\(shown)\" is not a URL (an https URL or a custom scheme such as com.example.App://host)"
            )
        }
        let grantText =
            try object["grantType"].map { try string($0, at: path.appending("grantType")) }
            ?? OAuth2GrantType.authorizationCode.rawValue
        guard let grant = OAuth2GrantType(rawValue: grantText) else {
            throw fail(
                .invalidValue, path.appending("grantType"), "\"\(grantText)\" is not authorization_code or password")
        }
        let passcode = try optionalString(object, "passcode", at: path)
        if passcode != nil && grant != .password {
            // Never echo the passcode itself.
            throw fail(.invalidValue, path.appending("passcode"), "is only allowed with grantType password")
        }
        if grant == .password && passcode == nil {
            throw fail(.missingKey, path.appending("passcode"), "missing; the password grant needs a passcode")
        }
        let secret = try optionalString(object, "clientSecret", at: path)
        let scope = try optionalString(object, "scope", at: path)
        if let scope, !scope.split(separator: " ", omittingEmptySubsequences: false).allSatisfy(Self.isScopeToken) {
            let shown = UntrustedText.escaped(scope, maxCharacters: 80)
            throw fail(
                .invalidValue, path.appending("scope"),
                "\"\(shown)\" is not a list of scopes separated by single spaces (RFC 6749 §3.3)"
            )
        }
        return OAuth2Client(
            clientID: clientID, redirectURL: redirect, grantType: grant, passcode: passcode, clientSecret: secret,
            scope: scope)
    }

    /// A loopback redirect with port 0 (`http://127.0.0.1:0/callback`) means "any free port"
    /// (RFC 8252 §7.3), as one without a port does: kept in that form.
    static func withoutPortZero(_ url: String) -> String {
        for host in ["http://127.0.0.1", "http://[::1]", "http://localhost"]
        where url.lowercased().hasPrefix(host + ":0") {
            let rest = url.dropFirst(host.count + 2)
            if rest.isEmpty || rest.hasPrefix("/") { return host + rest }
        }
        return url
    }

    /// A scope token: one or more printable ASCII characters other than space, `"` and `\\` (RFC 6749 §3.3).
    static func isScopeToken(_ token: Substring) -> Bool {
        !token.isEmpty
            && token.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    func saml(_ config: ConfigurationObject, at path: ConfigurationPath, interpreted: inout Set<String>) throws
        -> SAMLSettings
    {
        let prefix = "saml2.web.post."
        interpreted.formUnion([
            prefix + "authchallengeheader.name", prefix + "finish.endpoint.uri",
            prefix + "finish.endpoint.redirectparam",
        ])
        var settings = SAMLSettings()
        if let name = try optionalString(config, prefix + "authchallengeheader.name", at: path) {
            settings.challengeHeaderName = name
        }
        if let uri = try optionalString(config, prefix + "finish.endpoint.uri", at: path) {
            guard uri.hasPrefix("/") else {
                throw fail(
                    .invalidValue, path.appending(prefix + "finish.endpoint.uri"),
                    "\"\(uri)\" must be a path starting with /")
            }
            settings.finishEndpointPath = uri
        }
        if let parameter = try optionalString(config, prefix + "finish.endpoint.redirectparam", at: path) {
            settings.finishEndpointRedirectParameter = parameter
        }
        return settings
    }

    // MARK: - Scalars

    func string(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> String {
        guard let text = value.stringValue else {
            throw fail(.wrongType, path, "expected a string, found \(value.kindDescription)")
        }
        return text
    }

    func optionalString(_ object: ConfigurationObject, _ key: String, at path: ConfigurationPath) throws -> String? {
        try object[key].map { try string($0, at: path.appending(key)) }
    }

    /// A whole number, also when JSON writes it with a fraction of zero (`443.0`, as JSON Schema
    /// reads it too).
    static func wholeNumber(_ value: ConfigurationValue) -> Int? {
        switch value {
        case .integer(let integer): integer
        case .number(let number) where number.rounded() == number && abs(number) < 1e15: Int(number)
        default: nil
        }
    }

    /// `true/false`, `0/1`, `"true"/"false"`, `"0"/"1"`: plist and JSON bridging differ.
    func bool(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case _ where Self.wholeNumber(value) == 0: return false
        case _ where Self.wholeNumber(value) == 1: return true
        case .string(let text) where ["true", "1", "yes"].contains(text.lowercased()): return true
        case .string(let text) where ["false", "0", "no"].contains(text.lowercased()): return false
        default: throw fail(.wrongType, path, "expected true or false, found \(value.kindDescription)")
        }
    }

    func port(_ value: ConfigurationValue, at path: ConfigurationPath) throws -> Int {
        let number: Int
        switch value {
        case _ where Self.wholeNumber(value) != nil: number = Self.wholeNumber(value) ?? 0
        case .string(let text):
            guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw fail(.wrongType, path, "expected a port number, found \(value.kindDescription)")
            }
            number = parsed
        default:
            throw fail(.wrongType, path, "expected a port number, found \(value.kindDescription)")
        }
        guard (1...65535).contains(number) else { throw fail(.invalidValue, path, "\(number) is not a port (1-65535)") }
        return number
    }

    /// An absolute http(s) URL, canonical (see ``CanonicalURL``); errors name the key path. User
    /// names and passwords are refused here, because the canonical form does not keep them.
    func canonicalURL(_ text: String, at path: ConfigurationPath) throws -> CanonicalURL {
        let url: CanonicalURL
        do {
            url = try CanonicalURL(parsing: text)
        } catch let error as ConfigurationError {
            throw fail(error.code, path, error.reason)
        }
        if url.hasUserInfo { throw fail(.insecureURL, path, "a URL with a user name or password is not allowed") }
        return url
    }

    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }
}
