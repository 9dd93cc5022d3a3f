/// What `activate restore --json` and `activate onboard --json` print (docs/onboarding.md, "restore --json"), as
/// a type: the stored configuration (``StoredConfiguration/report(_:)``) with its secrets redacted
/// and without the signed code. Programs that run the tool decode its output with it:
/// `JSONDecoder().decode(RestoreReport.self, from: output)`. Keys are stable; new keys may be added.
public struct RestoreReport: Codable, Sendable, Hashable {
    /// The version of the stored form (1).
    public var format: Int
    /// The id of the provider that found the configuration.
    public var provider: String
    /// Where the provider found it, for people (a file name, a URL without its query).
    public var origin: String
    /// When it was stored, ISO 8601 in UTC.
    public var storedAt: String
    /// Whether it was signed; for a verified signature, the key that verified it (`publicKey`).
    public var signature: SignatureRecord
    /// The normalised document in the cockpit's key layout, secrets redacted.
    public var document: ConfigurationValue
    /// The transformed configuration, as `configuration` of ``InspectReport``.
    public var configuration: InspectReport.Configuration
    /// How the secure store is protected: `passcode` or `device-secret`; `nil` for a plaintext store.
    public var protection: String?
    /// The stored credentials (`user`, `password`, `apiKey`), secrets shown as `(hidden)` unless asked for.
    public var credentials: ConfigurationValue?
    /// The last successful contact with the server, ISO 8601 in UTC.
    public var lastServerContact: String?
    /// Usage data under the client policies' usage policy: `off` (the policy allows no
    /// collection), `consented` or `declined` (the user's answer to the policy in force).
    public var usageDataCollection: String?
    /// The features the client policies turn off (`featureVectorPolicies`); empty when every
    /// feature may run.
    public var restrictedFeatures: [String]?
    /// The sign-in state: the method, who signed in, whether the credentials were checked, and
    /// the tokens' expiry (tokens only when secrets are asked for).
    public var signIn: SignInState?
}

/// What `restore` tells of the sign-in: no secret unless asked for.
public struct SignInState: Codable, Sendable, Hashable {
    /// The configuration's method: `oauth2`, `basic.default` or `apikeyonly`.
    public var method: String
    /// Whether a sign-in is kept: OAuth tokens, or credentials.
    public var signedIn: Bool
    /// The user (basic) or the OAuth subject, where known.
    public var user: String?
    /// Basic and API key: when the server accepted the credentials; `nil` when they were stored unchecked.
    public var checkedAt: String?
    /// OAuth: when the user signed in, ISO 8601 in UTC.
    public var signedInAt: String?
    /// OAuth: when the access token expires, ISO 8601 in UTC.
    public var accessTokenExpiresAt: String?
    /// OAuth: whether a refresh token is kept.
    public var refreshTokenKept: Bool?
    /// OAuth: the scope granted.
    public var scope: String?
    /// OAuth: the access token, only when secrets are asked for.
    public var accessToken: String?
    /// OAuth: the refresh token, only when secrets are asked for.
    public var refreshToken: String?

    /// A state for `method`; the rest is filled in by the store that knows it.
    public init(method: String, signedIn: Bool) {
        self.method = method
        self.signedIn = signedIn
    }
}
