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
