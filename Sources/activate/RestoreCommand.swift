import ActivationConfiguration
import ActivationDiscovery
import ActivationSecureStore
import ArgumentParser
import Foundation

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Open the secure store and show the stored configuration (no network unless --refresh).",
        discussion: """
            The store opens with the key kept in the kernel keyring since the last unlock (for the policy's lock timeout; `activate lock` forgets it), with its device secret when the policy allowed a store without a passcode (said plainly), or with the passcode: asked on the terminal, or read from --passcode-fd N or --passcode-file FILE. After each wrong passcode the tries left are shown; at the policy's retry limit the store is deleted. An expired passcode must be changed first (`activate passcode change`); after the policy's days without contact with the server the store is blocked, then deleted.

            The stored configuration is then checked again, as onboarding checked it: every URL against the security policy (https, no IP address, --allow-host), and a recorded signature is verified again from the signed code kept in the store (with --public-key, the key must be one of those given). Stored secrets (passwords, API keys) are shown only with --show-secrets.

            --refresh asks the server the client policies came from at onboarding (the discovery service, or the configuration's server with the stored credentials) for the current ones, stores them and records the contact. That contact is what the block-and-wipe policy counts from: a blocked store opens again once a refresh succeeds.

            A plaintext configuration of an earlier version is moved into a new secure store first (a new passcode is asked, under --policy FILE or SAP's defaults).

            Exit codes: 0 shown; 3 nothing is onboarded; 2 a wrong, missing or expired passcode, the stored configuration no longer passes the policy, or --refresh has no server to ask; 6 the store was deleted (too many wrong passcodes, too long without the server) or is blocked; 1 the store cannot be read, is not private, or is damaged (the message suggests `activate reset`).
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
        let location = storeOptions.location
        let store: SecureStore
        let record: StoredConfiguration
        let report: ActivationReport
        do {
            let migrated = try migratePlaintextStore(location)
            guard var opened = try migrated ?? StoreAccess.open(location, passcode: passcode, allowBlocked: refresh) else {
                Console.report("nothing is onboarded (no store at \(location.path)); run `activate onboard`")
                throw ExitCode(ExitStatus.notOnboarded)
            }
            if refresh { try await refreshPolicies(&opened) }
            store = opened
            if store.unlockedWith == .deviceSecret {
                Console.note("this store is protected by a device secret only, not a passcode: the passcode policy allows that")
            }
            guard let stored = store.contents.configuration else {
                Console.report("the store at \(location.path) holds no configuration; run `activate onboard --force`")
                throw ExitCode(ExitStatus.notOnboarded)
            }
            record = stored
            try stored.check(against: try policy.policy(), source: location.path)
            report = try ActivationReport(document: stored.document, signature: stored.signature,
                                          transformer: DiscoveryServiceTransformer(applicationID: stored.document.appID), source: location.path)
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(error.exitStatus)
        }
        if json, let output = store.contents.report(report, showingSecrets: showSecrets) {
            Console.raw(JSONOutput.encode(output) + "\n")
            return
        }
        let when = record.storedAt.formatted(.iso8601)
        var lines = report.lines(headline: "Onboarded from \(record.origin) (\(record.providerID)) at \(when).")
        let credentials = store.contents.credentials
        if !credentials.isEmpty {
            if showSecrets {
                if let user = credentials.user { lines.append("User:       \(user)") }
                if let password = credentials.password { lines.append("Password:   \(password)") }
                if let apiKey = credentials.apiKey { lines.append("API key:    \(apiKey)") }
            } else {
                lines.append("Credentials: \(credentials) (--show-secrets shows them)")
            }
        }
        let contents = store.contents
        let contact = contents.lastServerContact.map { "; last server contact \($0.formatted(.iso8601))" } ?? ""
        lines.append("Policies:   " + (contents.clientPoliciesSource.map { "from \($0)" } ?? "from a file or SAP's defaults") + contact)
        Console.print(lines: lines)
    }

    /// Asks the server the policies came from for the current ones; on success stores them and
    /// records the contact. A failure leaves the stored policies in force, and a blocked store blocked.
    func refreshPolicies(_ store: inout SecureStore) async throws {
        let path = store.location.path
        guard let recorded = store.contents.clientPoliciesSource else {
            throw ConfigurationError(.notFound, source: path,
                                     "--refresh: the client policies did not come from a server (onboarding used --policy, --offline or SAP's defaults); run `activate onboard --force` to ask one")
        }
        let document = store.contents.configuration?.document
        let source = ServerPolicies.source(recorded: recorded, document: document)
        let fetched = try await ServerPolicies.fetch(from: [source], appID: document?.appID, credentials: store.contents.credentials)
        guard let (policies, _) = fetched else {
            if store.isBlocked() {
                throw ConfigurationError(.storeBlocked, source: path, "the server could not be asked, so the store stays blocked; try again when it can be reached")
            }
            Console.note("The stored client policies stay in force.")
            return
        }
        let changed = policies != store.contents.clientPolicies
        store.contents.clientPolicies = policies
        try store.recordServerContact()
        Console.note(changed ? "The new client policies are stored; contact recorded." : "The client policies are unchanged; contact recorded.")
        if store.contents.protection == .deviceSecret && !policies.passcode.allowsNoPasscode {
            Console.note("The passcode policy now requires a passcode: set one with `activate passcode change`.")
        }
    }

    /// Moves a plaintext configuration of an earlier version into a new secure store, telling
    /// the user; the new store, open, or `nil` when there was nothing to move.
    func migratePlaintextStore(_ location: SecureStoreLocation) throws -> SecureStore? {
        guard let plaintext = location.plaintextStore(), try plaintext.load() != nil else { return nil }
        if location.holdsSecureStore {
            Console.note("A plaintext configuration of an earlier version is still at \(plaintext.path), beside the secure store; `activate reset` removes both.")
            return nil
        }
        let store = try PlaintextMigration.run(plaintext, into: location, policies: try policyOptions.policies(), workFactor: policyOptions.workFactor) {
            try NewPasscode.obtain(passcode, policy: $0.passcode)
        }
        Console.note("moved: the configuration is now encrypted in \(location.path)\(plaintext.path == location.path ? "" : "; the plaintext file is removed")")
        return store
    }
}
