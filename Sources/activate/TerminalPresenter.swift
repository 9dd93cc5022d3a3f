import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import FileAccess
import Foundation
import SystemPackage

/// Onboarding on the terminal: summaries and notes on stderr (the summary on stdout unless the
/// result goes there as JSON), questions on `/dev/tty` without echo for secrets, and the secrets
/// a script gives (a descriptor or a file only its owner can read) instead of questions.
struct TerminalPresenter: OnboardingPresenter {
    /// The store's current passcode, from --passcode-fd or --passcode-file.
    var currentPasscode: SecretSource?
    /// A new passcode, from the same options (onboard, a restore that moves a plaintext store) or
    /// from --new-passcode-fd and --new-passcode-file (passcode change).
    var newPasscode: SecretSource?
    /// The credentials as JSON, from --credentials-file or --credentials-fd.
    var credentials: SecretSource?
    /// Whether the summary goes to stderr because stdout carries JSON.
    var summaryOnStandardError = false
    /// --no-browser: the address is shown, no browser is started.
    var noBrowser = false
    /// --timeout, as the waiting note tells it.
    var signInTimeoutSeconds = 180

    func present(_ summary: ConfigurationSummary, confirming: Bool) async -> Bool {
        // What is about to be stored is shown even with --quiet when it is asked about.
        if summaryOnStandardError {
            summary.lines.forEach(confirming ? Console.error : Console.note)
        } else {
            Console.print(lines: summary.lines)
        }
        guard confirming else { return true }
        Console.prompt("Connect to \(summary.host) and store this configuration? [y/N] ")
        return ["y", "yes"].contains(readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
    }

    func providerInput(for keys: [ProviderInputKey]) async -> ProviderInput {
        let wantsEmail = keys.contains(.emailAddress)
        let wantsCode = keys.contains(.onboardingCode)
        guard Console.stdinIsTerminal, wantsEmail || wantsCode else { return [:] }
        let prompt =
            wantsEmail && wantsCode
            ? "E-mail address or onboarding code" : wantsEmail ? "E-mail address" : "Onboarding code"
        Console.prompt("\(prompt): ")
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces), !answer.isEmpty else { return [:] }
        return answer.contains("@") && wantsEmail ? [.emailAddress: answer] : [.onboardingCode: answer]
    }

    func newPasscode(_ request: NewPasscodeRequest) async throws -> Passcode? {
        if let newPasscode {
            // A script gives one passcode: one that the policy refuses is the answer, not a try.
            if let rejection = request.rejection { throw rejection }
            return Passcode(try newPasscode.line(what: "passcode"))
        }
        guard SecretInput.hasTerminal else {
            throw SecureStoreError(.passcodeRequired, "a passcode is needed and there is no terminal to ask on")
        }
        if let rejection = request.rejection {
            Self.report(rejection)
        } else {
            NewPasscode.describe(request.policy).forEach(Console.note)
        }
        for attempt in 1...3 {
            guard let first = SecretInput.ask("New passcode: "),
                let second = SecretInput.ask("Repeat the new passcode: ")
            else { return nil }
            if first == second { return Passcode(first) }
            if attempt < 3 { Console.report("the two entries differ") }
        }
        throw SecureStoreError(.passcodeRejected, "the two entries differ")
    }

    func currentPasscode(_ request: PasscodeRequest) async throws -> Passcode? {
        if let currentPasscode {
            if let rejection = request.rejection { throw rejection }
            return Passcode(try currentPasscode.line(what: "passcode"))
        }
        guard SecretInput.hasTerminal else { return nil }
        if let rejection = request.rejection { Self.report(rejection) }
        while true {
            guard let typed = SecretInput.ask("Passcode for \(request.location.path): ") else { return nil }
            // Enter alone is no try.
            if !typed.isEmpty { return Passcode(typed) }
        }
    }

    func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials {
        // Synchronous, in a function of its own: Swift 6.3's optimizer crashes (CoroSplit) on this
        // body inside the async requirement in release builds.
        try askCredentials(request)
    }

