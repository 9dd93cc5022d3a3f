import ActivationConfiguration
import ActivationDiscovery
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser
import Foundation

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Open the secure store and show the stored configuration (no network unless --refresh).",
        discussion: """
            The store opens with the key kept in the kernel keyring since the last unlock (for the policy's lock \
            timeout; `activate lock` forgets it), with its device secret when the policy allowed a store without a \
            passcode (said plainly), or with the passcode: asked on the terminal, or read from --passcode-fd N or \
            --passcode-file FILE. After each wrong passcode the tries left are shown; at the policy's retry limit the \
            store is deleted. An expired passcode must be changed first (`activate passcode change`); after the \
            policy's days without contact with the server the store is blocked, then deleted.

            The sign-in state is shown too: the method, who signed in where known, the access token's expiry and \
            whether a refresh token is kept (tokens only with --show-secrets, in --json).

            The stored configuration is then checked again, as onboarding checked it: every URL against the security \
            policy (https, no IP address, --allow-host), and a recorded signature is verified again from the signed \
            code kept in the store (with --public-key, the key must be one of those given). Stored secrets (passwords, \
            API keys) are shown only with --show-secrets.

            --refresh asks the server the client policies came from at onboarding (the discovery service, or the \
            configuration's server with the stored credentials) for the current ones, stores them and records the \
            contact. That contact is what the block-and-wipe policy counts from: a blocked store opens again once a \
            refresh succeeds.

            A plaintext configuration of an earlier version is moved into a new secure store first (a new passcode is \
            asked, under --policy FILE or SAP's defaults).

            Exit codes: 0 shown; 3 nothing is onboarded; 2 a wrong, missing or expired passcode, the stored \
            configuration no longer passes the policy, or --refresh has no server to ask; 6 the store was deleted (too \
            many wrong passcodes, too long without the server) or is blocked; 1 the store cannot be read, is not \
            private, or is damaged (the message suggests `activate reset`).
            """
    )

    @Flag(help: "Print the stored configuration as JSON (docs/onboarding.md, \"restore --json\").") var json = false
    @Flag(name: .customLong("show-secrets"), help: "Show the stored password and API key.") var showSecrets = false
    @Flag(help: "Ask the server for the current client policies and record the contact.") var refresh = false
    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
    @OptionGroup(title: "The secure store") var policyOptions: ClientPolicyOptions
    @OptionGroup(title: "Security policy") var policy: PolicyOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let flow: OnboardingFlow
        var context = OnboardingContext(
            location: storeOptions.location,
            presenter: TerminalPresenter(currentPasscode: passcode.source, newPasscode: passcode.source))
        // What a plaintext store of an earlier version moves into.
        context.pendingContents.clientPolicies = try policyOptions.policies()
        let securityPolicy = try policy.policy()
        flow = .standard(
            configuration: ConfigurationStep(providers: [], policy: securityPolicy),
            settings: SettingsDownloadStep(
                source: .servers(discovery: nil), fetcher: SettingsExchangeFetcher(allowInsecureLoopback: true)),
            store: StoreManagerStep(workFactor: policyOptions.workFactor, allowsBlocked: refresh))
        var result = await flow.restore(context)
        if refresh, result.succeeded { result = await flow.sync(result.context) }
        if let failure = result.failure { throw failure.exit() }
        guard let store = result.context.store, let record = store.contents.configuration,
            let report = result.context[.activationReport]
        else {
            throw ExitCode(ExitStatus.failure)
        }
        if store.unlockedWith == .deviceSecret {
            Console.note(
                "this store is protected by a device secret only, not a passcode: the passcode policy allows that")
        }
        let contents = store.contents
        let consent = UsagePolicyApplyStep.consent(in: contents)
        let restricted = contents.clientPolicies.featureVector.restricted
        if json, let output = result.context.restoreReport(showingSecrets: showSecrets) {
            Console.raw(JSONOutput.encode(output) + "\n")
            return
        }
        let when = record.storedAt.formatted(.iso8601)
        var lines = report.lines(headline: "Onboarded from \(record.origin) (\(record.providerID)) at \(when).")
        let credentials = contents.credentials
        if !credentials.isEmpty {
            if showSecrets {
                if let user = credentials.user { lines.append("User:       \(user)") }
                if let password = credentials.password { lines.append("Password:   \(password)") }
                if let apiKey = credentials.apiKey { lines.append("API key:    \(apiKey)") }
            } else {
                lines.append("Credentials: \(credentials) (--show-secrets shows them)")
            }
        }
        if let state = contents.signInState(showingSecrets: false) { lines.append(SignInLines.line(state)) }
        let contact = contents.lastServerContact.map { "; last server contact \($0.formatted(.iso8601))" } ?? ""
        lines.append(
            "Policies:   " + (contents.clientPoliciesSource.map { "from \($0)" } ?? "from a file or SAP's defaults")
                + contact)
        if contents.clientPolicies.usage.dataCollectionEnabled {
            let answered = consent.answer.map { " on \($0.answeredAt.formatted(.iso8601))" } ?? ""
            lines.append(
                "Usage data: "
                    + (consent.allowed
                        ? "collected (you consented\(answered))" : "not collected (you declined\(answered))"))
        }
        if !restricted.isEmpty {
            lines.append("Restricted: \(restricted.joined(separator: ", ")) (turned off by your administrator)")
        }
        Console.print(lines: lines)
    }
}
