/// The onboarding configuration document (the "discovery-service structure"): which server an app
/// talks to and how users sign in. Every source (a file, managed configuration, the discovery
/// service, a scanned code) carries this one shape.
///
/// A document is normalised when it is made: `serviceURL`/`ServiceUrl` and `host`/`port`/`protocol`
/// become one base URL, numeric strings become numbers, the legacy flat `oauth2` form becomes a
/// client list, and keys this type does not know are kept in ``otherKeys``. Security policy
/// (https, allowed hosts) is checked separately, by ``SecurityPolicy``.
public struct ConfigurationDocument: Sendable, Hashable {
    /// `https` or `http`.
    public var scheme: String
    /// The server's host name, without scheme or path.
    public var host: String
    /// The port; 443 for https and 80 for http unless the document says otherwise.
    public var port: Int
    /// A path below the host (from `serviceURL`), without a trailing slash; usually empty.
    public var basePath: String
    /// The Mobile Services application id (`appID`).
    public var appID: String?
    /// `appVersion`.
    public var appVersion: String?
    /// `multiUser` (Android).
    public var multiUser: Bool?
    /// `certificate_provider` (Android).
    public var certificateProvider: String?
    /// The authentication methods in document order; the first supported one is the primary.
    public var auth: [AuthItem]
    /// Keys this type does not interpret (`__comment`, app-specific keys), kept as they were.
    public var otherKeys: ConfigurationObject

    /// A document for `host`; the defaults are those of a document that gives only its host
    /// (https, the scheme's port, no base path, basic authentication).
    public init(
        scheme: String = "https", host: String, port: Int? = nil, basePath: String = "", appID: String? = nil,
        appVersion: String? = nil, multiUser: Bool? = nil, certificateProvider: String? = nil,
        auth: [AuthItem] = [AuthItem(method: .basic)], otherKeys: ConfigurationObject = [:]
    ) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme == "http" ? 80 : 443)
        self.basePath = basePath
        self.appID = appID
        self.appVersion = appVersion
        self.multiUser = multiUser
        self.certificateProvider = certificateProvider
        self.auth = auth
        self.otherKeys = otherKeys
    }

    /// The server's base URL: `scheme://host[:port][/path]`, the port only when it is not the
    /// scheme's default.
    public var baseURL: String {
        let defaultPort = scheme == "http" ? 80 : 443
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)\(port == defaultPort ? "" : ":\(port)")\(basePath)"
    }

    /// The first auth item of a supported type: the method the app signs in with.
    public var primaryAuth: AuthItem? {
        auth.first { if case .unknown = $0.method { false } else { true } }
    }
}

/// One entry of `auth`: a method, whether a one-time password is also required, and the
/// method's raw `config` (kept for methods and keys this toolkit does not interpret).
public struct AuthItem: Sendable, Hashable {
    /// The authentication method and its settings.
    public var method: AuthMethod
    /// `requireOtp`: a one-time password is asked as a second factor.
    public var requireOtp: Bool
    /// Keys of `config` that ``method`` does not interpret, kept as they were.
    public var otherConfig: ConfigurationObject

    /// An auth item.
    public init(method: AuthMethod, requireOtp: Bool = false, otherConfig: ConfigurationObject = [:]) {
        self.method = method
        self.requireOtp = requireOtp
        self.otherConfig = otherConfig
    }
}

/// How users sign in.
public enum AuthMethod: Sendable, Hashable {
    /// OAuth 2.0 (`oauth2`).
    case oauth2(OAuth2Settings)
    /// SAML 2.0 web POST (`saml2.web.post`).
    case saml2(SAMLSettings)
    /// User name and password (`basic.default`, Android `basic`).
    case basic
    /// An API key only (`apikeyonly`).
    case apiKey
    /// A client certificate from a provider (`certificate.sdkprovider`, legacy).
    case certificate(provider: String?)
    /// A type this toolkit does not know; kept, reported, never used to sign in.
    case unknown(type: String)

    /// The type name as the document spells it (canonical: `basic.default` for both basic spellings).
    public var typeName: String {
        switch self {
        case .oauth2: "oauth2"
        case .saml2: "saml2.web.post"
        case .basic: "basic.default"
        case .apiKey: "apikeyonly"
        case .certificate: "certificate.sdkprovider"
        case .unknown(let type): type
        }
    }
}

