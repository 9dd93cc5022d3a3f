import ActivationConfiguration
import ActivationOnboarding
import ArgumentParser
import Foundation

/// `activate passcode …`: the secure store's passcode.
struct PasscodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode",
        abstract: "Change the secure store's passcode.",
        subcommands: [Change.self]
    )

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change",
            abstract: "Change the passcode (also an expired one, or give a store without a passcode its first).",
            discussion: """
                Asks for the current passcode (never taken from the keyring), shows the passcode policy stored with \
                the configuration, then asks for the new passcode twice. For scripts: --passcode-fd N / \
                --passcode-file FILE give the current passcode, --new-passcode-fd N / --new-passcode-file FILE the new \
                one; one descriptor may give both, on two lines (`--passcode-fd 0 --new-passcode-fd 0`).

                The store's data key is wrapped anew under the new passcode in one atomic step: interrupted at any \
                moment, the store opens with either the old or the new passcode, never neither. The new passcode must \
                meet the policy and differ from the current one. A wrong current passcode counts against the retry \
                limit, as in `restore`.

                Exit codes: 0 changed; 2 a wrong current passcode, or a new one that the policy refuses; 3 no store; 6 \
                the store was deleted or is blocked; 1 the store cannot be read or written.

                Example:
                  activate passcode change --passcode-fd 3 --new-passcode-fd 4 3<old.txt 4<new.txt
                """
        )

        @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
        @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
        @Option(
            name: .customLong("new-passcode-fd"),
            help: ArgumentHelp("Read the new passcode from this open file descriptor (one line).", valueName: "n"))
        var newPasscodeFD: Int32?
        @Option(
            name: .customLong("new-passcode-file"),
            help: ArgumentHelp(
                "Read the new passcode from the first line of this file (only you may read it).", valueName: "file"),
            completion: .file())
        var newPasscodeFile: String?
        @OptionGroup(title: "The secure store") var workFactor: WorkFactorOption
        @OptionGroup var quietOption: QuietOption

        func validate() throws {
            if newPasscodeFD != nil && newPasscodeFile != nil {
                throw ValidationError("give --new-passcode-fd or --new-passcode-file, not both")
            }
        }

        func run() async throws {
            let newPasscode: SecretSource? =
                newPasscodeFD.map(SecretSource.descriptor) ?? newPasscodeFile.map(SecretSource.file)
            var context = OnboardingContext(
                location: storeOptions.location,
                presenter: TerminalPresenter(currentPasscode: passcode.source, newPasscode: newPasscode))
            try await StoreManagerStep(workFactor: workFactor.workFactor).changePasscode(&context)
            Console.note("passcode changed (\(context.location.path))")
        }
    }
}
