import ActivationConfiguration
import Foundation
import Logging
import ServiceLifecycle

/// A discovery service built from one value: where its data lives, who may administer it, how it
/// limits guessing, where it listens. `activate serve` and the tests build a ``Configuration`` and
/// nothing else; a Swift program runs its own service the same way:
///
/// ```swift
/// var configuration = DiscoveryService.Configuration(store: .sqlite(path: "discovery.sqlite"))
/// configuration.folder = "discovery"                 // discovery.json and its documents, imported
/// configuration.adminTokens = try AdminTokens(file: "admin-tokens")
/// try await DiscoveryService(configuration).run()   // until SIGTERM or SIGINT
/// ```
///
/// ``run(onListening:)`` opens and migrates the database, imports the folder, loads what is served,
/// and runs the HTTP server, the snapshot refresh and the guessing limits' upkeep as
/// swift-service-lifecycle services: a signal stops the server first (requests under way finish),
/// then the rest, and the database is closed last.
public struct DiscoveryService: Sendable {
    /// Everything a service is made of.
    public struct Configuration: Sendable {
        /// Where documents, domains, codes, client policies, guessing buckets and the audit live.
        public enum Store: Sendable, Hashable {
            /// No database: the ``Configuration/folder`` served as it is (no codes are consumed, no
            /// admin API); guessing limits are kept in memory.
            case folder
            /// An SQLite file, made when missing; one host.
            case sqlite(path: String)
            /// A PostgreSQL database, `postgres://user[:password]@host[:port]/db`; instances on one
            /// database share codes and limits. `password` when not in the URL.
            case postgres(url: String, password: String?)

            /// The store of `activate serve` without `--database`: an SQLite file in the working folder.
            public static let defaultURL = "sqlite:./activate-discovery.sqlite"

            /// Reads `sqlite:PATH`, `postgres://…` (or `postgresql://…`) or `none` (``folder``).
            ///
            /// - Throws: ``DiscoveryServiceError`` (`invalidDatabaseURL`) for anything else.
            public init(url: String, password: String? = nil) throws {
                if url == "none" {
                    self = .folder
                } else if url.hasPrefix("sqlite:"), url.count > "sqlite:".count {
                    self = .sqlite(path: String(url.dropFirst("sqlite:".count)))
                } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
                    self = .postgres(url: url, password: password)
                } else {
                    throw DiscoveryServiceError(
                        .invalidDatabaseURL, source: UntrustedText.escaped(url, maxCharacters: 200),
                        "expected sqlite:PATH, postgres://user@host/db or none")
                }
            }
        }

        /// Where the data lives; an SQLite file in the working folder by default.
        public var store: Store
        /// A folder with `discovery.json` and its documents: imported at start into a database (its
        /// documents replace those of the same name, its codes are added once), or served as it is
        /// with ``Store/folder``. Every document is checked first.
        public var folder: String?
        /// The secret codes are hashed with, made (mode 0600) when missing. Instances on one
        /// database need the same.
        public var secretFile = "./activate-discovery.secret"
        /// The tokens of the admin API and console; nil: both are off.
        public var adminTokens: AdminTokens?
        /// Codes issued have this many digits (8 for SAP-style apps); nil: 12 Base32 characters.
        public var codeDigits: Int?
        /// Failed code lookups (and wrong admin tokens) allowed per client address; nil: unlimited.
        public var clientLimit: RateLimit? = RateLimit(perMinute: 10, burst: 20)
        /// Failed code lookups allowed per application, across its clients; nil: unlimited.
        public var applicationLimit: RateLimit? = RateLimit(perMinute: 600, burst: 600)
        /// Proxies whose `X-Forwarded-For` names the client.
        public var trustedProxies: [IPNetwork] = []
        /// What documents must satisfy to be served or stored.
        public var policy = SecurityPolicy()
        /// The address to listen on.
        public var host = "127.0.0.1"
        /// The port to listen on; 0 for any free port.
        public var port = 8080
        /// The timeouts and connection cap clients are held to.
        public var limits = DiscoveryServer.Limits()
        /// How often an instance looks for changes made by others on its database.
        public var refreshInterval: Duration = .seconds(1)
        /// Draws a code's QR as SVG for the admin API's answer (the console shows it); nil: no pictures.
        public var qrSVG: (@Sendable (String) -> String?)?
        /// Receives the request log (info), the import's summary (notice) and the server's notices.
        public var logger: Logger

