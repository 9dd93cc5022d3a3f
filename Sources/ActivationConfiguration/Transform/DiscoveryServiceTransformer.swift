/// Where the app connects and who it is (SAP's settings parameters).
public struct SettingsParameters: Sendable, Hashable {
    /// The server's base URL.
    public var backendURL: String
    /// The app id: the document's `appID`, else the transformer's.
    public var applicationID: String
    /// The app version: the document's `appVersion`, else the transformer's (default `1.0`).
    public var applicationVersion: String
    /// The device id the app registers with, when it has one.
    public var deviceID: String?
    /// Destination name → destination id (from `AppParameters.plist`).
    public var destinations: [String: String]?
}

/// OAuth 2.0 authorization-code grant: the browser sign-in.
public struct OAuth2CodeGrantParameters: Sendable, Hashable {
    /// The authorization endpoint: `oauth2.authorizationEndpoint`.
    public var authorizationEndpointURL: String
    /// Where the app exchanges its grant for tokens: `oauth2.tokenEndpoint`.
    public var tokenEndpointURL: String
    /// The client's redirect URL: an https URL or the app's custom scheme.
    public var redirectURL: String
    /// The OAuth client id.
    public var clientID: String
    /// The XSUAA authorization endpoint (`oauth2.xsuaaAuthorizationEndpoint`), when the document names one.
    public var xsuaaAuthorizationEndpointURL: String?
    /// The end-user UI (`oauth2.endUserUI`), when the document names one.
    public var endUserUIURL: String?
}

/// OAuth 2.0 password grant with a cross-context SSO passcode. ``description`` hides the passcode.
public struct OAuth2PasswordGrantParameters: Sendable, Hashable, CustomStringConvertible {
    /// The authorization endpoint: `oauth2.authorizationEndpoint`.
    public var authorizationEndpointURL: String
    /// Where the app exchanges its grant for tokens: `oauth2.tokenEndpoint`.
    public var tokenEndpointURL: String
    /// The client's redirect URL: an https URL or the app's custom scheme.
    public var redirectURL: String
    /// The OAuth client id.
    public var clientID: String
    /// A short-lived secret (about 30 s). Never log it.
    public var passcode: String

    public var description: String {
        """
        OAuth2PasswordGrantParameters(clientID: \(clientID), tokenEndpointURL: \(tokenEndpointURL), \
        passcode: <redacted>)
        """
    }
}

/// SAML 2.0 web POST sign-in.
public struct SAMLParameters: Sendable, Hashable {
    /// Where the browser starts: the authentication URL.
    public var authorizationEndpointURL: String
    /// The absolute finish URL (base URL + `finish.endpoint.uri`).
    public var finishEndpointURL: String
    /// The query parameter that carries the finish URL (`saml2.web.post.finish.endpoint.redirectparam`).
    public var finishEndpointRedirectParameter: String
    /// The response header that marks a login challenge (`saml2.web.post.authchallengeheader.name`).
    public var challengeHeaderName: String
    /// The header value that marks a login challenge.
    public var challengeHeaderValue: String
}

/// The info keys the default transformer sets.
public enum OnboardingInfo {
    /// Where the app connects and who it is; always set.
    public static let settings = InfoKey<SettingsParameters>("settingsParameters")
    /// Base URL + authentication path.
    public static let authenticationURL = InfoKey<String>("authenticationURL")
    /// The browser sign-in, from the first OAuth 2.0 auth item with an authorization-code client.
    public static let oauth2CodeGrant = InfoKey<OAuth2CodeGrantParameters>("oauth2AuthorizationCodeGrant")
    /// The cross-context SSO sign-in, from the first OAuth 2.0 auth item with a password-grant client
    /// that carries a passcode.
    public static let oauth2PasswordGrant = InfoKey<OAuth2PasswordGrantParameters>("oauth2PasswordGrant")
    /// The SAML 2.0 web POST sign-in, from the first `saml2.web.post` auth item.
    public static let saml = InfoKey<SAMLParameters>("saml2WebPost")
    /// `true` when an auth item is basic authentication.
    public static let basicAuthentication = InfoKey<Bool>("basicAuthentication")
    /// `true` when an auth item is an API key.
    public static let apiKeyAuthentication = InfoKey<Bool>("apiKeyAuthentication")
    /// Whether any auth item asks for a one-time password as second factor.
    public static let otpRequired = InfoKey<Bool>("otpRequired")
}

