import ActivationOnboarding
import ArgumentParser

struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the secure store now: forget its key kept in the kernel keyring.",
        discussion: """
            After a passcode unlock, the store's key stays in your kernel keyring for the passcode policy's lock \
            timeout (passwordPolicyLockTimeout, 300 s by default), so that the next commands do not ask again, as sudo \
            does. `activate lock` forgets it at once; the next `restore` asks for the passcode.

            Exits 0 whether or not the store was unlocked.
            """
    )

    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let context = OnboardingContext(location: storeOptions.location, presenter: TerminalPresenter())
        let path = context.location.path
        Console.note(StoreManagerStep().lock(context) ? "locked \(path)" : "\(path) was not unlocked")
    }
}
