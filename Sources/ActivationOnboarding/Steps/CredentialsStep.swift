import ActivationConfiguration
import ActivationSecureStore

/// The credentials' step: for a configuration that signs in with a user name and password or an
/// API key, onboard asks the presenter for them and keeps them in the store, where the settings
/// download (to the configuration's own server only) and the app find them.
///
/// Sign-in methods on a web page or with a certificate (OAuth, SAML) keep no credentials here.
public struct CredentialsStep: OnboardingStep {
    /// The step.
    public init() {}

    /// Asks for the credentials the stored configuration signs in with, and keeps them.
    ///
    /// - Throws: ``OnboardingError`` `missingValue` when no configuration step ran before it;
    ///   whatever the presenter throws.
    public func onboard(_ context: inout OnboardingContext) async throws {
        guard let document = context.contents.configuration?.document else {
            throw OnboardingError(.missingValue, "no configuration to ask credentials for: the configuration step runs first")
        }
        guard let kind = StoredCredentials.kind(for: document) else { return }
        let given = try await context.presenter.credentials(CredentialsRequest(kind: kind, host: document.host))
        if given.isEmpty {
            let what = kind == .apiKey ? "an API key" : "a user name and password"
            context.presenter.show(OnboardingNote(.warning, step: name, "no credentials stored: the configuration signs in with \(what)", topic: .noCredentials))
        }
        try context.updateContents { $0.credentials = given }
    }

    /// Nothing to do: the credentials are in the store.
    public func restore(_ context: inout OnboardingContext) async throws {}
}
