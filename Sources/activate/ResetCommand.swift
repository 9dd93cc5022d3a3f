import ActivationConfiguration
import ActivationSecureStore
import ArgumentParser
import Foundation

struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete the secure store and everything in it.",
        discussion: """
            Deletes the store, its state file (the count of wrong passcodes), its device secret, the key kept in the kernel keyring, and a plaintext configuration of an earlier version; nothing else. A file is taken for a store only by its contents: a secure store by its age header line, a plaintext configuration by its stored form; any other file at --store is refused by name and left as it is (exit 1). No passcode is asked: whoever can delete the files can do this anyway.

            Idempotent: exits 0 whether or not a store was there; 1 if something cannot be removed.
            """
    )

    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let location = storeOptions.location
        do {
            // A plaintext store of an earlier version at the store's own path goes first, so that
            // the secure store's siblings then go with it; anything at the path that is neither
            // store is refused before a file is removed.
            let plaintext = location.plaintextStore()
            var removed = try plaintext.map { $0.path == location.path ? try $0.remove() : false } ?? false
            removed = try SecureStore.delete(at: location) || removed
            if let plaintext, plaintext.path != location.path { removed = try plaintext.remove() || removed }
            Console.note(removed ? "removed the store \(location.path) and its state" : "nothing to remove (\(location.path))")
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(ExitStatus.failure)
        }
    }
}
