import ActivationConfiguration
import ActivationOnboarding
import ArgumentParser
import Foundation

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete the secure store and everything in it.",
        discussion: """
            Deletes the store, its state file (the count of wrong passcodes), its device secret, the key kept in the \
            kernel keyring, and a plaintext configuration of an earlier version; nothing else. A file is taken for a \
            store only by its contents: a secure store by its age header line, a plaintext configuration by its stored \
            form; any other file at --store is refused by name and left as it is (exit 1). No passcode is asked: \
            whoever can delete the files can do this anyway.

            Idempotent: exits 0 whether or not a store was there; 1 if something cannot be removed.
            """
    )

    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let context = OnboardingContext(location: storeOptions.location, presenter: TerminalPresenter())
        let result = await OnboardingFlow(steps: [StoreManagerStep()]).reset(context)
        if let failure = result.failure { throw failure.exit() }
    }
}
