import ActivationConfiguration
import ActivationSecureStore

/// A presenter for onboarding without a person: a service's first start, a provisioning script,
/// a sample. It answers every question from values given up front, never twice: a passcode that
/// the policy refuses, or that does not open the store, ends the step with that error.
public struct UnattendedPresenter: OnboardingPresenter {
    /// Whether the configuration found is accepted.
    public var confirms: Bool
    /// The passcode: the new store's, and the current one when the store is opened.
    public var passcode: Passcode?
    /// The credentials the configuration signs in with, if it signs in with any.
    public var credentials: StoredCredentials
    /// The answer to the usage policy's question.
    public var consents: Bool
    /// What the configuration providers get when they ask (an e-mail address, an onboarding code).
    public var providerInput: ProviderInput
    /// Where the steps' notes go; by default nowhere.
    public var notes: @Sendable (OnboardingNote) -> Void

    /// A presenter with these answers.
    public init(
        confirms: Bool = true, passcode: Passcode? = nil, credentials: StoredCredentials = StoredCredentials(),
        consents: Bool = false,
        providerInput: ProviderInput = [:], notes: @escaping @Sendable (OnboardingNote) -> Void = { _ in }
    ) {
        self.confirms = confirms
        self.passcode = passcode
        self.credentials = credentials
        self.consents = consents
        self.providerInput = providerInput
        self.notes = notes
    }

    /// The summary goes to ``notes``; the answer is ``confirms``.
    public func present(_ summary: ConfigurationSummary, confirming: Bool) async -> Bool {
        for line in summary.lines { notes(OnboardingNote(.info, step: "present", line)) }
        return confirms
    }

    /// ``providerInput``.
    public func providerInput(for keys: [ProviderInputKey]) async -> ProviderInput { providerInput }

    /// ``passcode``; the refusal of the previous answer is thrown, since there is no other.
    public func newPasscode(_ request: NewPasscodeRequest) async throws -> Passcode? {
        if let rejection = request.rejection { throw rejection }
        return passcode
    }

    /// ``passcode``; the refusal of the previous answer is thrown, since there is no other.
    public func currentPasscode(_ request: PasscodeRequest) async throws -> Passcode? {
        if let rejection = request.rejection { throw rejection }
        return passcode
    }

    /// ``credentials``; the refusal of the previous answer is thrown, since there is no other.
    public func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials {
        if let rejection = request.rejection { throw rejection }
        return credentials
    }

    /// No browser: nobody would sign in there. The address goes to ``notes``.
    public func openBrowser(_ request: BrowserSignInRequest) async -> Bool {
        notes(OnboardingNote(.info, step: "sign-in", "Sign in at \(request.url)"))
        return false
    }

    /// Nobody pastes an address.
    public func redirectedAddress(_ request: PastedAddressRequest) async throws -> String? {
        throw request.rejection
            ?? OnboardingError(
                .unanswered, "a sign-in in the browser needs someone to sign in, and onboarding runs unattended")
    }

    /// The code and the address go to ``notes``: someone may confirm them elsewhere.
    public func showDeviceCode(_ prompt: DeviceCodePrompt) async {
        notes(
            OnboardingNote(
                .info, step: "sign-in", "To sign in, enter the code \(prompt.userCode) at \(prompt.verificationURI)"))
    }

    /// ``consents``.
    public func consent(_ request: ConsentRequest) async -> Bool { consents }

    /// Hands the note to ``notes``.
    public func show(_ note: OnboardingNote) { notes(note) }
}
