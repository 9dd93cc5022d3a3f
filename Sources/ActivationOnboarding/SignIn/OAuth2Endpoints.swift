import ActivationConfiguration

/// Where and as which client a sign-in talks to the authorization server: the configuration's
/// endpoints, filled in from the issuer's metadata where the document leaves one out.
public struct OAuth2Endpoints: Sendable, Hashable {
    /// The authorization endpoint (the browser's first page).
    public var authorization: String
    /// The token endpoint.
    public var token: String
    /// The device authorization endpoint (RFC 8628), when known.
    public var deviceAuthorization: String?
    /// The revocation endpoint (RFC 7009), when known.
    public var revocation: String?
    /// The issuer identifier, when known: the callback's `iss` must be it.
    public var issuer: String?
    /// The client that signs in.
    public var client: OAuth2Client

    /// The endpoints of `settings` for `client` (by default the first authorization-code client).
    ///
    /// - Throws: ``OnboardingError`` `signInFailed` when the settings have no authorization-code client.
    public init(settings: OAuth2Settings, client: OAuth2Client? = nil) throws {
        guard let chosen = client ?? settings.clients.first(where: { $0.grantType == .authorizationCode }) else {
            throw OnboardingError(
                .signInFailed, "the configuration names no OAuth client with the authorization_code grant")
        }
        self.init(
            authorization: settings.authorizationEndpoint, token: settings.tokenEndpoint,
            deviceAuthorization: settings.deviceAuthorizationEndpoint, revocation: settings.revocationEndpoint,
            issuer: settings.issuer, client: chosen)
    }

    /// Endpoints as given.
    public init(
        authorization: String, token: String, deviceAuthorization: String? = nil, revocation: String? = nil,
        issuer: String? = nil,
        client: OAuth2Client
    ) {
        self.authorization = authorization
        self.token = token
        self.deviceAuthorization = deviceAuthorization
        self.revocation = revocation
        self.issuer = issuer
        self.client = client
    }

    /// These endpoints with the ones the document left out taken from `metadata`; the
    /// document's own always win. Metadata whose `issuer` is not the one asked for is ignored:
    /// the warning says so (RFC 8414 §3.3).
    ///
    /// - Parameters:
    ///   - metadata: the issuer's metadata.
    ///   - policy: judges every endpoint taken from the metadata, as it judged the document's.
    public func filled(from metadata: AuthorizationServerMetadata, policy: SecurityPolicy) -> (
        endpoints: OAuth2Endpoints, warnings: [String]
    ) {
        guard let issuer else { return (self, []) }
        guard metadata.issuer == issuer else {
            let named = UntrustedText.escaped(metadata.issuer, maxCharacters: 200)
            return (self, ["the metadata of \(issuer) names another issuer (\(named)): ignored"])
        }
        var filled = self
        var warnings: [String] = []
        func take(_ value: String?, _ key: String) -> String? {
            guard let value else { return nil }
            do {
                try policy.check(url: value, source: "\(issuer) metadata", path: key)
                return value
            } catch {
                warnings.append("\(error)")
                return nil
            }
        }
        if filled.deviceAuthorization == nil {
            filled.deviceAuthorization = take(metadata.deviceAuthorizationEndpoint, "device_authorization_endpoint")
        }
        if filled.revocation == nil { filled.revocation = take(metadata.revocationEndpoint, "revocation_endpoint") }
        return (filled, warnings)
    }
}
