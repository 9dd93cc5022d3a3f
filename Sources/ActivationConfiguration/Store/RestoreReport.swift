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
}
