import ActivationConfiguration
import ActivationDiscovery
import ActivationDiscoveryProtocol
import ActivationImaging
import ArgumentParser
import Foundation

/// `activate discovery …`: the admin API of a discovery service (`activate serve --admin-token-file`).
struct DiscoveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discovery",
        abstract:
            "Manage a discovery service: documents, e-mail domains, one-time onboarding codes and client policies.",
        discussion: """
            Speaks the admin API of `activate serve --admin-token-file` with a bearer token from --token-file (a file \
            only you can read; the first line that is not a # comment) or $ACTIVATE_ADMIN_TOKEN. The server comes from \
            --server or $ACTIVATE_DISCOVERY_SERVER: https, or http to a loopback address.

            The onboarding flow:
              activate discovery documents put --app-id com.example.app fieldservice.json
              activate discovery codes create --app-id com.example.app --document fieldservice.json \\
                  --count 20 --label "Field service, Berlin" --csv codes.csv --sheet codes.html
              (the user)  activate onboard --code ABCD-EFGH-JKMN --app-id com.example.app --discovery https://…
              activate discovery codes list --app-id com.example.app --status used

            Client policies (the passcode policy, retry limit, lock timeout, block and wipe periods) are SAP's \
            settingsExchange JSON; the service serves them where SAP's clients ask, and `activate onboard` applies them:
              activate discovery settings put --app-id com.example.app settings.json
              activate discovery settings get --app-id com.example.app > settings.json

            Codes are shown once, when they are made: keep the CSV or print the sheet (one card per code with its QR). \
            Every call is audited on the server (`activate discovery audit`).

            Exit codes: 0 done; 1 a file could not be read or written, or the service could not be reached; 2 the \
            service refused the request (a bad token, an unknown application or document, an invalid document).
            """,
        subcommands: [Applications.self, Documents.self, Domains.self, Codes.self, Settings.self, Audit.self]
    )

    /// Where the service is and the token that opens it.
    struct Connection: ParsableArguments {
        @Option(help: ArgumentHelp("The service's base URL (else $ACTIVATE_DISCOVERY_SERVER).", valueName: "url"))
        var server: String?
        @Option(
            name: .customLong("token-file"),
            help: ArgumentHelp("A file holding the admin token (else $ACTIVATE_ADMIN_TOKEN).", valueName: "file"))
        var tokenFile: String?
        @Flag(help: "Print the service's JSON answer as it is.")
        var json = false

        func client() throws -> DiscoveryAdminClient {
            let environment = ProcessInfo.processInfo.environment
            guard let server = server ?? environment["ACTIVATE_DISCOVERY_SERVER"] else {
                throw ValidationError("give --server URL (or set ACTIVATE_DISCOVERY_SERVER).")
            }
            let token: String
            if let tokenFile {
                token = try DiscoveryAdminClient.token(file: tokenFile)
            } else if let fromEnvironment = environment["ACTIVATE_ADMIN_TOKEN"], !fromEnvironment.isEmpty {
                token = fromEnvironment
            } else {
                throw ValidationError("give --token-file FILE (or set ACTIVATE_ADMIN_TOKEN).")
            }
            return try DiscoveryAdminClient(serviceURL: server, token: token)
        }
    }

    /// `--app-id`, and the admin paths below that application.
    struct ApplicationOption: ParsableArguments {
        @Option(name: .customLong("app-id"), help: ArgumentHelp("The application.", valueName: "id")) var appID: String

    }

    /// The answer as JSON on stdout (`--json`), as the service sent it.
    static func printJSON(_ value: some Encodable) {
        Console.raw(Array((AdminJSON.text(value) + "\n").utf8))
    }

    /// A time as the service writes it.
    static func time(_ date: Date?) -> String {
        date?.formatted(.iso8601) ?? ""
    }

    /// Rows of text, each column as wide as its widest cell.
    static func printTable(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let format: ([String]) -> String = { cells in
            cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                separator: "  "
            )
            .trimmingCharacters(in: .whitespaces)
        }
        Console.print(lines: [format(header)] + rows.map(format))
    }

}

