import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser
import Foundation

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in again with the stored configuration, replacing the kept sign-in.",
        discussion: """
            Signs in by the method the stored configuration names, as onboarding does:
              OAuth 2.0   in the browser: with a loopback redirectURL (http://127.0.0.1:PORT/PATH) a listener on this \
            device takes the browser back; with any other redirectURL, or --no-browser, you paste the address the \
            browser ends on. --device signs in with a code entered on another device (where the configuration or its \
            issuer names a device endpoint); it is also used when no browser can be started. The address is always \
            shown on stderr; $BROWSER (else xdg-open) opens it.
              basic, API key   asked on the terminal (or --credentials-file FILE, --credentials-fd N) and checked with \
            one request to the server; refused credentials are never kept.
            The new tokens or credentials replace the kept ones. Tokens are kept only in the secure store.

            The browser sign-in waits at most --timeout seconds (default 180). A redirect whose state is not this \
            sign-in's is answered 400 and the wait goes on.

            Exit codes: 0 signed in; 7 the sign-in ended without tokens (refused, denied, expired, timed out) or the \
            server refused the credentials; 8 the store is locked and no passcode was given, with no terminal to ask \
            on; 3 nothing is onboarded; 1 the server could not be reached, or the store cannot be read or written; 2 \
            the stored configuration no longer passes the security policy, or a wrong passcode.
            """
    )

    @OptionGroup(title: "Signing in") var signIn: SignInOptions
    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
    @OptionGroup(title: "The secure store") var credentials: CredentialOptions
    @OptionGroup(title: "Security policy") var policy: PolicyOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let securityPolicy = try policy.policy()
        let presenter = TerminalPresenter(
            currentPasscode: passcode.source, credentials: credentials.source, noBrowser: signIn.noBrowser,
            signInTimeoutSeconds: signIn.timeout)
        // The store opens, and the stored configuration is checked again, as restore does.
        let opened = await OnboardingFlow(steps: [
            ConfigurationStep(providers: [], policy: securityPolicy), StoreManagerStep(),
        ])
        .restore(OnboardingContext(location: storeOptions.location, presenter: presenter))
        if let failure = opened.failure { throw failure.exit() }
        var context = opened.context
        guard let document = context.contents.configuration?.document else { throw ExitCode(ExitStatus.failure) }
        switch document.primaryAuth?.method {
        case .oauth2(let settings)?:
            let session = try await signIn.step(policy: securityPolicy).signIn(settings: settings, context: context)
            try context.updateContents { $0.signIn = session }
            Console.note("signed in\(session.subject.map { " as \($0)" } ?? ""); \(SignInLines.expiry(session))")
        case .basic?, .apiKey?:
            let kind: StoredCredentials.Kind = document.primaryAuth?.method == .apiKey ? .apiKey : .userAndPassword
            let kept = try await CredentialsStep(
                checker: ServerCredentialsChecker(allowsInsecureLoopback: securityPolicy.allowHTTP)
            )
            .signIn(kind: kind, document: document, &context)
            // No credentials given is no sign-in: a script must not take it for one.
            guard kept else {
                Console.report(
                    """
                    not signed in: no credentials were given (--credentials-file FILE, --credentials-fd N, or a \
                    terminal)
                    """
                )
                throw ExitCode(ExitStatus.notSignedIn)
            }
        case let method?:
            Console.report(
                "the configuration signs in with \(method.typeName), which activate does not sign in with")
            throw ExitCode(ExitStatus.rejected)
        case nil:
            Console.report("the configuration names no sign-in method activate knows")
            throw ExitCode(ExitStatus.rejected)
        }
    }
}

/// How a kept sign-in is described to people, never with a token.
enum SignInLines {
    static func expiry(_ session: StoredSignIn) -> String {
        let until =
            session.expiresAt.map { "access token valid until \($0.formatted(.iso8601))" }
            ?? "access token without an expiry"
        return until + (session.refreshToken == nil ? ", no refresh token" : ", refresh token kept")
    }

    /// restore's line: `Sign-in:    OAuth 2.0 as alice; access token valid until …`.
    static func line(_ state: SignInState) -> String {
        let method =
            switch state.method {
            case "oauth2": "OAuth 2.0"
            case "basic.default": "basic"
            default: "API key"
            }
        guard state.signedIn else { return "Sign-in:    \(method), not signed in (`activate login` signs in)" }
        let who = state.user.map { " as \($0)" } ?? ""
        if state.method == "oauth2" {
            let until =
                state.accessTokenExpiresAt.map { "access token valid until \($0)" } ?? "access token without an expiry"
            return
                """
                Sign-in:    \(method)\(who); \(until), \
                \(state.refreshTokenKept == true ? "refresh token kept" : "no refresh token")
                """
        }
        return "Sign-in:    \(method)\(who); "
            + (state.checkedAt.map { "accepted by the server at \($0)" } ?? "stored unchecked (offline)")
    }
}
