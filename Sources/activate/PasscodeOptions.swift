import ArgumentParser

/// `--passcode-fd N` / `--passcode-file F`: the passcode of the store, for scripts and tests.
struct PasscodeOptions: ParsableArguments {
    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp(
            "Read the passcode from this open file descriptor (one line), not the terminal.", valueName: "n"))
    var passcodeFD: Int32?
    @Option(
        name: .customLong("passcode-file"),
        help: ArgumentHelp(
            "Read the passcode from the first line of this file (only you may read it).", valueName: "file"),
        completion: .file())
    var passcodeFile: String?

    func validate() throws {
        if passcodeFD != nil && passcodeFile != nil {
            throw ValidationError("give --passcode-fd or --passcode-file, not both")
        }
        if let passcodeFD, passcodeFD < 0 { throw ValidationError("--passcode-fd takes a file descriptor (0 or more)") }
    }

    /// Whether the passcode comes from a descriptor or file (no question on the terminal).
    var isGiven: Bool { source != nil }

    /// The descriptor or file the passcode comes from, or `nil` for the terminal.
    var source: SecretSource? {
        if let passcodeFD { return .descriptor(passcodeFD) }
        return passcodeFile.map(SecretSource.file)
    }
}
