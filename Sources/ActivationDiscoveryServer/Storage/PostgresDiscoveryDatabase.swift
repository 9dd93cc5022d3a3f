import ActivationConfiguration
import Foundation
import Logging
import NIOSSL
import PostgresKit

/// The shared database: PostgreSQL (`--database postgres://user[:password]@host[:port]/db`), which
/// several service instances use at once.
///
/// The password comes from the URL or, kept out of command lines, from the caller (the
/// environment or a file); it never appears in a message. Connections to a loopback address are
/// plain; to any other host they require TLS (`?sslmode=disable` allows plain, `?sslmode=require`
/// is the default). A wrong password is reported at once: the pool itself would retry forever.
package final class PostgresDiscoveryDatabase: DiscoveryDatabase {
    package var dialect: String { "postgresql" }
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    /// The URL as messages show it: without the password.
    package let shown: String
    /// The longest a caller waits for a connection (``DatabaseWait/lease``).
    private let lease: Duration

    private init(client: PostgresClient, shown: String, lease: Duration) {
        self.client = client
        self.shown = shown
        self.lease = lease
        // The pool lives as long as this task, which starts at once: a query before run() has
        // begun would be queued with a warning.
        if #available(macOS 26, *) {
            runner = Task.immediate { await client.run() }
        } else {
            runner = Task { await client.run() }
        }
    }

    /// Connects to the database of `url`, checking the address and the credentials once before
    /// the pool starts. A caller waits at most `lease` for a connection of the pool, then gets
    /// ``DatabaseUnavailable`` (the service answers 503); tests that are not about that wait give
    /// a longer one, as a loaded machine can take longer than a server may keep a client waiting.
    ///
    /// - Throws: ``DiscoveryServiceError`` (`invalidDatabaseURL` for a malformed URL,
    ///   `databaseUnavailable` when the server cannot be reached or refuses the credentials), naming
    ///   the URL without its password.
    package static func open(
        url: String, password: String? = nil, maximumConnections: Int = 10, lease: Duration = DatabaseWait.lease,
        logger: Logger = Logger(label: "activate.postgres")
    ) async throws -> PostgresDiscoveryDatabase {
        let target = try Target(url: url, password: password)
        var check = PostgresConnection.Configuration(
            host: target.host, port: target.port, username: target.user,
            password: target.password, database: target.database, tls: try target.tls())
        check.options.connectTimeout = .seconds(10)
        do {
            let connection = try await PostgresConnection.connect(configuration: check, id: 0, logger: logger)
            try await connection.close()
        } catch let error as PSQLError {
            let reason = error.serverInfo?[.message] ?? "\(error.code)"
            throw DiscoveryServiceError(
                .databaseUnavailable, source: target.shown, "the database refused the connection: \(reason)")
        } catch {
            throw DiscoveryServiceError(
                .databaseUnavailable, source: target.shown, "cannot connect to the database: \(error)")
        }
        var configuration = PostgresClient.Configuration(
            host: target.host, port: target.port, username: target.user,
            password: target.password, database: target.database, tls: try target.clientTLS())
        configuration.options.maximumConnections = maximumConnections
        configuration.options.minimumConnections = 1
        return PostgresDiscoveryDatabase(
            client: PostgresClient(configuration: configuration, backgroundLogger: logger), shown: target.shown,
            lease: lease)
    }

    /// The pool waits for a connection as long as the server is away: the wait is bounded here.
    package func withConnection<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        let client = client
        return try await DatabaseWait.leasing(
            within: lease, { use in try await client.withConnection { connection in try await use(connection.sql()) } },
            body)
    }

    package func withTransaction<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        // PostgresClient.withTransaction would wrap every error in PostgresTransactionError.
        try await withConnection { database in try await runInTransaction(database, body) }
    }

    /// Reads the session's `transaction_read_only`, which a standby or `default_transaction_read_only` sets.
    package func probeWrites() async throws {
        let readOnly = try await withConnection { sql in
            try await sql.raw("SELECT current_setting('transaction_read_only') AS read_only").first()?.decode(
                column: "read_only", as: String.self)
        }
        guard readOnly == "off" else { throw ReadOnlyDatabase() }
    }

    /// The server takes no writes.
    struct ReadOnlyDatabase: Error {}

    package func close() async throws {
        runner.cancel()  // ends run(), which closes every connection
        await runner.value
    }

    /// The parts of a `postgres://` URL.
    struct Target {
        var host: String, port: Int, user: String, password: String?, database: String?, requireTLS: Bool
        /// The URL as messages show it: without the password.
        var shown: String

        init(url: String, password fallback: String?) throws {
            guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
                let user = parts.user, !user.isEmpty, let host = parts.host, !host.isEmpty
            else {
                throw DiscoveryServiceError(
                    .invalidDatabaseURL, source: "the PostgreSQL URL",
                    "expected postgres://user[:password]@host[:port]/database")
            }
            self.host = host
            port = parts.port ?? 5432
            self.user = user
            password = parts.password ?? fallback  // URLComponents decodes %-escapes
            let name = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
            database = name.isEmpty ? nil : name
            let mode = parts.queryItems?.first { $0.name == "sslmode" }?.value
            let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
            requireTLS = mode == "require" || (mode != "disable" && !loopback)
            shown = "postgres://\(user)@\(host):\(port)/\(name)"
        }

        func tls() throws -> PostgresConnection.Configuration.TLS {
            requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable
        }

        func clientTLS() throws -> PostgresClient.Configuration.TLS {
            requireTLS ? .require(.makeClientConfiguration()) : .disable
        }
    }
}
