import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The HTTP server of a discovery service: answers the legacy lookup function by e-mail domain or
/// onboarding code, from a static ``DiscoveryDirectory`` or (built by ``DiscoveryService``) from a
/// database with one-time codes, guessing limits, an admin API and a console.
///
/// `GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// (or `OnboardingCode='<code>'`), quotes raw or percent-encoded: 200 with the document, 404 with a
/// JSON error when nothing matches, 410 for a code that expired, was used up or revoked (the
/// error's `code` says which), 429 with `Retry-After` past the guessing limits, 400 for a malformed
/// call, 405 for a method other than GET. An application's client policies are served at SAP's
/// `settingsExchange` path (`DiscoveryRoute.settingsTemplate` of ActivationDiscoveryProtocol):
/// 200 with the document, 404 when the application has none. Targets are routed on their canonical
/// path (see `DiscoveryRoute`), by one router. `/health` answers when the process runs, `/ready` when its database
/// answers and takes writes, `/metrics` in Prometheus text, `/openapi.yaml` the OpenAPI
/// description of all of it.
///
/// Each request is logged as method, route (`lookup`, `health`, an admin route template, …),
/// status and time, with a request id: never its path, query, e-mail address, code or token.
/// Clients are held to ``Limits``.
public struct DiscoveryServer: Sendable {
    /// What answers the requests.
    let service: Service
    /// The address to listen on; `127.0.0.1` by default.
    public var host: String
    /// The port to listen on; 8080 by default, 0 for any free port.
    public var port: Int
    /// The timeouts and connection cap clients are held to.
    public var limits: Limits
    /// Receives the request log (info), a notice when the connection cap is lowered, and at debug
    /// and trace level why connections were refused or closed.
    public var logger: Logger

    /// Requests whose target is longer than this are refused (414); a request head (target and
    /// headers) over ``maxHeadBytes`` is refused by the HTTP decoder (400).
    public static let maxTargetLength = DiscoveryRoute.maxTargetLength
    /// The most bytes of a request head, its target included; at most 100 header fields.
    public static let maxHeadBytes = 16 << 10
    /// Lookups with a body larger than this are refused (413) and their connection closed; lookups
    /// have none. Admin calls may carry up to 64 KiB.
    public static let maxBodyBytes = 1024

    /// Everything behind the routes: where lookups are answered from, and the optional parts
    /// (``DiscoveryService`` assembles it).
    package struct Service: Sendable {
        package var lookups: any LookupService
        /// Failed code lookups allowed; nil: unlimited.
        package var guessing: GuessingLimits?
        /// Proxies whose `X-Forwarded-For` names the client (`--trust-proxy`).
        package var trustedProxies: [IPNetwork] = []
        /// The admin API and console; nil: off (404).
        package var admin: AdminAPI?
        package let metrics = ServiceMetrics()
        /// Runs beside the server until it stops (the snapshot's refresh).
        package var background: (@Sendable () async -> Void)?
        /// Runs once the server and the background work have stopped (closing the database).
        package var onStop: (@Sendable () async -> Void)?

        package init(
            lookups: any LookupService, guessing: GuessingLimits? = nil, trustedProxies: [IPNetwork] = [],
            admin: AdminAPI? = nil,
            background: (@Sendable () async -> Void)? = nil, onStop: (@Sendable () async -> Void)? = nil
        ) {
            self.lookups = lookups
            self.guessing = guessing
            self.trustedProxies = trustedProxies
            self.background = background
            self.onStop = onStop
            self.admin = admin
            self.admin?.metrics = metrics
        }
    }

    /// Makes a server of the static lookups in `directory`; nothing is bound until ``run(onListening:)``.
    public init(
        directory: DiscoveryDirectory, host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(),
        logger: Logger
    ) {
        self.init(service: Service(lookups: directory), host: host, port: port, limits: limits, logger: logger)
    }

    /// Makes a server of `service`.
    package init(
        service: Service, host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(), logger: Logger
    ) {
        self.service = service
        self.host = host
        self.port = port
        self.limits = limits
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM or until the task is cancelled, then finishes the requests
    /// under way and returns.
    ///
    /// - Parameter onListening: called with the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let cap = limits.effectiveMaxConnections()
        if cap < limits.maxConnections {
            logger.notice(
                """
                serving at most \(cap) connections, not \(limits.maxConnections): \
                the file-descriptor limit allows no more
                """
            )
        }
        let logger = self.logger
        let app = application(connectionCap: cap, onListening: onListening)
        // A signal stops the services in reverse order: the server first (requests under way
        // finish), then the background work; the database is closed after all of them.
        let background: [@Sendable () async -> Void] = [
            service.background, service.guessing.map { guessing in { @Sendable in await guessing.maintain() } },
        ].compactMap { $0 }
        let services =
            background.map { work in
                ServiceGroupConfiguration.ServiceConfiguration(
                    service: ClosureService { await cancelWhenGracefulShutdown { await work() } },
                    successTerminationBehavior: .ignore)
            } + [ServiceGroupConfiguration.ServiceConfiguration(service: app)]
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // The database is closed even when the run was cancelled: in a task of its own, which
        // does not inherit the cancellation.
        let stop = { [onStop = service.onStop] in await Task { await onStop?() }.value }
        // Cancelling the task that runs the server stops it as a signal does: the group runs in a
        // task of its own, so that the cancellation reaches it as a graceful shutdown.
        let running = Task { try await group.run() }
        do {
            try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                Task { await group.triggerGracefulShutdown() }
            }
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// The Hummingbird application ``run(onListening:)`` runs: the service's responder on an
    /// HTTP/1 server held to ``limits`` with at most `connectionCap` connections. Tests ask it
    /// in-process (HummingbirdTesting's router framework) for what needs no socket.
    func application(
        connectionCap: Int? = nil, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<ServiceResponder> {
        let limits = self.limits
        let logger = self.logger
        let cap = connectionCap ?? limits.effectiveMaxConnections()
        let connections = ConnectionCount(limit: cap)
        return Application(
            responder: Self.responder(service: service, troubles: DatabaseTroubleLog(logger: logger), logger: logger),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(responder: responder, limits: limits, connections: connections, logger: logger)
            },
            configuration: .init(
                address: .hostname(host, port: port), serverName: "activate-discovery",
                // Past the refusal slots, connections wait in the listen queue and hold no descriptor here.
                availableConnectionsDelegate: MaximumAvailableConnections(cap + Limits.refusalSlots, logger: logger)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
