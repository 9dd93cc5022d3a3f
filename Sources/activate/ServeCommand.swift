import ActivationConfiguration
import ActivationDiscoveryServer
import ActivationImaging
import ArgumentParser
import FileAccess
import Foundation
import Logging
import NIOCore
import SystemPackage

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            """
            Run a discovery service: lookups by e-mail domain or one-time onboarding code, an admin API and a console.
            """,
        discussion: """
            Lookups come from a database (the default: sqlite:./activate-discovery.sqlite), or with --database none \
            from the folder --configs as it is. A folder given with a database is imported at start: its documents \
            replace those of the same name, its domains are remapped, its codes are added once. Every document is \
            checked first; the server refuses to start on an invalid one.

            --configs DIR holds configuration documents and a discovery.json:
              {"applications": {"<appID>": {
                 "domains": {"<domain>": "<document file>"},
                 "codes": {"<code>": {"document": "<file>", "expires": "<ISO 8601>"}}}}}

            It answers the lookup by e-mail domain and by onboarding code:
              GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(
                  AppConfigID='<appID>:<version>',EmailAddress='<email>')
              GET …/getApplicationConfiguration(AppConfigID='…',OnboardingCode='<code>')
            with 200 and the document; 404 unknown; 410 {"error":{"code":"expired"|"used"|"revoked"}} for a code that \
            existed; 429 with Retry-After past the guessing limits; 400 malformed. A code is used up by its lookup, \
            exactly once across all instances on one database. Codes are typed as people type them: case, dashes and \
            spaces do not matter, I and L read as 1, O as 0.

            Guessing: failed code lookups (and wrong admin tokens) are limited per client address (--client-limit) and \
            per application (--app-limit); on one database the limits hold across instances. Behind a proxy, \
            --trust-proxy CIDR makes its X-Forwarded-For name the client.

            Admin API (JSON under /admin/v1, Authorization: Bearer <token>) and the console at /admin/ are on with \
            --admin-token-file FILE (one token per line, at least 20 characters, the file readable by its owner only); \
            every call is audited. The `activate discovery` commands speak the API.

            Operations: GET /health (alive), /ready (the database answers and takes writes), /metrics (Prometheus \
            text), /openapi.yaml (the OpenAPI description of the whole HTTP interface). The first line on stdout is \
            "listening on http://HOST:PORT"; each request is logged on stderr as method, route, status, time and \
            request id (as JSON lines with --log-format json): never a path, query, e-mail address, code or token. \
            SIGINT or SIGTERM finishes the requests under way, then exits 0.

            Hostile clients: a request head must be complete within --header-timeout of the connection opening (or of \
            its first byte after a previous answer), else 408 and the connection is closed; a keep-alive connection \
            idle for --idle-timeout is closed; a request must be read and answered within --request-timeout. Beyond \
            --max-connections (lowered to fit the file-descriptor limit), new connections get 503 and are closed. \
            Paths are routed in canonical form; a target over 4 KiB is 414, headers are limited to 16 KiB, lookups \
            carry no body, admin bodies at most 64 KiB.

            Examples:
              activate serve --configs ./discovery --port 8080
              activate serve --database none --configs ./discovery     (read-only, as files)
              activate onboard --email someone@example.com --app-id com.example.app \\
                  --discovery http://127.0.0.1:8080

            Two instances on one PostgreSQL (each with the same --secret-file):
              export ACTIVATE_DATABASE_PASSWORD=…
              activate serve --database postgres://activate@db.example.com/discovery \\
                  --secret-file /etc/activate/code-secret --admin-token-file /etc/activate/admin-tokens \\
                  --host 0.0.0.0 --port 8080 --trust-proxy 10.0.0.0/8

            Exit codes: 0 stopped by a signal; 2 a document, discovery.json, token file or secret is invalid; 1 a file \
            or the database cannot be read, or the port cannot be bound.
            """
    )

    @Option(
        help: ArgumentHelp(
            """
            The folder with discovery.json and the documents (imported into the database; served as files with \
            --database none).
            """,
            valueName: "dir"), completion: .directory) var configs: String?
    @Option(help: ArgumentHelp("sqlite:PATH, postgres://user[:password]@host[:port]/db, or none.", valueName: "url"))
    var database = DiscoveryService.Configuration.Store.defaultURL
    @Option(
        name: .customLong("database-password-file"),
        help: ArgumentHelp(
            "A file with the database password (else $ACTIVATE_DATABASE_PASSWORD or the URL).", valueName: "file"))
    var databasePasswordFile: String?
    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp(
            "The secret codes are hashed with; made (mode 0600) when missing. Instances on one database need the same.",
            valueName: "file"))
    var secretFile = Self.defaults.secretFile
    @Option(
        name: .customLong("admin-token-file"),
        help: ArgumentHelp("Bearer tokens of the admin API and console; without it both are off.", valueName: "file"))
    var adminTokenFile: String?
    @Option(
        help: ArgumentHelp(
            "Issue codes of this many digits (8 for SAP-style apps) instead of 12 Base32 characters.", valueName: "n"))
    var digits: Int?
    @Option(
        name: .customLong("client-limit"),
        help: ArgumentHelp("Failed code lookups per client address: RATE[,burst=N] or off.", valueName: "rate"))
    var clientLimit = Self.defaults.clientLimit?.description ?? "off"
    @Option(
        name: .customLong("app-limit"),
        help: ArgumentHelp("Failed code lookups per application: RATE[,burst=N] or off.", valueName: "rate"))
    var appLimit = Self.defaults.applicationLimit?.description ?? "off"
    @Option(
        name: .customLong("trust-proxy"),
        help: ArgumentHelp("A proxy (CIDR) whose X-Forwarded-For names the client; repeatable.", valueName: "cidr"))
    var trustProxy: [String] = []
    @Option(help: "The address to listen on.") var host = Self.defaults.host
    @Option(help: "The port (0: any free port).") var port = Self.defaults.port
    @Option(name: .customLong("log-level"), help: "trace, debug, info (each request), warning, error.") var logLevel:
        String = "info"
    @Option(name: .customLong("log-format"), help: "text, or json (one JSON object a line).") var logFormat = "text"
    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp("Seconds to receive a request head.", valueName: "seconds"))
    var headerTimeout = Self.defaults.limits.headerTimeout.inMilliseconds / 1000
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds an idle connection is kept.", valueName: "seconds"))
    var idleTimeout = Self.defaults.limits.idleTimeout.inMilliseconds / 1000
    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp("Seconds to read and answer a request.", valueName: "seconds"))
    var requestTimeout = Self.defaults.limits.requestTimeout.inMilliseconds / 1000
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections served at once.", valueName: "n"))
    var maxConnections = Self.defaults.limits.maxConnections
    @OptionGroup(title: "Security policy (for the documents served)") var policy: PolicyOptions

    /// The service's own defaults, which the options show and start from: spelled once, in the library.
    static let defaults = DiscoveryService.Configuration(store: .folder)

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0-65535.") }
        for (name, seconds) in [("header", headerTimeout), ("idle", idleTimeout), ("request", requestTimeout)]
        where !(0.01...86_400).contains(seconds) {
            throw ValidationError("--\(name)-timeout must be 0.01-86400 seconds.")
        }
        if !(1...1_000_000).contains(maxConnections) { throw ValidationError("--max-connections must be 1-1000000.") }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        if !["text", "json"].contains(logFormat) { throw ValidationError("--log-format must be text or json.") }
        if database == "none" && configs == nil {
            throw ValidationError("--database none serves the folder of --configs: give --configs DIR.")
        }
        if let digits, !(6...20).contains(digits) {
            throw ValidationError("--digits must be 6-20 (8 is SAP's length).")
        }
        for (name, value) in [("client", clientLimit), ("app", appLimit)]
        where value != "off" && RateLimit(parsing: value) == nil {
            throw ValidationError("--\(name)-limit must be RATE[,burst=N] (10/min, 2/s, 100/hour) or off.")
        }
        for cidr in trustProxy where IPNetwork(cidr) == nil {
            throw ValidationError("--trust-proxy \(cidr) is not an address or CIDR network (10.0.0.0/8, ::1).")
        }
    }

    func run() async throws {
        let service: DiscoveryService
        do {
            service = DiscoveryService(try configuration())
        } catch {
            throw Self.notStarting(error)
        }
        let host = self.host
        do {
            try await service.run { port in
                Console.print("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            }
        } catch let error as ConfigurationError {
            throw Self.notStarting(error)
        } catch let error as DiscoveryServiceError {
            throw Self.notStarting(error)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            Console.report(
                "serve: port \(port) is in use on \(host) (another server listens there); choose another with --port")
            throw ExitCode(ExitStatus.failure)
        } catch let error as IOError where error.errnoCode == EACCES {
            Console.report(
                "serve: port \(port) on \(host) needs privileges this user lacks; choose a port above 1023 with --port")
            throw ExitCode(ExitStatus.failure)
        } catch let error as IOError {
            Console.report(
                """
                serve: cannot listen on \(host) port \(port): \(FileFailure.describe(Errno(rawValue: error.errnoCode)))
                """
            )
            throw ExitCode(ExitStatus.failure)
        } catch {
            Console.report("serve: \(error)")
            throw ExitCode(ExitStatus.failure)
        }
    }

    /// Why the service did not start: its reason after `not starting: `, with the status and
    /// advice of ``ErrorReport``.
    static func notStarting(_ error: any Error) -> any Error {
        guard var report = ErrorReport(error) else { return error }
        report.message = "not starting: \(report.message)"
        return report.exit()
    }

    func makeLogger() -> Logger {
        let json = logFormat == "json"
        var logger = Logger(label: "activate-serve") {
            json ? JSONLogHandler(label: $0) as any LogHandler : StreamLogHandler.standardError(label: $0)
        }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        return logger
    }

    /// The service the options describe; the files it names (tokens, database password) read here.
    func configuration() throws -> DiscoveryService.Configuration {
        let password =
            try databasePasswordFile.map {
                String(
                    decoding: try FileIO.readSecret($0, limit: 4096, what: "the database password file"), as: UTF8.self
                )
                .trimmingCharacters(in: .newlines)
            } ?? ProcessInfo.processInfo.environment["ACTIVATE_DATABASE_PASSWORD"]
        var configuration = DiscoveryService.Configuration(
            store: try .init(url: database, password: password), logger: makeLogger())
        configuration.folder = configs
        configuration.secretFile = secretFile
        configuration.adminTokens = try adminTokenFile.map { try AdminTokens(file: $0) }
        configuration.codeDigits = digits
        configuration.clientLimit = RateLimit(parsing: clientLimit)
        configuration.applicationLimit = RateLimit(parsing: appLimit)
        configuration.trustedProxies = trustProxy.compactMap(IPNetwork.init)
        configuration.policy = try policy.policy()
        configuration.host = host
        configuration.port = port
        configuration.limits = DiscoveryServer.Limits(
            headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout),
            requestTimeout: .seconds(requestTimeout), maxConnections: maxConnections)
        configuration.qrSVG = Self.qrSVG
        return configuration
    }

    /// A code's QR as SVG, for the console (nil if it cannot be drawn).
    @Sendable static func qrSVG(_ text: String) -> String? {
        try? QRCodeEncoder().encode(Array(text.utf8)).svg(scale: 4, margin: 4)
    }
}
