import ActivationConfiguration
import ActivationSecureStore
import ArgumentParser
import Foundation

/// `--store PATH`: where the secure store is (default `$XDG_CONFIG_HOME/activate/store.age`).
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The secure store (default: $XDG_CONFIG_HOME/activate/store.age, or ~/.config/activate/store.age).", valueName: "path"),
            completion: .file())
    var store: String?

    var location: SecureStoreLocation { SecureStoreLocation(path: store ?? SecureStoreLocation.defaultPath()) }
}

/// `--policy FILE`: client policies as SAP's `settingsExchange` JSON.
struct ClientPolicyOptions: ParsableArguments {
    @Option(name: .customLong("policy"),
            help: ArgumentHelp("Client policies: a settingsExchange JSON file as the mobile services server sends it (default: SAP's defaults).", valueName: "file"),
            completion: .file())
    var policyFile: String?

    /// Whether --policy was given.
    var isGiven: Bool { policyFile != nil }

    @OptionGroup var workFactorOption: WorkFactorOption
    var workFactor: Int { workFactorOption.workFactor }

    /// The policies of --policy, or SAP's defaults.
    func policies() throws -> ClientPolicies {
        guard let policyFile else { return .default }
        return try ClientPolicies(json: try FileIO.read(policyFile, limit: ClientPolicies.maxDocumentBytes), source: policyFile)
    }
}

/// `--work-factor N`: scrypt's cost for a new passcode.
struct WorkFactorOption: ParsableArguments {
    @Option(name: .customLong("work-factor"),
            help: ArgumentHelp("log2 of scrypt's N for a new passcode, 1 to \(SecureStore.maxWorkFactor); \(SecureStore.defaultWorkFactor) is age's own, about half a second per unlock.",
                               valueName: "n"))
    var workFactor = SecureStore.defaultWorkFactor

    func validate() throws {
        guard (1...SecureStore.maxWorkFactor).contains(workFactor) else {
            throw ValidationError("--work-factor takes a number from 1 to \(SecureStore.maxWorkFactor)")
        }
    }
}

/// Moving a plaintext store of an earlier version into the secure store, the user told.
enum PlaintextMigration {
    /// `passcode` gives the new store's passcode under the policies (`nil`: a device secret).
    static func run(_ plaintext: FileConfigurationStore, into location: SecureStoreLocation, policies: ClientPolicies, workFactor: Int,
                    passcode: (ClientPolicies) throws -> Passcode?) throws -> SecureStore {
        Console.note("A plaintext configuration of an earlier version is at \(plaintext.path); it moves into the secure store \(location.path).")
        return try SecureStore.migrate(plaintext, into: location, clientPolicies: policies, passcode: try passcode(policies), workFactor: workFactor)
    }
}

/// Opening the store from the command line: the keyring or device secret first, then the passcode
/// from --passcode-fd/--passcode-file, else asked on the terminal, up to three times.
enum StoreAccess {
    /// The opened store, or `nil` when there is none. Wrong passcodes on the terminal are reported
    /// (with the tries left) and asked again; everything else is thrown.
    static func open(_ location: SecureStoreLocation, passcode options: PasscodeOptions, useKeyring: Bool = true,
                     allowExpiredPasscode: Bool = false, allowBlocked: Bool = false) throws -> SecureStore? {
        let openOptions = SecureStore.OpenOptions(useKeyring: useKeyring, allowExpiredPasscode: allowExpiredPasscode, allowBlocked: allowBlocked)
        if options.isGiven {
            return try SecureStore.open(at: location, passcode: try options.given(), options: openOptions)
        }
        do {
            return try SecureStore.open(at: location, passcode: nil, options: openOptions)
        } catch let error as ConfigurationError where error.code == .passcodeRequired && SecretInput.hasTerminal {
            for attempt in 1...3 {
                guard let typed = SecretInput.ask("Passcode for \(location.path): ") else { break }
                // Enter alone is no try.
                if typed.isEmpty { continue }
                do {
                    return try SecureStore.open(at: location, passcode: Passcode(typed), options: openOptions)
                } catch let error as ConfigurationError where error.code == .wrongPasscode && attempt < 3 {
                    Console.report(error)
                }
            }
            throw error
        }
    }
}
