import ArgumentParser

/// `--credentials-file F` / `--credentials-fd N`: the credentials the configuration signs in with,
/// as JSON, for scripts; else asked on the terminal.
struct CredentialOptions: ParsableArguments {
    @Option(
        name: .customLong("credentials-file"),
        help: ArgumentHelp(
            "Credentials as JSON, {\"user\": …, \"password\": …} or {\"apiKey\": …}, in a file only you may read.",
            valueName: "file"),
        completion: .file())
    var credentialsFile: String?
    @Option(
        name: .customLong("credentials-fd"),
        help: ArgumentHelp("Credentials as JSON from this open file descriptor (read to its end).", valueName: "n"))
    var credentialsFD: Int32?

    func validate() throws {
        if credentialsFile != nil && credentialsFD != nil {
            throw ValidationError("give --credentials-file or --credentials-fd, not both")
        }
    }

    /// The descriptor or file the credentials come from, or `nil` for the terminal.
    var source: SecretSource? {
        if let credentialsFD { return .descriptor(credentialsFD) }
        return credentialsFile.map(SecretSource.file)
    }
}
