import ActivationConfiguration
import ArgumentParser
import Foundation

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make signing keys and keep the trust list that verifies AC1 codes.",
        discussion: """
            An administrator signs activation codes with a private key and hands apps a trust list of the public keys \
            they accept:

              activate keys create --out admin.pem                         # prints the key id
              activate keys public admin.pem --out admin.pub.pem
              activate keys trust add admin.pub.pem --trust-list trust.json --issuer acme-it --allow-host \
            example.hana.ondemand.com
              activate generate --config config.json --compact --sign admin.pem --issuer acme-it -o code.png
              activate scan code.png --trust-list trust.json

            Rotate a key by adding the new one (with --not-before) while the old one still has time left \
            (--not-after), then remove the old one: `activate keys trust remove KEYID --trust-list trust.json` revokes \
            every code it signed.

            A key id is the first 8 bytes of SHA-256 over the public key's SubjectPublicKeyInfo, as 16 hex digits.
            """,
        subcommands: [CreateKey.self, PublicKey.self, KeyIdentifier.self, TrustCommand.self]
    )
}

extension KeysCommand {
    struct CreateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a new private key (PKCS #8 PEM, file mode 0600) and print its key id.",
            discussion: """
                Ed25519 (the default) gives the smallest codes; P-256 (ES256) is there for signers that need a NIST \
                curve. The file is written atomically and never replaces an existing file without --force.

                Exit codes: 0 written; 1 the file exists or cannot be written; 64 usage error.
                """
        )

        @Option(help: ArgumentHelp("Where to write the private key.", valueName: "key.pem"), completion: .file())
        var out: String

        @OptionGroup var quietOption: QuietOption

        @Option(help: "The key type: ed25519 or p256.")
        var algorithm: SigningKey.Kind = .ed25519

        @Flag(help: "Replace the file if it exists.")
        var force = false

        func validate() throws {
            if out == FileIO.standardStreamPath {
                throw ValidationError("A private key is written to a file, never to standard output.")
            }
        }

        func run() async throws {
            let key = SigningKey(generating: algorithm)
            try FileIO.write(Array(key.pemRepresentation.utf8), to: out, replace: force, mode: 0o600)
            Console.print(lines: [key.keyID])
            Console.note(
                """
                wrote \(out): \(key.verificationKey.kind) private key \(key.keyID) (keep it secret); its public \
                key: activate keys public \(out)
                """
            )
        }
    }

    struct PublicKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "public",
            abstract: "Print or write the public key of a private key (SubjectPublicKeyInfo PEM).",
            discussion:
                """
                Exit codes: 0 done; 1 a file cannot be read or written; 2 the file is no usable private key; 64 usage \
                error.
                """
        )

        @Argument(help: ArgumentHelp("The private key.", valueName: "key.pem"), completion: .file())
        var key: String

        @Option(
            help: ArgumentHelp("Write the public key here instead of standard output.", valueName: "pub.pem"),
            completion: .file())
        var out: String?

        @OptionGroup var quietOption: QuietOption

        @Flag(help: "Replace the output file if it exists.")
        var force = false

        func run() async throws {
            let signing = try SigningKey(pem: try PolicyOptions.readKey(key), source: key)
            let pem = signing.verificationKey.pemRepresentation
            if let out {
                try FileIO.write(Array(pem.utf8), to: out, replace: force)
                Console.note("wrote \(out): \(signing.verificationKey.kind) public key \(signing.keyID)")
            } else {
                Console.raw(pem)
            }
        }
    }

    struct KeyIdentifier: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "id",
            abstract: "Print the key id of a private or public key.",
            discussion: "Exit codes: 0 printed; 1 the file cannot be read; 2 the file is no usable key; 64 usage error."
        )

        @Argument(help: ArgumentHelp("A PEM private or public key.", valueName: "pem"), completion: .file())
        var key: String

        func run() async throws {
            let pem = try PolicyOptions.readKey(key)
            let id: String
            if let signing = try? SigningKey(pem: pem, source: key) {
                id = signing.keyID
            } else {
                id = try VerificationKey(pem: pem, source: key).keyID
            }
            Console.print(lines: [id])
        }
    }
}

extension SigningKey.Kind: ExpressibleByArgument {}
