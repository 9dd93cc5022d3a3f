import ActivationConfiguration
import ArgumentParser
import Foundation

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove the stored configuration, and nothing else.",
        discussion: "Idempotent: exits 0 whether or not a configuration was stored; 1 if it cannot be removed."
    )

    @Option(help: ArgumentHelp("Where the configuration is stored.", valueName: "path"), completion: .file()) var store: String?
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let store = FileConfigurationStore(path: self.store ?? FileConfigurationStore.defaultPath())
        do {
            let removed = try store.remove()
            Console.note(removed ? "removed \(store.path)" : "nothing to remove (\(store.path))")
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(ExitStatus.failure)
        }
    }
}
