import ActivationConfiguration
import ActivationSecureStore
import ArgumentParser
import Foundation

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete the secure store and everything in it.",
        discussion: """
            Deletes the store, its state file (the count of wrong passcodes), its device secret, the key kept in the kernel keyring, and a plaintext configuration of an earlier version; nothing else. No passcode is asked: whoever can delete the files can do this anyway.

            Idempotent: exits 0 whether or not a store was there; 1 if something cannot be removed.
            """
    )

    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let location = storeOptions.location
        do {
            // A plaintext store of an earlier version first: at the store's own path, the secure
            // store's siblings then go with it.
            var removed = try location.plaintextStore()?.remove() ?? false
            removed = try SecureStore.delete(at: location) || removed
            Console.note(removed ? "removed the store \(location.path) and its state" : "nothing to remove (\(location.path))")
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(ExitStatus.failure)
        }
    }
}