        /// A configuration with the defaults of `activate serve`.
        public init(store: Store, logger: Logger = Logger(label: "activate-discovery")) {
            self.store = store
            self.logger = logger
        }
    }

    /// What the service is made of.
    public let configuration: Configuration

    /// A service; nothing is opened until ``run(onListening:)``.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// Opens the store, imports the folder, and serves until SIGTERM or SIGINT (or the task is
    /// cancelled); then finishes the requests under way and closes the store.
    ///
    /// - Parameter onListening: called with the bound port (useful with port 0).
    /// - Throws: before serving, ``DiscoveryServiceError`` (`discovery.json`, the secret, the
    ///   token file, the database URL, a database that cannot be opened) or `ConfigurationError` (a
    ///   document that is refused, a file that cannot be read); the server's error when it cannot
    ///   listen.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let service = try await makeService()
        let server = DiscoveryServer(
            service: service, host: configuration.host, port: configuration.port,
            limits: configuration.limits, logger: configuration.logger)
        try await server.run(onListening: onListening)
    }

    /// The lookups, limits and admin API the configuration asks for, over an open and migrated store.
    func makeService() async throws -> DiscoveryServer.Service {
        let configuration = self.configuration
        let logger = configuration.logger
        let recognizer = PayloadRecognizer(policy: configuration.policy)
        let folder = try configuration.folder.map { try DiscoveryDirectory(folder: $0, recognizer: recognizer) }
        let url: String
        let password: String?
        switch configuration.store {
        case .folder:
            guard let folder else {
                throw DiscoveryServiceError(
                    .invalidDatabaseURL, source: "none", "serves a folder, and no folder was given")
            }
            return DiscoveryServer.Service(
                lookups: folder,
                guessing: GuessingLimits(
                    perClient: configuration.clientLimit, perApplication: configuration.applicationLimit,
                    buckets: MemoryTokenBuckets()),
                trustedProxies: configuration.trustedProxies)
        case .sqlite(let path): (url, password) = ("sqlite:" + path, nil)
        case .postgres(let postgres, let given): (url, password) = (postgres, given)
        }
        let hasher = try OnboardingCodeHasher.loadOrCreate(secretFile: configuration.secretFile)
        let database = try await DiscoveryDatabaseURL.open(url, password: password, logger: logger)
        do {
            let documents = DocumentStore(database: database)
            let codes = CodeStore(database: database, hasher: hasher)
            if let folder, let path = configuration.folder {
                let summary = try await FolderImport.run(
                    folder, source: "\(path)/discovery.json", documents: documents, codes: codes)
                logger.notice(
                    """
                    imported \(path): \(summary.documents) documents, \(summary.domains) domains, \
                    \(summary.codes) new codes, client policies of \(summary.settings) applications
                    """
                )
            }
            let lookups = StoredLookups(documents: documents, codes: codes, logger: logger)
            try await lookups.load()
            let admin = configuration.adminTokens.map { tokens in
                AdminAPI(
                    tokens: tokens, documents: documents, codes: codes, audit: AuditLog(database: database),
                    recognizer: recognizer,
                    codeStyle: configuration.codeDigits.map { .digits(count: $0) } ?? .standard,
                    qrSVG: configuration.qrSVG)
            }
            let interval = configuration.refreshInterval
            return DiscoveryServer.Service(
                lookups: lookups,
                guessing: GuessingLimits(
                    perClient: configuration.clientLimit, perApplication: configuration.applicationLimit,
                    buckets: DatabaseTokenBuckets(database: database)),
                trustedProxies: configuration.trustedProxies, admin: admin,
                background: { await lookups.refresh(every: interval) },
                onStop: { try? await database.close() })
        } catch {
            try? await database.close()
            throw error
        }
    }
}

extension DiscoveryService: Service {
    /// Runs the service as a member of a swift-service-lifecycle `ServiceGroup`: the group's
    /// graceful shutdown stops it as a signal does.
    public func run() async throws {
        try await run(onListening: { _ in })
    }
}
