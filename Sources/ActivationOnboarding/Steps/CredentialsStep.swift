import ActivationConfiguration
import ActivationSecureStore

/// The credentials' step: for a configuration that signs in with a user name and password or an
/// API key, onboard asks the presenter for them, has the server check them with one request
/// (SAP's `BasicAuthenticationStep` sends such a validation request too), and keeps only
/// credentials the server accepted. Refused ones are asked again, at most ``attempts`` times
/// (a presenter without a person throws the refusal at once); they are never kept.
///
/// Without a checker (offline) the credentials are kept unchecked, and a note says so. Sign-in
/// methods on a web page or with a certificate (OAuth, SAML) keep no credentials here.
public struct CredentialsStep: OnboardingStep {
    /// Asks the server whether it accepts the credentials; `nil`: they are kept unchecked.
    public var checker: (any CredentialsChecker)?
    /// How many times credentials are asked for before the refusal stops the step.
    public var attempts: Int

    /// The step; with a `checker` the server must accept the credentials.
    public init(checker: (any CredentialsChecker)? = nil, attempts: Int = 3) {
        self.checker = checker
        self.attempts = attempts
    }

    /// Asks for the credentials the stored configuration signs in with, has them checked, and keeps them.
    ///
    /// - Throws: ``OnboardingError`` `missingValue` when no configuration step ran before it,
    ///   `credentialsRefused` when the server refused them (or expects another method),
    ///   `serverUnavailable` when it could not be asked; whatever the presenter throws.
    public func onboard(_ context: inout OnboardingContext) async throws {
        guard let document = context.contents.configuration?.document else {
            throw OnboardingError(
                .missingValue, "no configuration to ask credentials for: the configuration step runs first")
        }
        guard let kind = StoredCredentials.kind(for: document) else { return }
        try await signIn(kind: kind, document: document, &context)
    }

    /// Asks for credentials and keeps those the server accepts, replacing any kept before (the
    /// onboard step, and a sign-in again on an open store).
    ///
    /// - Returns: whether credentials were kept; `false` when none were given.
    /// - Throws: as ``onboard(_:)``.
    @discardableResult
    public func signIn(
        kind: StoredCredentials.Kind, document: ConfigurationDocument, _ context: inout OnboardingContext
    ) async throws -> Bool {
        var rejection: OnboardingError?
        for attempt in 1...max(1, attempts) {
            let given = try await context.presenter.credentials(
                CredentialsRequest(kind: kind, host: document.host, attempt: attempt, rejection: rejection))
            if given.isEmpty {
                let what = kind == .apiKey ? "an API key" : "a user name and password"
                context.presenter.show(
                    OnboardingNote(
                        .warning, step: name, "no credentials stored: the configuration signs in with \(what)",
                        topic: .noCredentials))
                return false
            }
            guard let checker else {
                context.presenter.show(
                    OnboardingNote(
                        .warning, step: name,
                        "the credentials are stored unchecked: no server was asked whether it accepts them",
                        topic: .credentialsUnchecked))
                try context.updateContents {
                    $0.credentials = given
                    $0.credentialsCheckedAt = nil
                }
                return true
            }
            switch try await checker.check(given, for: document) {
            case .accepted:
                let now = context.now()
                try context.updateContents {
                    $0.credentials = given
                    $0.credentialsCheckedAt = now
                }
                context.presenter.show(OnboardingNote(.info, step: name, "\(document.host) accepted the credentials"))
                return true
            case .refused(let error):
                rejection = error
            case .otherMethod(let error):
                throw error
            }
        }
        throw rejection ?? OnboardingError(.credentialsRefused, "the server refused the credentials")
    }

    /// Nothing to do: the credentials are in the store.
    public func restore(_ context: inout OnboardingContext) async throws {}
}

/// What the server said to the credentials.
public enum CredentialsVerdict: Sendable, Hashable {
    /// A 2xx answer: the server accepts them.
    case accepted
    /// 401 or 403: refused; another try may be asked for.
    case refused(OnboardingError)
    /// A redirect: the server expects another sign-in method; asking again does not help.
    case otherMethod(OnboardingError)
}

/// How ``CredentialsStep`` asks the server whether it accepts credentials: `activate` sends one
/// request over HTTP (`ServerCredentialsChecker`, with the discovery client's trait).
public protocol CredentialsChecker: Sendable {
    /// Sends `credentials` to `document`'s server and says what it answered.
    ///
    /// - Throws: ``OnboardingError`` `serverUnavailable` when the server cannot be reached or
    ///   answers anything but 2xx, 401, 403 or a redirect.
    func check(_ credentials: StoredCredentials, for document: ConfigurationDocument) async throws -> CredentialsVerdict
}
