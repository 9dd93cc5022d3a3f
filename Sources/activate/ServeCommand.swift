import ActivationConfiguration
import ActivationDiscoveryServer
import ArgumentParser
import FileAccess
import Foundation
import NIOCore
import Logging
import SystemPackage

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a discovery service that answers lookups by e-mail domain or onboarding code.",
        discussion: """
            DIR holds configuration documents and a discovery.json:
              {"applications": {"<appID>": {
                 "domains": {"<domain>": "<document file>"},
                 "codes": {"<code>": {"document": "<file>", "expires": "<ISO 8601>"}}}}}
            Every document is checked at start; the server refuses to start on an invalid one.

            It answers the lookup by e-mail domain and by onboarding code:
              GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(
                  AppConfigID='<appID>:<version>',EmailAddress='<email>')
              GET …/getApplicationConfiguration(AppConfigID='…',OnboardingCode='<code>')
            with 200 and the document, 404 unknown, 410 expired code, 400 malformed; GET /health answers 200. Paths are routed in canonical form: repeated slashes collapse, . and .. resolve, %-encoded letters decode; an encoded / or NUL, a malformed %-escape or a byte outside URI characters is 400, a target over 4 KiB 414. The first line on stdout is "listening on http://HOST:PORT"; each request is logged on stderr as method, route (lookup, health or other), status and time: never a path, query, e-mail address or code. SIGINT or SIGTERM stops it cleanly.

            Hostile clients: a request head must be complete within --header-timeout of the connection opening (or of its first byte after a previous answer), else 408 and the connection is closed; a keep-alive connection idle for --idle-timeout is closed; a request must be read and answered within --request-timeout. Beyond --max-connections (lowered to fit the file-descriptor limit), new connections get 503 and are closed. Headers are limited to 16 KiB, bodies to 1 KiB (lookups carry none).

            Example:
              activate serve --configs ./discovery --port 8080
              activate onboard --email someone@example.com --app-id com.example.app \\
                  --discovery http://127.0.0.1:8080

            Exit codes: 0 stopped by a signal; 2 a document or discovery.json is invalid; 1 the folder cannot be read or the port cannot be bound.
            """
    )

    @Option(help: ArgumentHelp("The folder with discovery.json and the documents.", valueName: "dir"), completion: .directory) var configs: String
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port).") var port = 8080
    @Option(name: .customLong("log-level"), help: "trace, debug, info (each request), warning, error.") var logLevel: String = "info"
    @Option(name: .customLong("header-timeout"), help: ArgumentHelp("Seconds to receive a request head.", valueName: "seconds"))
    var headerTimeout: Double = 10
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Seconds an idle connection is kept.", valueName: "seconds"))
    var idleTimeout: Double = 30
    @Option(name: .customLong("request-timeout"), help: ArgumentHelp("Seconds to read and answer a request.", valueName: "seconds"))
    var requestTimeout: Double = 30
    @Option(name: .customLong("max-connections"), help: ArgumentHelp("Connections served at once.", valueName: "n"))
    var maxConnections = 512
    @OptionGroup(title: "Security policy (for the documents served)") var policy: PolicyOptions

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0-65535.") }
        for (name, seconds) in [("header", headerTimeout), ("idle", idleTimeout), ("request", requestTimeout)] where !(0.01...86_400).contains(seconds) {
            throw ValidationError("--\(name)-timeout must be 0.01-86400 seconds.")
        }
        if !(1...1_000_000).contains(maxConnections) { throw ValidationError("--max-connections must be 1-1000000.") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.") }
    }

    func run() async throws {
        let directory: DiscoveryDirectory
        do {
            directory = try DiscoveryDirectory(folder: configs, recognizer: PayloadRecognizer(policy: try policy.policy()))
        } catch let error as ConfigurationError {
            Console.report("not starting: \(error.reason)")
            throw ExitCode(error.exitStatus)
        }
        var logger = Logger(label: "activate-serve") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let limits = DiscoveryServer.Limits(headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout),
                                            requestTimeout: .seconds(requestTimeout), maxConnections: maxConnections)
        let server = DiscoveryServer(directory: directory, host: host, port: port, limits: limits, logger: logger)
        let host = self.host
        do {
            try await server.run { port in
                Console.print("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            Console.report("serve: port \(port) is in use on \(host) (another server listens there); choose another with --port")
            throw ExitCode(ExitStatus.failure)
        } catch let error as IOError where error.errnoCode == EACCES {
            Console.report("serve: port \(port) on \(host) needs privileges this user lacks; choose a port above 1023 with --port")
            throw ExitCode(ExitStatus.failure)
        } catch let error as IOError {
            Console.report("serve: cannot listen on \(host) port \(port): \(FileFailure.describe(Errno(rawValue: error.errnoCode)))")
            throw ExitCode(ExitStatus.failure)
        } catch {
            Console.report("serve: \(error)")
            throw ExitCode(ExitStatus.failure)
        }
    }
}
