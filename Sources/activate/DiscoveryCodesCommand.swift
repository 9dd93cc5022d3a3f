import ActivationConfiguration
import ActivationDiscovery
import ActivationDiscoveryProtocol
import ActivationImaging
import ArgumentParser
import FileAccess
import Foundation

extension DiscoveryCommand {
    struct Codes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "codes", abstract: "Issue, list and revoke one-time onboarding codes.",
            subcommands: [Create.self, List.self, Revoke.self])
    }
}

extension DiscoveryCommand.Codes {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Issue onboarding codes for a document; each is shown once, here.",
            discussion: """
                Without --csv or --sheet the codes are printed on stdout. With them, nothing secret is printed: the \
                CSV (id, code, label, document, expires_at) and the sheet (an HTML page, one card per code with its \
                QR, the code to type, the label, server and expiry) are written with mode 0600, never over an existing \
                file unless --force. Both paths are checked before any code is issued; if writing fails anyway, the \
                codes are printed instead, so none is lost.

                Example:
                  activate discovery codes create --server https://discovery.example.com --token-file \
                ~/.activate-token \\
                      --app-id com.example.app --document fieldservice.json --count 50 --expires 14d --csv codes.csv \
                --sheet codes.html
                """)
        @OptionGroup var connection: DiscoveryCommand.Connection
        @OptionGroup var application: DiscoveryCommand.ApplicationOption
        @Option(help: ArgumentHelp("The document the codes look up.", valueName: "name")) var document: String
        @Option(help: ArgumentHelp("How many codes (1-1000).", valueName: "n")) var count = 1
        @Option(
            help: ArgumentHelp(
                "When the codes stop working: a span (7d, 12h, 30m) or a time (at most a year and a day).",
                valueName: "time"))
        var expires = DateArgument(argument: "7d")!
        @Option(help: ArgumentHelp("How many times each code may be used.", valueName: "n")) var uses = 1
        @Option(
            help: ArgumentHelp(
                "A label for the codes (a person, a team, a batch), shown in listings and on the sheet.",
                valueName: "text"))
        var label: String?
        @Option(help: ArgumentHelp("Write the codes to this CSV file.", valueName: "file"), completion: .file())
        var csv: String?
        @Option(
            help: ArgumentHelp("Write a printable HTML sheet of the codes.", valueName: "file"), completion: .file())
        var sheet: String?
        @Flag(help: "Replace existing --csv and --sheet files.") var force = false

        func validate() throws {
            if !CodeOrder.counts.contains(count) {
                throw ValidationError("--count must be \(CodeOrder.counts.lowerBound)-\(CodeOrder.counts.upperBound).")
            }
            if !CodeOrder.usesRange.contains(uses) {
                throw ValidationError(
                    "--uses must be \(CodeOrder.usesRange.lowerBound)-\(CodeOrder.usesRange.upperBound).")
            }
            if csv != nil, csv == sheet { throw ValidationError("--csv and --sheet must be different files.") }
        }

        func run() async throws {
            let client = try connection.client()
            for path in [csv, sheet].compactMap({ $0 }) { try Self.checkWritable(path, replace: force) }
            let now = Date()
            let seconds = Int(expires.date(from: now).timeIntervalSince(now).rounded())
            let order = CodeOrder(document: document, expiresIn: seconds, uses: uses, label: label, count: count)
            let answer = try await client.issueCodes(appID: application.appID, order)
            let codes = answer.codes
            if connection.json && csv == nil && sheet == nil { return DiscoveryCommand.printJSON(answer) }
            do {
                if let csv {
                    try FileIO.write(Array(Self.csv(codes).utf8), to: csv, replace: force, mode: 0o600)
                    Console.note("wrote \(codes.count) codes to \(csv)")
                }
                if let sheet {
                    let host = try await Self.host(of: document, in: application, client: client)
                    try FileIO.write(
                        Array(try Self.sheet(codes, appID: application.appID, host: host).utf8), to: sheet,
                        replace: force, mode: 0o600)
                    Console.note("wrote a sheet of \(codes.count) cards to \(sheet)")
                }
            } catch let error as ConfigurationError {
                Console.report(error)
                Console.report("the codes were issued and are shown only now; here they are:")
                Self.printCodes(codes)
                throw ExitCode(ExitStatus.failure)
            }
            if csv == nil && sheet == nil { Self.printCodes(codes) }
        }

        static func printCodes(_ codes: [IssuedCode]) {
            DiscoveryCommand.printTable(
                ["ID", "CODE", "LABEL", "EXPIRES"],
                codes.map { [String($0.id), $0.code, $0.label ?? "", DiscoveryCommand.time($0.expiresAt)] })
        }

        /// Refuses an output that exists (unless replacing) or whose folder is missing, before any
        /// code is issued.
        static func checkWritable(_ path: String, replace: Bool) throws {
            if FileIO.exists(path) && !replace {
                throw ConfigurationError(.fileExists, source: path, "exists")
            }
            let folder = Files.parentFolder(of: path)
            guard Files.type(of: folder, followLinks: true) == .directory else {
                throw ConfigurationError(.fileUnwritable, source: path, "the folder \(folder) does not exist")
            }
        }

        /// RFC 4180 CSV; a cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) is
        /// prefixed with `'`.
        static func csv(_ codes: [IssuedCode]) -> String {
            func cell(_ text: String) -> String {
                var value = text
                if let first = value.first, "=+-@\t\r".contains(first) { value = "'" + value }
                return value.contains(where: { ",\"\n\r".contains($0) })
                    ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
            }
            let rows = codes.map {
                [String($0.id), $0.code, $0.label ?? "", $0.document, DiscoveryCommand.time($0.expiresAt)].map(cell)
                    .joined(separator: ",")
            }
            return (["id,code,label,document,expires_at"] + rows).joined(separator: "\r\n") + "\r\n"
        }

        /// The document's host as the service summarises it (the sheet's "Server" line).
        static func host(
            of document: String, in application: DiscoveryCommand.ApplicationOption,
            client: DiscoveryAdminClient
        ) async throws -> String {
            let listed = try await client.documents(appID: application.appID).documents.first { $0.name == document }
            return listed?.summary.host ?? "?"
        }

        /// One card per code: its QR (drawn here, by our encoder), the code to type, the label.
        static func sheet(_ codes: [IssuedCode], appID: String, host: String) throws -> String {
            let cards = try codes.map { code in
                let svg = try QRCodeEncoder().encode(Array(code.code.utf8)).svg(scale: 8, margin: 4)
                return CodeSheet.Card(
                    label: code.label ?? "onboarding code \(code.id)",
                    imagePath: "", host: host, appID: appID, keyID: nil, expires: code.expiresAt, svg: svg,
                    typedCode: code.code)
            }
            return try CodeSheet.html(title: "Onboarding codes for \(appID)", cards: cards)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List an application's codes (never the codes themselves), newest first.")
        @OptionGroup var connection: DiscoveryCommand.Connection
        @OptionGroup var application: DiscoveryCommand.ApplicationOption
        @Option(help: ArgumentHelp("Only codes of this status.", valueName: "status")) var status: CodeStatus?

        func run() async throws {
            let answer = try await connection.client().codes(appID: application.appID, status: status)
            if connection.json { return DiscoveryCommand.printJSON(answer) }
            DiscoveryCommand.printTable(
                ["ID", "STATUS", "USES LEFT", "DOCUMENT", "LABEL", "EXPIRES"],
                answer.codes.map {
                    [
                        String($0.id), $0.status.rawValue, String($0.usesLeft), $0.document, $0.label ?? "",
                        DiscoveryCommand.time($0.expiresAt),
                    ]
                })
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke codes by id: their lookups answer 410 revoked from now on.")
        @OptionGroup var connection: DiscoveryCommand.Connection
        @OptionGroup var application: DiscoveryCommand.ApplicationOption
        @Argument(help: ArgumentHelp("The ids of the codes (from `codes list`).", valueName: "id")) var ids: [Int64]

        func validate() throws {
            if ids.isEmpty { throw ValidationError("give the id of at least one code.") }
        }

        func run() async throws {
            let client = try connection.client()
            for id in ids {
                _ = try await client.revokeCode(appID: application.appID, id: id)
                Console.print("revoked \(id)")
            }
        }
    }
}

extension CodeStatus: ExpressibleByArgument {}
