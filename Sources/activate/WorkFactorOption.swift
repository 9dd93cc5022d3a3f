import ActivationSecureStore
import ArgumentParser

/// `--work-factor N`: scrypt's cost for a new passcode.
struct WorkFactorOption: ParsableArguments {
    @Option(
        name: .customLong("work-factor"),
        help: ArgumentHelp(
            """
            log2 of scrypt's N for a new passcode, 1 to \(SecureStore.maxWorkFactor); \(SecureStore.defaultWorkFactor) \
            is age's own, about half a second per unlock.
            """,
            valueName: "n"))
    var workFactor = SecureStore.defaultWorkFactor

    func validate() throws {
        guard (1...SecureStore.maxWorkFactor).contains(workFactor) else {
            throw ValidationError("--work-factor takes a number from 1 to \(SecureStore.maxWorkFactor)")
        }
    }
}