/// The `config` of an `oauth2` auth item.
public struct OAuth2Settings: Sendable, Hashable {
    /// `oauth2.authorizationEndpoint`.
    public var authorizationEndpoint: String
    /// `oauth2.tokenEndpoint`.
    public var tokenEndpoint: String
    /// `oauth2.endUserUI`.
    public var endUserUI: String?
    /// `oauth2.xsuaaAuthorizationEndpoint`.
    public var xsuaaAuthorizationEndpoint: String?
    /// `oauth2.clients`, in document order.
    public var clients: [OAuth2Client]
    /// `oauth2.deviceAuthorizationEndpoint` (our extension): where the device grant (RFC 8628) starts.
    public var deviceAuthorizationEndpoint: String?
    /// `oauth2.revocationEndpoint` (our extension): where signing out revokes a token (RFC 7009).
    public var revocationEndpoint: String?
    /// `oauth2.issuer` (our extension): the authorization server's issuer identifier, whose
    /// RFC 8414 / OpenID Connect metadata fills in the endpoints the document leaves out.
    public var issuer: String?

    /// OAuth 2.0 settings with `clients`.
    public init(
        authorizationEndpoint: String, tokenEndpoint: String, endUserUI: String? = nil,
        xsuaaAuthorizationEndpoint: String? = nil, clients: [OAuth2Client], deviceAuthorizationEndpoint: String? = nil,
        revocationEndpoint: String? = nil, issuer: String? = nil
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.endUserUI = endUserUI
        self.xsuaaAuthorizationEndpoint = xsuaaAuthorizationEndpoint
        self.clients = clients
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.issuer = issuer
    }
}

/// OAuth 2.0 grant types the document can name.
public enum OAuth2GrantType: String, Sendable, Hashable, CaseIterable {
    /// The browser sign-in with an authorization code.
    case authorizationCode = "authorization_code"
    /// The password grant, with a cross-context SSO passcode.
    case password
}

/// One entry of `oauth2.clients`.
public struct OAuth2Client: Sendable, Hashable, CustomStringConvertible {
    /// `clientID`.
    public var clientID: String
    /// An https URL or a custom scheme such as `com.example.App://host`.
    public var redirectURL: String
    /// `grantType` (default `authorization_code`).
    public var grantType: OAuth2GrantType
    /// The cross-context SSO passcode (password grant only). A secret: short-lived, never logged;
    /// ``description`` hides it.
    public var passcode: String?
    /// `clientSecret` of a confidential client. A secret: never in a code, never logged;
    /// ``description`` hides it.
    public var clientSecret: String?
    /// `scope`: the space-separated scopes asked for; some servers refuse a request without one.
    public var scope: String?

    /// A client.
    public init(
        clientID: String, redirectURL: String, grantType: OAuth2GrantType = .authorizationCode, passcode: String? = nil,
        clientSecret: String? = nil, scope: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURL = redirectURL
        self.grantType = grantType
        self.passcode = passcode
        self.clientSecret = clientSecret
        self.scope = scope
    }

    public var description: String {
        var text = "OAuth2Client(clientID: \(clientID), redirectURL: \(redirectURL), grantType: \(grantType.rawValue)"
        if let scope { text += ", scope: \(scope)" }
        if passcode != nil { text += ", passcode: <redacted>" }
        if clientSecret != nil { text += ", clientSecret: <redacted>" }
        return text + ")"
    }

    /// Whether the redirect URL is a loopback address of this device (`http://127.0.0.1…`,
    /// `http://[::1]…`, `http://localhost…`), where a listener takes the redirect (RFC 8252 §7.3).
    public var redirectsToLoopback: Bool {
        guard let url = try? CanonicalURL(parsing: redirectURL), url.scheme == "http" else { return false }
        return url.host.isLoopback
    }
}

/// The `config` of a `saml2.web.post` auth item, with the reference's defaults.
public struct SAMLSettings: Sendable, Hashable {
    /// `saml2.web.post.authchallengeheader.name`.
    public var challengeHeaderName: String
    /// `saml2.web.post.finish.endpoint.uri`, relative to the base URL.
    public var finishEndpointPath: String
    /// `saml2.web.post.finish.endpoint.redirectparam`.
    public var finishEndpointRedirectParameter: String

    /// The challenge header's name when the document gives none.
    public static let defaultChallengeHeaderName = "com.sap.cloud.security.login"
    /// The finish endpoint when the document gives none.
    public static let defaultFinishEndpointPath = "/SAMLAuthLauncher"
    /// The finish endpoint's redirect parameter when the document gives none.
    public static let defaultRedirectParameter = "finishEndpointParam"

    /// SAML settings; each defaults to the reference's value.
    public init(
        challengeHeaderName: String = SAMLSettings.defaultChallengeHeaderName,
        finishEndpointPath: String = SAMLSettings.defaultFinishEndpointPath,
        finishEndpointRedirectParameter: String = SAMLSettings.defaultRedirectParameter
    ) {
        self.challengeHeaderName = challengeHeaderName
        self.finishEndpointPath = finishEndpointPath
        self.finishEndpointRedirectParameter = finishEndpointRedirectParameter
    }
}