extension DiscoveryCommand {
    struct Applications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "applications",
            abstract:
                """
                List the applications with their documents, domains, active codes and whether they have client policies.
                """
        )
        @OptionGroup var connection: Connection

        func run() async throws {
            let answer = try await connection.client().applications()
            if connection.json { return DiscoveryCommand.printJSON(answer) }
            DiscoveryCommand.printTable(
                ["APPLICATION", "DOCUMENTS", "DOMAINS", "ACTIVE CODES", "POLICIES"],
                answer.applications.map {
                    [
                        $0.appID, String($0.documents), String($0.domains), String($0.activeCodes),
                        $0.settings ? "yes" : "no",
                    ]
                })
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit", abstract: "Show the audit trail, newest first.")
        @OptionGroup var connection: Connection
        @Option(help: ArgumentHelp("From this time on (default: the last day).", valueName: "time")) var since:
            DateArgument?

        func run() async throws {
            let now = Date()
            // A span counts back from now here: `--since 7d` is the last seven days.
            let from: Date? = since.map { argument in
                if case .fromNow(let span) = argument.value { return now.addingTimeInterval(-span) }
                return argument.date(from: now)
            }
            let answer = try await connection.client().audit(since: from)
            if connection.json { return DiscoveryCommand.printJSON(answer) }
            DiscoveryCommand.printTable(
                ["TIME", "ACTOR", "ACTION", "APPLICATION", "SUBJECT", "OUTCOME"],
                answer.entries.map {
                    [
                        DiscoveryCommand.time($0.at), $0.actor, $0.action, $0.appID ?? "", $0.subject ?? "",
                        $0.outcome,
                    ]
                })
        }
    }

    struct Documents: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "documents", abstract: "Upload and list configuration documents.",
            subcommands: [Put.self, List.self])

        struct Put: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "put",
                abstract: "Create or replace a document (checked by the service as `activate inspect` checks it).")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption
            @Option(
                help: ArgumentHelp("The document's name on the service (default: the file's name).", valueName: "name"))
            var name: String?
            @Argument(help: ArgumentHelp("The configuration document (JSON).", valueName: "file"), completion: .file())
            var file: String

            func run() async throws {
                let bytes = try FileIO.read(file, limit: ConfigurationLimits.default.maxDocumentBytes)
                let name = self.name ?? URL(fileURLWithPath: file).lastPathComponent
                let answer = try await connection.client().putDocument(
                    appID: application.appID, name: name, json: bytes)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.print("stored \(name) for \(application.appID): connects to \(answer.summary.host ?? "?")")
                for warning in answer.summary.warnings { Console.note("warning: \(warning)") }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List an application's documents: host, sign-in, warnings.")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption

            func run() async throws {
                let answer = try await connection.client().documents(appID: application.appID)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                DiscoveryCommand.printTable(
                    ["NAME", "HOST", "AUTH", "UPDATED", "WARNINGS"],
                    answer.documents.map { document in
                        [
                            document.name, document.summary.host ?? "",
                            document.summary.auth.joined(separator: ","),
                            DiscoveryCommand.time(document.updatedAt), String(document.summary.warnings.count),
                        ]
                    })
            }
        }
    }

    struct Domains: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "domains", abstract: "Map e-mail domains to documents.",
            subcommands: [Put.self, Delete.self, List.self])

        struct Put: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "put", abstract: "Serve a document to the addresses of a domain (and its subdomains).")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption
            @Option(help: ArgumentHelp("The document to serve.", valueName: "name")) var document: String
            @Argument(help: ArgumentHelp("The e-mail domain, e.g. example.com.", valueName: "domain")) var domain:
                String

            func run() async throws {
                let answer = try await connection.client().putDomain(
                    appID: application.appID, domain: domain, document: document)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.print("\(domain.lowercased()) → \(document)")
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "delete", abstract: "Stop serving a domain.")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption
            @Argument(help: ArgumentHelp("The e-mail domain.", valueName: "domain")) var domain: String

            func run() async throws {
                let answer = try await connection.client().deleteDomain(appID: application.appID, domain: domain)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.print("\(domain.lowercased()) removed")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List an application's domains.")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption

            func run() async throws {
                let answer = try await connection.client().domains(appID: application.appID)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                DiscoveryCommand.printTable(
                    ["DOMAIN", "DOCUMENT"], answer.domains.map { [$0.domain, $0.document] })
            }
        }
    }
}