    private func askCredentials(_ request: CredentialsRequest) throws -> StoredCredentials {
        if let credentials {
            // A script gives one set of credentials: refused, they are the answer, not a try.
            if let rejection = request.rejection { throw rejection }
            return try StoredCredentials(
                json: try credentials.bytes(what: "the credentials file", limit: StoredCredentials.maxJSONBytes),
                source: credentials.name)
        }
        guard SecretInput.hasTerminal else {
            if let rejection = request.rejection { throw rejection }
            return StoredCredentials()
        }
        if let rejection = request.rejection {
            Console.report("\(rejection.reason); try again (attempt \(request.attempt))")
        }
        switch request.kind {
        case .userAndPassword:
            guard let user = SecretInput.ask("User name for \(request.host) (empty: none): ", echo: true), !user.isEmpty
            else { return StoredCredentials() }
            return StoredCredentials(user: user, password: SecretInput.ask("Password for \(user): "))
        case .apiKey:
            guard let key = SecretInput.ask("API key for \(request.host) (empty: none): "), !key.isEmpty else {
                return StoredCredentials()
            }
            return StoredCredentials(apiKey: key)
        }
    }

    func consent(_ request: ConsentRequest) async -> Bool {
        let policy = request.policy
        let upload = policy.uploadDataAfterDays > 0 ? ", uploaded every \(policy.uploadDataAfterDays) days" : ""
        let question =
            """
            \(request.previous == nil ? "Your" : "The changed") administrator's policy allows collecting usage \
            data\(upload)\(policy.crashLogUploadEnabled ? " and crash logs" : "").
            """
        guard SecretInput.hasTerminal else {
            Console.note("\(question) There is no terminal to ask on, so none is collected.")
            return false
        }
        Console.note(question)
        return ["y", "yes"].contains(
            SecretInput.ask("Allow it? [y/N] ", echo: true)?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
    }

    /// The address on stderr (also with --quiet: the user needs it), then `$BROWSER` or
    /// `xdg-open` with the address as its one argument; on a session without a display the
    /// note says what else works.
    func openBrowser(_ request: BrowserSignInRequest) async -> Bool {
        Console.error("Sign in to \(request.host) in your browser:")
        Console.error("  \(request.url)")
        if let headless = BrowserLauncher.headlessNote() { Console.note(headless) }
        guard !noBrowser else { return false }
        let started = BrowserLauncher.open(request.url)
        if !started { Console.note("no browser could be started (set $BROWSER, or open the address above by hand)") }
        if request.returnsToListener {
            Console.note("waiting for the browser to come back (at most \(signInTimeoutSeconds) s)…")
        }
        return started
    }

    /// Asks on the terminal for the address the browser ended on; no terminal, no question.
    func redirectedAddress(_ request: PastedAddressRequest) async throws -> String? {
        guard Console.stdinIsTerminal || SecretInput.hasTerminal else {
            throw request.rejection
                ?? OnboardingError(
                    .signInFailed,
                    "the sign-in needs the address the browser ends on pasted, and there is no terminal to ask on")
        }
        if let rejection = request.rejection { Console.report(rejection.reason) }
        Console.error(
            """
            After signing in, the browser ends on an address starting with \(request.redirectURL) (it may show an \
            error page).
            """
        )
        return SecretInput.ask("Paste that whole address here: ", echo: false)?.trimmingCharacters(in: .whitespaces)
    }

    /// The code and the address on stderr, and a QR code of the address with the code on a terminal.
    func showDeviceCode(_ prompt: DeviceCodePrompt) async {
        Console.error("To sign in, open \(prompt.verificationURI) on any device and enter the code:")
        Console.error("  \(prompt.userCode)")
        if let complete = prompt.verificationURIComplete, Console.stderrIsTerminal,
            let drawing = try? TerminalQR.draw(complete)
        {
            Console.error("or scan this code, which carries it:")
            Console.terminalControl(drawing)
        }
        Console.note("waiting for the sign-in (the code expires in \(prompt.expiresIn / 60) min)…")
    }

    func show(_ note: OnboardingNote) {
        guard note.kind != .progress else { return }
        Console.note(Hint.text(for: note))
    }

    static func report(_ error: any Error) {
        if let report = ErrorReport(error) { report.write() } else { Console.report("\(error)") }
    }
}