/// The default transformer (SAP's discovery-service transformer): maps a configuration document
/// to typed onboarding configuration, then runs the app's own transformers for its own keys.
///
/// ```swift
/// let transformer = DiscoveryServiceTransformer(authenticationPath: "/mobileservices/origin/hcpms")
///     .registering("com.example.tenant", TenantTransformer())
/// let info = try transformer.transform(document, source: "config.json")
/// let settings = info[OnboardingInfo.settings]
/// ```
public struct DiscoveryServiceTransformer: Sendable {
    /// Used when the document has no `appID`.
    public var applicationID: String?
    /// Used when the document has no `appVersion` (default `1.0`).
    public var applicationVersion: String
    /// Appended to the base URL to make the authentication URL (e.g. a destination path).
    public var authenticationPath: String
    /// The device id the app registers with, when it has one.
    public var deviceID: String?
    /// Destination name → destination id, handed on to ``SettingsParameters/destinations``.
    public var destinations: [String: String]?
    /// The app's own transformers, for keys the default mapping does not know.
    public var additional: KeyedTransformer

    /// A transformer; each parameter sets the property of the same name.
    public init(
        applicationID: String? = nil, applicationVersion: String = "1.0", authenticationPath: String = "",
        deviceID: String? = nil, destinations: [String: String]? = nil,
        additional: KeyedTransformer = KeyedTransformer()
    ) {
        self.applicationID = applicationID
        self.applicationVersion = applicationVersion
        self.authenticationPath = authenticationPath
        self.deviceID = deviceID
        self.destinations = destinations
        self.additional = additional
    }

    /// A copy that also runs `transformer` on the document key `key`.
    public func registering(_ key: String, _ transformer: any ConfigurationTransformer) -> DiscoveryServiceTransformer {
        var copy = self
        copy.additional = additional.registering(key, transformer)
        return copy
    }

    /// Transforms a document into typed onboarding configuration.
    ///
    /// - Throws: ``ConfigurationError`` naming the key path (e.g. `appID: missing`), or whatever an
    ///   additional transformer throws.
    public func transform(_ document: ConfigurationDocument, source: String) throws -> TransformResult {
        var result = TransformResult()
        guard let appID = document.appID ?? applicationID else {
            throw ConfigurationError(
                .missingKey, source: source, "appID: missing; the document names no application and none was given")
        }
        let baseURL = document.baseURL
        let authenticationURL =
            baseURL
            + (authenticationPath.isEmpty || authenticationPath.hasPrefix("/")
                ? authenticationPath : "/" + authenticationPath)
        result[OnboardingInfo.settings] = SettingsParameters(
            backendURL: baseURL, applicationID: appID, applicationVersion: document.appVersion ?? applicationVersion,
            deviceID: deviceID, destinations: destinations)
        result[OnboardingInfo.authenticationURL] = authenticationURL

        for item in document.auth {
            if item.requireOtp { result[OnboardingInfo.otpRequired] = true }
            switch item.method {
            case .oauth2(let settings):
                if result[OnboardingInfo.oauth2CodeGrant] == nil,
                    let client = settings.clients.first(where: { $0.grantType == .authorizationCode })
                {
                    result[OnboardingInfo.oauth2CodeGrant] = OAuth2CodeGrantParameters(
                        authorizationEndpointURL: settings.authorizationEndpoint,
                        tokenEndpointURL: settings.tokenEndpoint,
                        redirectURL: client.redirectURL, clientID: client.clientID,
                        xsuaaAuthorizationEndpointURL: settings.xsuaaAuthorizationEndpoint,
                        endUserUIURL: settings.endUserUI)
                }
                if result[OnboardingInfo.oauth2PasswordGrant] == nil,
                    let client = settings.clients.first(where: { $0.grantType == .password }),
                    let passcode = client.passcode
                {
                    result[OnboardingInfo.oauth2PasswordGrant] = OAuth2PasswordGrantParameters(
                        authorizationEndpointURL: settings.authorizationEndpoint,
                        tokenEndpointURL: settings.tokenEndpoint,
                        redirectURL: client.redirectURL, clientID: client.clientID, passcode: passcode)
                }
            case .saml2(let settings):
                if result[OnboardingInfo.saml] == nil {
                    result[OnboardingInfo.saml] = SAMLParameters(
                        authorizationEndpointURL: authenticationURL,
                        finishEndpointURL: baseURL + settings.finishEndpointPath,
                        finishEndpointRedirectParameter: settings.finishEndpointRedirectParameter,
                        challengeHeaderName: settings.challengeHeaderName, challengeHeaderValue: "login-request")
                }
            case .basic:
                result[OnboardingInfo.basicAuthentication] = true
            case .apiKey:
                result[OnboardingInfo.apiKeyAuthentication] = true
            case .certificate, .unknown:
                break
            }
        }
        if result[OnboardingInfo.otpRequired] == nil { result[OnboardingInfo.otpRequired] = false }
        result.merge(try additional.transform(document, source: source))
        return result
    }
}