extension DiscoveryCommand {
    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Set, show and remove an application's client policies (SAP's settingsExchange JSON).",
            discussion: """
                The service serves them at SAP's path, \
                /mobileservices/application/ID/storage/v1/runtime/application/ID/global/mobileservices/\
                settingsExchange, where `activate onboard --discovery URL` and SAP's clients read them.
                """,
            subcommands: [Put.self, Get.self, Delete.self])

        struct Put: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "put",
                abstract: "Create or replace the client policies (checked here, then by the service).")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption
            @Argument(
                help: ArgumentHelp(
                    "The settingsExchange document (JSON), as SAP's mobile services send it.", valueName: "file"),
                completion: .file())
            var file: String

            func run() async throws {
                let bytes = try FileIO.read(file, limit: ClientPolicies.maxDocumentBytes)
                // Checked here first, so that a mistake names the file and key path.
                let policies = try ClientPolicies(json: bytes, source: file)
                let answer = try await connection.client().putSettings(appID: application.appID, json: bytes)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.print("stored the client policies of \(application.appID)")
                Console.print(lines: Settings.describe(policies))
            }
        }

        struct Get: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "get",
                abstract:
                    """
                    Print the client policies as settingsExchange JSON (the input of `settings put` and `onboard \
                    --policy`).
                    """
            )
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption

            func run() async throws {
                let answer = try await connection.client().settings(appID: application.appID)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.raw(Array((Settings.pretty(answer.settings) + "\n").utf8))
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "delete",
                abstract: "Remove the client policies: onboarding then applies the server's or SAP's defaults.")
            @OptionGroup var connection: Connection
            @OptionGroup var application: DiscoveryCommand.ApplicationOption

            func run() async throws {
                let answer = try await connection.client().deleteSettings(appID: application.appID)
                if connection.json { return DiscoveryCommand.printJSON(answer) }
                Console.print("removed the client policies of \(application.appID)")
            }
        }

        /// The policies as indented JSON, keys sorted: what `settings put` and `onboard --policy` read.
        static func pretty(_ settings: JSONValue) -> String {
            let encoder = AdminJSON.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            return (try? String(decoding: encoder.encode(settings), as: UTF8.self)) ?? settings.jsonText
        }

        /// The policies, for people: the passcode rules, then blocking and wiping.
        static func describe(_ policies: ClientPolicies) -> [String] {
            var lines =
                policies.passcode.isEnabled
                ? NewPasscode.describe(policies.passcode)
                : ["No passcode is required: a device secret protects the store."]
            let blocking = policies.blockWiping
            if blocking.isEnabled && (blocking.blockAfterDays > 0 || blocking.wipeAfterDays > 0) {
                var parts: [String] = []
                if blocking.blockAfterDays > 0 {
                    parts.append("blocked after \(blocking.blockAfterDays) days without server contact")
                }
                if blocking.wipeAfterDays > 0 { parts.append("wiped after \(blocking.wipeAfterDays) days") }
                lines.append("Block and wipe: " + parts.joined(separator: ", ") + ".")
            } else {
                lines.append("Block and wipe: off.")
            }
            return lines
        }
    }
}
