import ActivationConfiguration
import ActivationSecureStore

extension InfoKey where Value == ActivationReport {
    /// What the configuration step found or restored, as the user confirmed it: the document,
    /// its signature and the typed configuration (`ActivationReport.info`).
    public static let activationReport = InfoKey("com.sap.activate.activationReport")
}

/// The configuration's step: onboard takes the first acceptable configuration from a queue of
/// providers, checked with the security policy, shows it ("You will be connected to: host") and
/// has the user confirm it; restore checks the stored configuration again, as onboarding did.
///
/// Its result, the `ActivationReport`, is in the context under `InfoKey.activationReport`,
/// and its typed configuration (`OnboardingInfo`) in ``OnboardingContext/info``.
public struct ConfigurationStep: OnboardingStep {
    /// The providers, in the order they are asked; build them with the same security policy.
    public var providers: [any ConfigurationProvider]
    /// The security policy a stored configuration is checked against again on restore.
    public var policy: SecurityPolicy
    /// The application id: kept with a document that names none, and given to the transformer.
    public var applicationID: String?
    /// Whether the user confirms the configuration; without it the summary is shown only.
    public var confirms: Bool

    /// The step over `providers`, checking with `policy`.
    public init(
        providers: [any ConfigurationProvider], policy: SecurityPolicy, applicationID: String? = nil,
        confirms: Bool = true
    ) {
        self.providers = providers
        self.policy = policy
        self.applicationID = applicationID
        self.confirms = confirms
    }

    /// Loads, shows and confirms the configuration; it then waits in the context for the store.
    ///
    /// - Throws: `ConfigurationError` when no provider gives an acceptable configuration (its
    ///   lines name every provider's reason); ``OnboardingError`` `declined` when the user
    ///   declines it.
    public func onboard(_ context: inout OnboardingContext) async throws {
        let presenter = context.presenter
        let loaded = try await ConfigurationLoader(providers: providers).load { keys in
            await presenter.providerInput(for: keys)
        }
        var (providerID, found) = try loaded.get()
        // The app id that onboarding used is kept, so that a restore needs nothing but the store.
        if found.document.appID == nil { found.document.appID = applicationID }
        let report = try ActivationReport(
            document: found.document, signature: found.signature,
            transformer: DiscoveryServiceTransformer(applicationID: applicationID), source: found.origin)
        let summary = ConfigurationSummary(
            host: found.document.host, origin: found.origin,
            lines: report.lines(headline: "Configuration found in \(found.origin)."))
        if !(await presenter.present(summary, confirming: confirms)), confirms {
            throw OnboardingError(.declined, "the configuration for \(found.document.host) was declined")
        }
        let record = StoredConfiguration(
            document: found.document, providerID: providerID, origin: found.origin, storedAt: context.now(),
            signature: found.signature, signatureProof: found.signatureProof)
        try context.updateContents { $0.configuration = record }
        Self.add(report, to: &context)
    }

    /// Checks the stored configuration again with the security policy, as onboarding checked it:
    /// every URL, and a recorded signature verified again from the signed code kept with it.
    ///
    /// - Throws: ``OnboardingError`` `notOnboarded` when the store holds no configuration;
    ///   `ConfigurationError` when it no longer passes the policy.
    public func restore(_ context: inout OnboardingContext) async throws {
        let source = context.location.path
        guard let stored = context.contents.configuration else {
            throw OnboardingError(.notOnboarded, "the store at \(source) holds no configuration")
        }
        try stored.check(against: policy, source: source)
        let report = try ActivationReport(
            document: stored.document, signature: stored.signature,
            transformer: DiscoveryServiceTransformer(applicationID: stored.document.appID), source: source)
        Self.add(report, to: &context)
    }

    static func add(_ report: ActivationReport, to context: inout OnboardingContext) {
        context[.activationReport] = report
        if let info = report.info { context.info.merge(info) }
    }
}
