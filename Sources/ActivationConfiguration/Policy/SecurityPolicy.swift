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
    /// Public keys that verify signed payloads.
    public var verificationKeys: [VerificationKey]
    /// Caps on inputs.
    public var limits: ConfigurationLimits

    public init(allowHTTP: Bool = false, allowIPLiterals: Bool = false, allowedHosts: [String] = [],
                signature: SignatureRequirement = .optional, verificationKeys: [VerificationKey] = [],
                limits: ConfigurationLimits = .default) {
        self.allowHTTP = allowHTTP
        self.allowIPLiterals = allowIPLiterals
        self.allowedHosts = allowedHosts.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
        self.signature = signature
        self.verificationKeys = verificationKeys
        self.limits = limits
    }

    /// The host suffixes SAP's MDK client allows by default.
    public static let sapCloudHosts = ["hana.ondemand.com", "hanatrial.ondemand.com", "scp.sapns2.us"]

    /// Checks every URL of `document`: the base URL and each authentication endpoint.
    ///
    /// - Throws: ``ConfigurationError`` (`insecureURL`, `hostNotAllowed`) naming the key path.
    public func check(_ document: ConfigurationDocument, source: String) throws {
        try check(scheme: document.scheme, host: document.host, hasUserInfo: false, source: source, path: "host", shown: document.baseURL)
        for (index, item) in document.auth.enumerated() {
            guard case .oauth2(let settings) = item.method else { continue }
            let base = "auth[\(index)].config."
            var urls = [("oauth2.authorizationEndpoint", settings.authorizationEndpoint), ("oauth2.tokenEndpoint", settings.tokenEndpoint)]
            if let value = settings.endUserUI { urls.append(("oauth2.endUserUI", value)) }
            if let value = settings.xsuaaAuthorizationEndpoint { urls.append(("oauth2.xsuaaAuthorizationEndpoint", value)) }
            for (clientIndex, client) in settings.clients.enumerated() {
                // A custom-scheme redirect (com.example.App://host) hands control back to the app: allowed.
                let scheme = client.redirectURL.split(separator: ":").first.map { $0.lowercased() } ?? ""
                if scheme == "http" || scheme == "https" {
                    urls.append(("oauth2.clients[\(clientIndex)].redirectURL", client.redirectURL))
                }
            }
            for (key, text) in urls {
                let components = URLComponents(string: text)
                try check(scheme: components?.scheme?.lowercased() ?? "", host: components?.host?.lowercased() ?? "",
                          hasUserInfo: components?.user != nil || components?.password != nil,
                          source: source, path: base + key, shown: text)
            }
        }
    }

    /// Checks one host against the allow list.
    public func isAllowed(host: String) -> Bool {
        let host = host.lowercased()
        return allowedHosts.isEmpty || allowedHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    private func check(scheme: String, host: String, hasUserInfo: Bool, source: String, path: String, shown: String) throws {
        func fail(_ code: ConfigurationError.Code, _ message: String) -> ConfigurationError {
            ConfigurationError(code, "\(source): \(path): \(message)")
        }
        if scheme != "https" && !(allowHTTP && scheme == "http") {
            throw fail(.insecureURL, "not an https URL (\(Self.redactingQuery(shown)))")
        }
        if hasUserInfo {
            throw fail(.insecureURL, "a URL with a user name or password is not allowed")
        }
        if !allowIPLiterals && Self.isIPLiteral(host) {
            throw fail(.insecureURL, "the IP address \(host) is not allowed as a host; use a host name")
        }
        if !isAllowed(host: host) {
            throw fail(.hostNotAllowed, "the host \(host) is not on the allowed list (\(allowedHosts.joined(separator: ", ")))")
        }
    }

    static func isIPLiteral(_ host: String) -> Bool {
        let trimmed = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if trimmed.contains(":") { return true }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// URLs are shown without their query, which may carry tokens.
    static func redactingQuery(_ text: String) -> String {
        guard let mark = text.firstIndex(of: "?") else { return text }
        return String(text[..<mark]) + "?…"
    }
}
