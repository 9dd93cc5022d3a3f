import ActivationConfiguration
import ArgumentParser
import Foundation

/// The security-policy options shared by `inspect`, `scan` and `generate --config`.
struct PolicyOptions: ParsableArguments {
    @Option(name: .customLong("public-key"), help: ArgumentHelp("A PEM public key that verifies signed codes (repeatable).", valueName: "pem"))
    var publicKeys: [String] = []

    @Option(help: "Whether codes must be signed: required, optional (signed codes must verify) or forbidden.")
    var signature: SignatureRequirement = .optional

    @Option(name: .customLong("allow-host"), help: ArgumentHelp("Accept only hosts equal to or under this domain (repeatable).", valueName: "suffix"))
    var allowedHosts: [String] = []

    @Flag(name: .customLong("allow-http"), help: "Accept http URLs (test servers only).")
    var allowHTTP = false

    func validate() throws {
        for entry in allowedHosts {
            do {
                _ = try CanonicalURL.Host(parsing: entry.trimmingCharacters(in: CharacterSet(charactersIn: ".")))
            } catch let error as ConfigurationError {
                throw ValidationError("--allow-host \(error.reason) (give a domain such as hana.ondemand.com)")
            }
        }
    }

    /// Public-key files are small; anything larger is not a key.
    static let maxKeyBytes = 64 << 10

    /// The policy, with its key files read.
    ///
    /// - Throws: ``ConfigurationError`` when a key file cannot be read or is no public key.
    func policy() throws -> SecurityPolicy {
        let keys = try publicKeys.map { path in
            try VerificationKey(pem: String(decoding: try FileIO.read(path, limit: Self.maxKeyBytes), as: UTF8.self), source: path)
        }
        return SecurityPolicy(allowHTTP: allowHTTP, allowedHosts: allowedHosts, signature: signature, verificationKeys: keys)
    }
}

extension SignatureRequirement: ExpressibleByArgument {}

extension ConfigurationError {
    /// Errors about reading files exit 1; everything else about the input is a rejection (2).
    var exitStatus: Int32 {
        [.fileNotFound, .fileUnreadable, .fileUnwritable, .fileExists].contains(code) ? ExitStatus.failure : ExitStatus.rejected
    }
}
