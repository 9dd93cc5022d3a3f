import Foundation

/// Whether payloads must, may or must not be signed.
public enum SignatureRequirement: String, Sendable, Hashable, CaseIterable, Codable {
    /// Only signed payloads whose signature verifies are accepted.
    case required
    /// Signed payloads must verify; unsigned ones are accepted too (the default).
    case optional
    /// Signed payloads are refused.
    case forbidden
}

/// What a configuration must satisfy before an app may use it (reference §6). The caller decides;
/// the defaults are the strict ones: https only, no IP literals, signature optional.
public struct SecurityPolicy: Sendable, Hashable {
    /// Allow `http` URLs (for a test server on loopback, never for production).
    public var allowHTTP: Bool
    /// Allow IP addresses as hosts (certificates for them are rare; usually a sign of a forged code).
    public var allowIPLiterals: Bool
    /// If not empty, every host must equal an entry or end with `.` + entry.
    /// SAP's MDK clients use ``sapCloudHosts``.
    public var allowedHosts: [String]
    /// Whether payloads must be signed.
    public var signature: SignatureRequirement
    /// Public keys that verify signed payloads: JWS, and `AC1:` codes (as trust-list entries
    /// without constraints).
    public var verificationKeys: [VerificationKey]
    /// The keys whose `AC1:` codes are accepted, with their issuers, validity and allowed hosts.
    public var trustList: TrustList
    /// The app's id, when known: an `AC1:` code that names audiences must name it.
    public var applicationID: String?
    /// Caps on inputs.
    public var limits: ConfigurationLimits

    /// A policy; every default is the strict choice except ``signature``, which is `.optional`
    /// unless a trust list is given.
    public init(
        allowHTTP: Bool = false, allowIPLiterals: Bool = false, allowedHosts: [String] = [],
        signature: SignatureRequirement = .optional, verificationKeys: [VerificationKey] = [],
        trustList: TrustList = TrustList(), applicationID: String? = nil, limits: ConfigurationLimits = .default
    ) {
        self.allowHTTP = allowHTTP
        self.allowIPLiterals = allowIPLiterals
        self.allowedHosts = allowedHosts.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
        self.signature = signature
        self.verificationKeys = verificationKeys
        self.trustList = trustList
        self.applicationID = applicationID
        self.limits = limits
    }

    /// The keys that verify `AC1:` codes: the trust list, plus each given public key that can
    /// sign such codes and is not in it already.
    public var activationCodeKeys: TrustList {
        var keys = trustList
        for key in verificationKeys where key.activationCodeAlgorithm != nil && keys.entry(keyID: key.keyIDBytes) == nil
        {
            if let entry = try? TrustList.Entry(key: key) { try? keys.add(entry) }
        }
        return keys
    }

    /// Checks `document` against the hosts the trust list binds `entry`'s key to (if any).
    ///
    /// - Throws: ``ConfigurationError`` (`hostNotAllowed`) naming the key.
    public func check(_ document: ConfigurationDocument, signedBy entry: TrustList.Entry, source: String) throws {
        guard !entry.allowedHosts.isEmpty else { return }
        var bound = self
        bound.allowedHosts = entry.allowedHosts
        do {
            try bound.check(document, source: source)
        } catch let error as ConfigurationError where error.code == .hostNotAllowed {
            throw ConfigurationError(
                .hostNotAllowed, "\(error.reason); the trust list allows key \(entry.keyID) only for these hosts")
        }
    }

    /// The host suffixes SAP's MDK client allows by default.
    public static let sapCloudHosts = ["hana.ondemand.com", "hanatrial.ondemand.com", "scp.sapns2.us"]

    /// Checks every URL of `document`: the base URL and each authentication endpoint. Each is
    /// parsed into its ``CanonicalURL`` first, so the rules judge the host a connection would
    /// reach, however the URL was spelled.
    ///
    /// - Throws: ``ConfigurationError`` (`insecureURL`, `hostNotAllowed`, `invalidURL`,
    ///   `invalidHost`) naming the key path.
    public func check(_ document: ConfigurationDocument, source: String) throws {
        try check(url: document.baseURL, source: source, path: "host")
        for (index, item) in document.auth.enumerated() {
            guard case .oauth2(let settings) = item.method else { continue }
            let base = "auth[\(index)].config."
            var urls = [
                ("oauth2.authorizationEndpoint", settings.authorizationEndpoint),
                ("oauth2.tokenEndpoint", settings.tokenEndpoint),
            ]
            if let value = settings.endUserUI { urls.append(("oauth2.endUserUI", value)) }
            if let value = settings.xsuaaAuthorizationEndpoint {
                urls.append(("oauth2.xsuaaAuthorizationEndpoint", value))
            }
            if let value = settings.deviceAuthorizationEndpoint {
                urls.append(("oauth2.deviceAuthorizationEndpoint", value))
            }
            if let value = settings.revocationEndpoint { urls.append(("oauth2.revocationEndpoint", value)) }
            if let value = settings.issuer { urls.append(("oauth2.issuer", value)) }
            // A custom-scheme redirect (com.example.App://host) hands control back to the app, and a
            // loopback one names where this device listens (RFC 8252 §7.3), not a server it
            // trusts: both allowed.
            for (clientIndex, client) in settings.clients.enumerated()
            where Self.isWebURL(client.redirectURL) && !client.redirectsToLoopback {
                urls.append(("oauth2.clients[\(clientIndex)].redirectURL", client.redirectURL))
            }
            for (key, text) in urls { try check(url: text, source: source, path: base + key) }
        }
    }

    /// Whether `host` (any spelling; it is canonicalised first) is allowed by ``allowedHosts``.
    /// A host that is no valid host name or address is never allowed.
    public func isAllowed(host: String) -> Bool {
        guard let parsed = try? CanonicalURL.Host.parse(host) else { return false }
        return isAllowed(parsed)
    }

    func isAllowed(_ host: CanonicalURL.Host) -> Bool {
        allowedHosts.isEmpty
            || allowedHosts.contains { entry in
                (try? CanonicalURL.Host.parse(entry)).map { host.isEqualOrUnder($0) } ?? false
            }
    }

    /// Checks one URL: parsed into its canonical form, then https, no user info, no IP address,
    /// allowed host. `path` names the URL's key in errors.
    public func check(url text: String, source: String, path: String) throws {
        func fail(_ code: ConfigurationError.Code, _ message: String) -> ConfigurationError {
            ConfigurationError(code, source: source, keyPath: path, message)
        }
        let url: CanonicalURL
        do {
            url = try CanonicalURL(parsing: text)
        } catch let error as ConfigurationError {
            throw fail(error.code, error.reason)
        }
        if url.scheme != "https" && !(allowHTTP && url.scheme == "http") {
            throw fail(.insecureURL, "not an https URL (\(CanonicalURL.shown(text)))")
        }
        if url.hasUserInfo {
            throw fail(.insecureURL, "a URL with a user name or password is not allowed")
        }
        if !allowIPLiterals && url.host.isIPAddress {
            throw fail(.insecureURL, "the IP address \(url.host) is not allowed as a host; use a host name")
        }
        if !isAllowed(url.host) {
            throw fail(
                .hostNotAllowed,
                "the host \(url.host) is not on the allowed list (\(allowedHosts.joined(separator: ", ")))")
        }
    }

    /// Whether a redirect URL is a web URL (judged by the policy) rather than an app's custom scheme.
    static func isWebURL(_ text: String) -> Bool {
        let scheme = text.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
