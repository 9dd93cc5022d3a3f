import ActivationConfiguration
import ArgumentParser
import Foundation

/// The security-policy options shared by `inspect`, `scan` and `generate --config`.
struct PolicyOptions: ParsableArguments {
    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp("A PEM public key that verifies signed codes (repeatable).", valueName: "pem"),
        completion: .file())
    var publicKeys: [String] = []

    @Option(
        name: .customLong("trust-list"),
        help: ArgumentHelp(
            """
            A trust list (JSON, `activate keys trust`) of the keys whose AC1 codes are accepted (default: \
            $ACTIVATE_TRUST_LIST).
            """,
            valueName: "file"), completion: .file())
    var trustList: String?

    @Option(
        help:
            """
            Whether codes must be signed: required, optional (signed codes must verify) or forbidden (default: \
            required with a trust list, else optional).
            """
    )
    var signature: SignatureRequirement?

    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp("Accept only hosts equal to or under this domain (repeatable).", valueName: "suffix"))
    var allowedHosts: [String] = []

    @Flag(name: .customLong("allow-http"), help: "Accept http URLs (test servers only).")
    var allowHTTP = false

    func validate() throws {
        for entry in allowedHosts {
            do {
                _ = try CanonicalURL.Host(allowListEntry: entry)
            } catch let error as ConfigurationError {
                throw ValidationError("--allow-host \(error.reason) (give a domain such as hana.ondemand.com)")
            }
        }
    }

    /// Public-key files are small; anything larger is not a key.
    static let maxKeyBytes = 64 << 10

    /// The trust list named by --trust-list, else by $ACTIVATE_TRUST_LIST.
    var trustListPath: String? {
        // getenv, not ProcessInfo's dictionary of every variable: `activate scan` asks as it starts.
        trustList ?? getenv("ACTIVATE_TRUST_LIST").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The policy, with its key files and trust list read.
    ///
    /// - Parameter applicationID: the app's id, when the command knows it (AC1 audiences).
    /// - Throws: ``ConfigurationError`` when a key file or the trust list cannot be read or is invalid.
    func policy(applicationID: String? = nil) throws -> SecurityPolicy {
        let keys = try publicKeys.map { path in
            try VerificationKey(pem: try Self.readKey(path), source: path)
        }
        let trust = try trustListPath.map { try TrustList(contentsOf: $0) } ?? TrustList()
        return SecurityPolicy(
            allowHTTP: allowHTTP, allowedHosts: allowedHosts,
            signature: signature ?? (trustListPath == nil ? .optional : .required),
            verificationKeys: keys, trustList: trust, applicationID: applicationID)
    }

    /// Reads a PEM key file (private or public) as text.
    static func readKey(_ path: String) throws -> String {
        String(decoding: try FileIO.read(path, limit: maxKeyBytes), as: UTF8.self)
    }
}

extension SignatureRequirement: ExpressibleByArgument {}
