import ActivationConfiguration
import ActivationDiscovery
import ActivationImaging
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser
import Foundation

struct OnboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboard",
        abstract: "Find the onboarding configuration, confirm it, and store it.",
        discussion: """
            The sources form a queue; the first that yields a valid configuration wins, and every other source's \
            reason is listed when none does. Give the queue with --from KIND:VALUE, in the order to try it:
              file:F         a JSON or property-list file
              json:S         configuration text: JSON, a signed JWS, a link
              managed        the file named by $ACTIVATE_MANAGED_CONFIG (MDM keys)
              email:E        the discovery service, by the e-mail address's domain
              code:C         the discovery service, by an onboarding code
              scan:IMAGE     the first activation code in an image
            For sources of one kind, the shorthand options --file, --json-string, --managed, --email, --code and \
            --scan do the same (--file F is --from file:F). With no source: managed, then \
            ./ConfigurationProvider.plist or .json, then (with --discovery and a terminal) a prompt for an e-mail \
            address or onboarding code.

            The summary ("You will be connected to: …") is shown and, on a terminal, confirmed (--yes skips the \
            question). An existing configuration is replaced only with --force.

            The configuration goes into the secure store: an age file (mode 0600) at \
            $XDG_CONFIG_HOME/activate/store.age (or ~/.config/activate/store.age), or --store PATH, encrypted under a \
            passcode that must meet the passcode policy of the client policies. These come from --policy FILE (SAP's \
            settingsExchange JSON); else from the discovery service (--discovery), then from the configuration's \
            server (with the credentials below), both at SAP's settingsExchange path; when neither has them, or with \
            --offline, SAP's defaults apply (at least 8 characters, 10 tries), and each reason is told. The policy is \
            shown, then the passcode is asked twice on the terminal, or read from --passcode-fd N or --passcode-file \
            FILE (never from the command line). --no-passcode protects the store with a device secret instead, where \
            the policy allows it. The credentials the configuration signs in with (basic: user name and password; an \
            API key) are asked on the terminal too, or read from --credentials-file FILE or --credentials-fd N as \
            {"user": "…", "password": "…"} or {"apiKey": "…"}. A plaintext configuration of an earlier version is \
            moved into the secure store.

            --discovery must be https; an explicitly given http URL is accepted only for a loopback address (a local \
            test server).

            Examples:
              activate onboard --file ConfigurationProvider.plist --yes
              activate onboard --email someone@example.com --app-id com.example.app \\
                  --discovery https://discovery.example.com
              activate onboard --scan activation.png --public-key signer.pub.pem
              activate onboard --from scan:activation.png --from file:fallback.json --yes
              activate onboard --file config.json --yes --policy settings.json --passcode-fd 3 3<passcode.txt

            Signing in follows the configuration's method, before the client policies are fetched (with the new \
            sign-in): basic and API-key credentials are checked with one request to the server, and refused ones are \
            asked again on a terminal (at most three times) and never stored; --offline stores them unchecked and says \
            so. OAuth 2.0 signs in in the browser, with a pasted address (--no-browser) or with a code on another \
            device (--device), as `activate login` explains; --no-sign-in stores the configuration without signing in.

            Exit codes: 0 onboarded; 2 no source gave an acceptable configuration (each reason is listed), or the \
            passcode breaks the policy; 5 you declined; 7 the sign-in ended without tokens or the server refused the \
            credentials (nothing is stored); 8 a passcode is needed and none was given, with no terminal to ask on; 1 \
            the store cannot be written or read, or a server could not be reached; 64 usage error.
            """
    )

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "A source of the queue, in order: file:F, json:S, managed, email:E, code:C or scan:IMAGE (repeatable).",
            valueName: "kind:value"),
        completion: .list(OnboardingSource.kinds.map { $0 == "managed" ? $0 : "\($0):" }),
        transform: OnboardingSource.init(parsing:))
    var from: [OnboardingSource] = []
    @Option(help: ArgumentHelp("A configuration file (JSON or property list).", valueName: "file"), completion: .file())
    var file: [String] = []
    @Option(name: .customLong("json-string"), help: ArgumentHelp("Configuration text.", valueName: "text"))
    var jsonString: [String] = []
    @Flag(help: "Read managed configuration ($ACTIVATE_MANAGED_CONFIG).") var managed = false
    @Option(help: ArgumentHelp("Look up this e-mail address's domain in the discovery service.", valueName: "address"))
    var email: String?
    @Option(help: ArgumentHelp("Look up this onboarding code in the discovery service.", valueName: "code")) var code:
        String?
    @Option(help: ArgumentHelp("Scan this image for an activation code.", valueName: "image"), completion: .file())
    var scan: [String] = []
    @Option(help: ArgumentHelp("The discovery service's base URL.", valueName: "url")) var discovery: String?
    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp(
            "The application id (for the discovery service, and when a document names none).", valueName: "id"))
    var appID: String?
    @Option(
        name: .customLong("app-version"),
        help: ArgumentHelp("The application version for the discovery service.", valueName: "version")) var appVersion =
        "1.0"
    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup(title: "The secure store") var policyOptions: ClientPolicyOptions
    @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
    @Flag(
        name: .customLong("no-passcode"),
        help: "Protect the store with a device secret instead of a passcode (only where the policy allows it).")
    var noPasscode = false
    @Flag(
        help:
            """
            Ask no server: --policy FILE or SAP's defaults apply, credentials are stored unchecked, and OAuth 2.0 \
            signs in later (`activate login`).
            """
    )
    var offline = false
    @OptionGroup(title: "The secure store") var credentials: CredentialOptions
    @Flag(
        name: .customLong("no-sign-in"),
        help:
            """
            Store the configuration without signing in: no OAuth 2.0 sign-in, credentials stored unchecked (`activate \
            login` signs in later).
            """
    )
    var noSignIn = false
    @OptionGroup(title: "Signing in") var signIn: SignInOptions
    @Flag(help: "Do not ask for confirmation.") var yes = false
    @Flag(help: "Replace a configuration that is already stored.") var force = false
    @Flag(help: "Print the stored result as JSON.") var json = false
    @OptionGroup(title: "Security policy") var policy: PolicyOptions
    @OptionGroup var quietOption: QuietOption

    func validate() throws {
        if try sources().contains(where: \.usesDiscovery) && (discovery == nil || appID == nil) {
            throw ValidationError("--email and --code (and --from email:, code:) need --discovery URL and --app-id ID.")
        }
        if noPasscode && passcode.isGiven {
            throw ValidationError("--no-passcode goes with neither --passcode-fd nor --passcode-file.")
        }
    }

    /// The queue as the options give it (see ``OnboardingSource``).
    func sources() throws -> [OnboardingSource] {
        try OnboardingSource.queue(
            from: from,
            shorthand: [
                ("--file", file.map(OnboardingSource.file)), ("--json-string", jsonString.map(OnboardingSource.json)),
                ("--managed", managed ? [.managed] : []), ("--email", email.map { [.email($0)] } ?? []),
                ("--code", code.map { [.code($0)] } ?? []), ("--scan", scan.map(OnboardingSource.scan)),
            ])
    }

    func run() async throws {
        let flow: OnboardingFlow
        var context = OnboardingContext(
            location: storeOptions.location,
            presenter: TerminalPresenter(
                currentPasscode: passcode.source, newPasscode: passcode.source, credentials: credentials.source,
                summaryOnStandardError: json,
                noBrowser: signIn.noBrowser, signInTimeoutSeconds: signIn.timeout))
        let securityPolicy = try policy.policy(applicationID: appID)
        let given = try policyOptions.policies()
        // What a plaintext store of an earlier version moves into before anything is asked.
        context.pendingContents.clientPolicies = given
        let settings: SettingsDownloadStep.Source =
            policyOptions.isGiven ? .given(given) : offline ? .defaults : .servers(discovery: discovery)
        flow = .standard(
            configuration: ConfigurationStep(
                providers: try providers(recognizer: PayloadRecognizer(policy: securityPolicy)),
                policy: securityPolicy,
                applicationID: appID, confirms: Console.stdinIsTerminal && !yes),
            credentials: CredentialsStep(
                checker: offline || noSignIn
                    ? nil : ServerCredentialsChecker(allowsInsecureLoopback: securityPolicy.allowHTTP)),
            signIn: offline || noSignIn ? nil : signIn.step(policy: securityPolicy),
            settings: SettingsDownloadStep(
                source: settings, fetcher: SettingsExchangeFetcher(allowInsecureLoopback: true)),
            store: StoreManagerStep(
                protection: noPasscode ? .deviceSecret : .passcode, workFactor: policyOptions.workFactor,
                replacing: force))
        let result = await flow.onboard(context)
        if let failure = result.failure { throw failure.exit(rejectingConfiguration: true) }
        guard let store = result.context.store else { throw ExitCode(ExitStatus.failure) }
        if json, let output = result.context.restoreReport() {
            Console.raw(JSONOutput.encode(output) + "\n")
        }
        if let session = store.contents.signIn {
            Console.note("signed in\(session.subject.map { " as \($0)" } ?? ""); \(SignInLines.expiry(session))")
        } else if case .oauth2? = store.contents.configuration?.document.primaryAuth?.method {
            Console.note("not signed in: `activate login` signs in")
        }
        let protection =
            store.contents.protection == .passcode
            ? "your passcode" : "a device secret only (the policy allows no passcode)"
        Console.note("stored in \(store.location.path), encrypted under \(protection)")
    }

    /// The provider queue, in the order of ``sources()``.
    func providers(recognizer: PayloadRecognizer) throws -> [any ConfigurationProvider] {
        func discoveryProvider(_ input: ProviderInput?) -> DiscoveryServiceProvider? {
            guard let discovery, let appID else { return nil }
            return DiscoveryServiceProvider(
                serviceURL: discovery, applicationID: appID, applicationVersion: appVersion,
                allowInsecureLoopback: true, recognizer: recognizer, presetInput: input)
        }
        var queue: [any ConfigurationProvider] = []
        for source in try sources() {
            switch source {
            case .file(let path): queue.append(FileConfigurationProvider(path: path, recognizer: recognizer))
            case .json(let text): queue.append(JSONStringConfigurationProvider(text: text, recognizer: recognizer))
            case .managed: queue.append(ManagedConfigurationProvider(recognizer: recognizer))
            case .email(let address): discoveryProvider([.emailAddress: address]).map { queue.append($0) }
            case .code(let code): discoveryProvider([.onboardingCode: code]).map { queue.append($0) }
            case .scan(let image): queue.append(BarcodeConfigurationProvider(imagePath: image, recognizer: recognizer))
            }
        }
        if queue.isEmpty {
            queue = ConfigurationLoader.defaultProviders(recognizer: recognizer)
            discoveryProvider(nil).map { queue.append($0) }
        }
        return queue
    }
}
