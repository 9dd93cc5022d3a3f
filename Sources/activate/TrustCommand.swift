import ActivationConfiguration
import ArgumentParser
import Foundation

struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Add, remove and list the keys of a trust list.",
        discussion: """
            A trust list is a JSON file of public keys whose AC1 codes apps accept (docs/activation-codes.md). Each \
            change is made under a lock (FILE.lock) and written atomically, so apps and other administrators see the \
            old list or the new one.
            """,
        subcommands: [Add.self, Remove.self, List.self]
    )

    /// Options every trust subcommand takes.
    struct FileOption: ParsableArguments {
        @Option(
            name: .customLong("trust-list"), help: ArgumentHelp("The trust-list file.", valueName: "file"),
            completion: .file())
        var path: String

        func validate() throws {
            if path == FileIO.standardStreamPath { throw ValidationError("--trust-list names a file.") }
        }

        /// Reads the list (an absent file is an empty list when `allowMissing`).
        func read(allowMissing: Bool) throws -> TrustList {
            if allowMissing && !FileIO.exists(path) { return TrustList() }
            return try TrustList(contentsOf: path)
        }

        /// Reads, changes and writes the list while holding its lock.
        func update(_ change: (inout TrustList) throws -> Void) throws {
            try FileIO.withExclusiveLock(path + ".lock") {
                var list = try read(allowMissing: true)
                try change(&list)
                try list.write(to: path)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Trust a public key's AC1 codes (creates the file if needed).",
            discussion: """
                Examples:
                  activate keys trust add admin.pub.pem --trust-list trust.json
                  activate keys trust add new.pub.pem --trust-list trust.json --issuer acme-it --not-before 2027-01-01 \
                --allow-host example.hana.ondemand.com

                A time (<when>) is a date (2027-01-31, midnight UTC), an RFC 3339 time (2027-01-31T12:00:00Z) or a \
                span from now (30d, 12h, 30m).

                Exit codes: 0 added; 1 a file cannot be read or written; 2 the key or list is not usable (a private \
                key, an RSA key, the key is there already); 64 usage error.
                """
        )

        @Argument(
            help: ArgumentHelp("The public key (Ed25519 or P-256, from `activate keys public`).", valueName: "pub.pem"),
            completion: .file())
        var key: String

        @OptionGroup var file: FileOption

        @Option(help: ArgumentHelp("Accept the key's codes only if they name this issuer.", valueName: "id"))
        var issuer: String?

        @Option(
            name: .customLong("allow-host"),
            help: ArgumentHelp(
                "Accept the key's codes only for hosts equal to or under this domain (repeatable).", valueName: "suffix"
            ))
        var allowedHosts: [String] = []

        @Option(
            name: .customLong("not-before"), help: ArgumentHelp("Trust the key from this time on.", valueName: "when"))
        var notBefore: DateArgument?

        @Option(
            name: .customLong("not-after"),
            help: ArgumentHelp("Stop trusting the key after this time.", valueName: "when"))
        var notAfter: DateArgument?

        @OptionGroup var quietOption: QuietOption

        @Flag(help: "Replace the entry if the key is in the list already (to change its issuer, hosts or dates).")
        var replace = false

        func run() async throws {
            let now = Date()
            let entry = try TrustList.Entry(
                key: try VerificationKey(pem: try PolicyOptions.readKey(key), source: key), issuer: issuer,
                notBefore: notBefore?.date(from: now), notAfter: notAfter?.date(from: now),
                allowedHosts: allowedHosts, source: key)
            var count = 0
            try file.update { list in
                do {
                    try list.add(entry, replacing: replace)
                } catch let error as ConfigurationError {
                    throw ConfigurationError(
                        error.code, "\(file.path): \(error.reason)\(replace ? "" : " (--replace updates it)")")
                }
                count = list.entries.count
            }
            Console.print(lines: [entry.keyID])
            Console.note(
                """
                \(file.path): trusts key \(entry.keyID) (\(entry.algorithm.rawValue)); \(count) \
                key\(count == 1 ? "" : "s") in the list
                """
            )
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop trusting a key: every code it signed is refused from now on.",
            discussion:
                """
                Exit codes: 0 removed; 1 a file cannot be read or written; 2 the key is not in the list; 64 usage error.
                """
        )

        @Argument(
            help: ArgumentHelp(
                "The key id (16 hex digits, `activate keys id` or `keys trust list`).", valueName: "key-id"))
        var keyID: String

        @OptionGroup var file: FileOption

        @OptionGroup var quietOption: QuietOption

        func validate() throws {
            guard keyID.count == 16, keyID.allSatisfy(\.isHexDigit) else {
                throw ValidationError("A key id is 16 hex digits, as `activate keys id KEY.pem` prints it.")
            }
        }

        func run() async throws {
            var remaining = 0
            try file.update { list in
                guard list.remove(keyID: keyID) else {
                    throw ConfigurationError(
                        .unknownKey, source: file.path, "the key \(keyID.lowercased()) is not in the trust list")
                }
                remaining = list.entries.count
            }
            Console.note(
                """
                \(file.path): key \(keyID.lowercased()) removed (codes it signed are refused); \(remaining) \
                key\(remaining == 1 ? "" : "s") left
                """
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the keys of a trust list.",
            discussion:
                "Exit codes: 0 shown; 1 the file cannot be read; 2 it is not a valid trust list; 64 usage error."
        )

        @OptionGroup var file: FileOption

        @Flag(help: "Print a JSON array: kid, alg, issuer, notBefore, notAfter, allowedHosts, status.")
        var json = false

        func run() async throws {
            let list = try file.read(allowMissing: false)
            let now = Date()
            func status(_ entry: TrustList.Entry) -> String {
                if let notBefore = entry.notBefore, now < notBefore { return "not yet valid" }
                if let notAfter = entry.notAfter, now > notAfter { return "expired" }
                return "valid"
            }
            if json {
                let value = ConfigurationValue.array(
                    list.entries.map { entry in
                        var object: ConfigurationObject = [
                            "kid": .string(entry.keyID), "alg": .string(entry.algorithm.rawValue),
                        ]
                        if let issuer = entry.issuer { object["issuer"] = .string(issuer) }
                        if let notBefore = entry.notBefore {
                            object["notBefore"] = .string(notBefore.formatted(.iso8601))
                        }
                        if let notAfter = entry.notAfter {
                            object["notAfter"] = .string(notAfter.formatted(.iso8601))
                        }
                        object["allowedHosts"] = .array(entry.allowedHosts.map(ConfigurationValue.string))
                        object["status"] = .string(status(entry))
                        return .object(object)
                    })
                Console.raw(JSONOutput.encode(value) + "\n")
                return
            }
            var lines = [
                """
                key id            alg    issuer          valid from            until                 status \
                        hosts
                """
            ]
            for entry in list.entries {
                func column(_ text: String, _ width: Int) -> String {
                    text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
                }
                lines.append(
                    [
                        column(entry.keyID, 17), column(entry.algorithm.rawValue, 6),
                        column(entry.issuer ?? "-", 15),
                        column(entry.notBefore?.formatted(.iso8601) ?? "-", 21),
                        column(entry.notAfter?.formatted(.iso8601) ?? "-", 21),
                        column(status(entry), 14),
                        entry.allowedHosts.isEmpty ? "any" : entry.allowedHosts.joined(separator: ", "),
                    ]
                    .joined(separator: " "))
            }
            Console.print(lines: lines)
            if list.entries.isEmpty { Console.note("\(file.path): the trust list is empty") }
        }
    }
}
