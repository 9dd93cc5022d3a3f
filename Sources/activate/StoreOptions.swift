import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser
import Foundation

/// `--store PATH`: where the secure store is (default `$XDG_CONFIG_HOME/activate/store.age`).
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The secure store (default: $XDG_CONFIG_HOME/activate/store.age, or ~/.config/activate/store.age).",
            valueName: "path"),
        completion: .file())
    var store: String?

    var location: SecureStoreLocation { SecureStoreLocation(path: store ?? SecureStoreLocation.defaultPath()) }
}

/// `--policy FILE`: client policies as SAP's `settingsExchange` JSON.
struct ClientPolicyOptions: ParsableArguments {
    @Option(
        name: .customLong("policy"),
        help: ArgumentHelp(
            "Client policies: a settingsExchange JSON file as the mobile services server sends it (default: SAP's defaults).",
            valueName: "file"),
        completion: .file())
    var policyFile: String?

    /// Whether --policy was given.
    var isGiven: Bool { policyFile != nil }

    @OptionGroup var workFactorOption: WorkFactorOption
    var workFactor: Int { workFactorOption.workFactor }

    /// The policies of --policy, or SAP's defaults.
    func policies() throws -> ClientPolicies {
        guard let policyFile else { return .default }
        return try ClientPolicies(
            json: try FileIO.read(policyFile, limit: ClientPolicies.maxDocumentBytes), source: policyFile)
    }
}

/// `--work-factor N`: scrypt's cost for a new passcode.
struct WorkFactorOption: ParsableArguments {
    @Option(
        name: .customLong("work-factor"),
        help: ArgumentHelp(
            "log2 of scrypt's N for a new passcode, 1 to \(SecureStore.maxWorkFactor); \(SecureStore.defaultWorkFactor) is age's own, about half a second per unlock.",
            valueName: "n"))
    var workFactor = SecureStore.defaultWorkFactor

    func validate() throws {
        guard (1...SecureStore.maxWorkFactor).contains(workFactor) else {
            throw ValidationError("--work-factor takes a number from 1 to \(SecureStore.maxWorkFactor)")
        }
    }
}

extension StoreOptions {
    /// Opens the store as `restore` does: with the key the kernel keyring keeps, else with the
    /// passcode from `passcode` or the terminal. A failure ends the command with its documented
    /// exit status (8 for a locked store and no way to ask for the passcode).
    static func open(_ location: SecureStoreLocation, passcode: SecretSource?) async throws -> SecureStore {
        let context = OnboardingContext(location: location, presenter: TerminalPresenter(currentPasscode: passcode))
        let result = await OnboardingFlow(steps: [StoreManagerStep()]).restore(context)
        if let failure = result.failure { throw failure.exit() }
        guard let store = result.context.store else { throw ExitCode(ExitStatus.failure) }
        return store
    }
}
