import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// A discovery service: answers the legacy lookup function by e-mail domain or onboarding code,
/// from a static ``DiscoveryDirectory`` or (through `activate serve --database`) from a database
/// with one-time codes, guessing limits, an admin API and a console.
///
/// `GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// (or `OnboardingCode='<code>'`), quotes raw or percent-encoded: 200 with the document, 404 with a
/// JSON error when nothing matches, 410 for a code that expired, was used up or revoked (the
/// error's `code` says which), 429 with `Retry-After` past the guessing limits, 400 for a malformed
/// call, 405 for a method other than GET. An application's client policies are served at SAP's
/// `settingsExchange` path (`DiscoveryRoute.settings(appID:)` of ActivationDiscoveryProtocol): 200 with the document, 404 when
/// the application has none. Targets are routed on their canonical path (see `DiscoveryRoute` in ActivationDiscoveryProtocol). `/health` answers when the process runs, `/ready` when its database can be
/// reached, `/metrics` in Prometheus text, `/openapi.yaml` the OpenAPI description of all of it.
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

    /// Everything behind the routes: where lookups are answered from, and the optional parts.
    package struct Service: Sendable {
        package var lookups: any LookupService
        /// Failed code lookups allowed; nil: unlimited.
        package var guessing: GuessingLimits?
        /// Proxies whose `X-Forwarded-For` names the client (`--trust-proxy`).
        package var trustedProxies: [IPNetwork] = []
        /// The admin API and console; nil: off (404).
        package var admin: AdminAPI?
        package let metrics = ServiceMetrics()
        /// Runs beside the server until it stops (the document cache's refresh).
        package var background: (@Sendable () async -> Void)?
        /// Runs once the server has stopped (closing the database).
        package var onStop: (@Sendable () async -> Void)?

        package init(lookups: any LookupService, guessing: GuessingLimits? = nil, trustedProxies: [IPNetwork] = [], admin: AdminAPI? = nil,
                     background: (@Sendable () async -> Void)? = nil, onStop: (@Sendable () async -> Void)? = nil) {
            self.onStop = onStop
            self.lookups = lookups
            self.guessing = guessing
            self.trustedProxies = trustedProxies
            self.admin = admin
            self.admin?.guessing = guessing
            self.admin?.metrics = metrics
            // A change is served by this instance as soon as the admin API acknowledges it; a
            // failed reload leaves it to the next poll.
            self.admin?.afterChange = { try? await lookups.reload() }
            self.background = background
        }
    }

    /// Makes a server of the static lookups in `directory`; nothing is bound until ``run(onListening:)``.
    public init(directory: DiscoveryDirectory, host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(), logger: Logger) {
        self.init(service: Service(lookups: directory), host: host, port: port, limits: limits, logger: logger)
    }

    /// Makes a server of `service`.
    package init(service: Service, host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(), logger: Logger) {
        self.service = service
        self.host = host
        self.port = port
        self.limits = limits
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM, then finishes in-flight requests and returns.
    ///
    /// - Parameter onListening: called with the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let cap = limits.effectiveMaxConnections()
        if cap < limits.maxConnections {
            logger.notice("serving at most \(cap) connections, not \(limits.maxConnections): the file-descriptor limit allows no more")
        }
        let limits = self.limits, logger = self.logger
        let connections = ConnectionCount(limit: cap)
        let app = Application(
            responder: Responder(service: service, logger: logger),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(responder: responder, limits: limits, connections: connections, logger: logger)
            },
            configuration: .init(
                address: .hostname(host, port: port), serverName: "activate-discovery",
                // Past the refusal slots, connections wait in the listen queue and hold no descriptor here.
                availableConnectionsDelegate: MaximumAvailableConnections(cap + Limits.refusalSlots, logger: logger)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let background = service.background { group.addTask { await background() } }
                if let guessing = service.guessing { group.addTask { await guessing.maintain() } }
                try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
                group.cancelAll()
            }
        } catch {
            await service.onStop?()
            throw error
        }
        await service.onStop?()
    }

    /// A request's context: Hummingbird's, plus the peer's address.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let peer: SocketAddress?

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            peer = source.channel.remoteAddress
        }
    }

    /// Answers every request and logs it.
    struct Responder: HTTPResponder {
        let service: Service
        let logger: Logger

        func respond(to request: Request, context: Context) async throws -> Response {
            let start = ContinuousClock.now
            let id = RequestID.next()
            let route = DiscoveryRoute(target: request.head.path ?? "")
            // Whom the guessing limits count against: worked out only for the requests they limit.
            let client = { ClientAddress.of(peer: context.peer, forwardedFor: request.headers[values: .xForwardedFor], trusted: service.trustedProxies) }
            var (response, template) = await DiscoveryServer.answer(request, route: route, client: client, service: service)
            if request.method == .head { response.body = .init() }  // a HEAD answer has no body
            response.headers[.xRequestID] = id
            let elapsed = ContinuousClock.now - start
            service.metrics.request(route: template ?? route.label, status: response.status.code, duration: elapsed)
            logger.info("\(DiscoveryServer.loggedMethod(request.method)) \(template ?? route.label) \(response.status.code) \(String(format: "%.2f", elapsed.inMilliseconds)) ms",
                        metadata: ["request_id": .string(id)])
            return response
        }
    }

    /// The method as logged: a standard one, or `OTHER` (a method is client text too).
    static func loggedMethod(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .head, .post, .put, .delete, .options, .patch, .trace, .connect: method.rawValue
        default: "OTHER"
        }
    }

    /// The response to one request, and the route template to log when it is more telling than the
    /// route's label (admin calls).
    static func answer(_ request: Request, route: DiscoveryRoute, client: () -> String, service: Service, now: Date = Date()) async -> (Response, String?) {
        if case .admin(let segments) = route {
            guard let admin = service.admin else { return (error(.notFound, .notFound, "the admin API is off (start with --admin-token-file)"), nil) }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: AdminAPI.maxBodyBytes)
            } catch {
                return (tooLarge("admin requests carry at most \(AdminAPI.maxBodyBytes / 1024) KiB"), nil)
            }
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
            let answer = await admin.respond(method: request.method.rawValue, segments: segments, query: query,
                                             authorization: request.headers[.authorization], body: Array(buffer: body), client: client(), now: now)
            var response = json(HTTPResponse.Status(code: answer.status), answer.json)
            if let retryAfter = answer.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
            response.headers[.cacheControl] = "no-store"
            return (response, answer.template)
        }
        // Lookups carry no body: a large or unbounded one is refused, and the connection closed
        // rather than drained.
        if request.headers[.transferEncoding] != nil || request.headers[.contentLength].map({ Int($0).map { $0 > maxBodyBytes } ?? true }) == true {
            return (tooLarge("lookups carry no body"), nil)
        }
        switch route {
        case .refused(.tooLong): return (error(.uriTooLong, .tooLong, "the request target exceeds \(maxTargetLength) bytes"), nil)
        case .refused(.malformed): return (error(.badRequest, .badRequest, "the request target is not a well-formed path"), nil)
        case .unknown: return (error(.notFound, .notFound, "no such resource"), nil)
        case .console(let file):
            guard service.admin != nil else { return (error(.notFound, .notFound, "the console is off (start with --admin-token-file)"), nil) }
            guard request.method == .get else { return (methodNotAllowed(), nil) }
            return (AdminConsole.response(for: file), nil)
        case .health, .ready, .metrics, .openAPI, .settings, .malformedLookup, .lookup, .admin: break
        }
        guard request.method == .get else { return (methodNotAllowed(), nil) }
        switch route {
        case .health: return (json(.ok, #"{"status":"ok"}"#), nil)
        case .ready:
            if let why = await service.lookups.unreadiness() { return (unavailable(.notReady, why), nil) }
            return (json(.ok, #"{"status":"ready"}"#), nil)
        case .metrics:
            return (Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                             body: .init(byteBuffer: ByteBuffer(bytes: service.metrics.exposition()))), nil)
        case .lookup(let call): return (await lookup(call, client: client, service: service, now: now), nil)
        case .openAPI:
            return (Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                             body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml))), nil)
        case .settings(let appID):
            do {
                guard let document = try await service.lookups.settings(appID: appID) else {
                    return (error(.notFound, .notFound, "no client policies for the application \(appID)"), nil)
                }
                return (json(.ok, document), nil)
            } catch {
                return (unavailable(), nil)
            }
        default:
            return (error(.badRequest, .badRequest, "expected getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>') or OnboardingCode='<code>'"), nil)
        }
    }

    /// What a code lookup came to: refused by the guessing limits, or answered.
    enum CodeOutcome: Sendable {
        case limited(retryAfter: Int)
        case answered(LookupAnswer)
    }

    /// A lookup: by e-mail, read-only; by code, within the guessing limits.
    static func lookup(_ call: LookupCall, client clientAddress: () -> String, service: Service, now: Date) async -> Response {
        do {
            switch call.lookup {
            case .email(let email):
                return response(for: try await service.lookups.find(appID: call.appID, email: email))
            case .code(let code):
                let client = clientAddress()
                // Limits, use and settlement all need the database: together they get an answer in
                // bounded time, or 503.
                let outcome = try await DatabaseWait.finishing(within: DatabaseWait.answer) { () async throws -> CodeOutcome in
                    if let retryAfter = try await service.guessing?.admit(client: client, appID: call.appID, now: now) { return .limited(retryAfter: retryAfter) }
                    let answer = try await service.lookups.find(appID: call.appID, code: code, now: now)
                    try await service.guessing?.settle(client: client, appID: call.appID, failed: answer.failed, now: now)
                    return .answered(answer)
                }
                let answer: LookupAnswer
                switch outcome {
                case .limited(let retryAfter):
                    var response = error(.tooManyRequests, .rateLimited, "too many failed lookups; retry in \(retryAfter) s")
                    response.headers[.retryAfter] = String(retryAfter)
                    return response
                case .answered(let found):
                    answer = found
                }
                let counted = switch answer {
                case .document: "used"
                case .notFound: "not-found"
                case .gone(let reason): reason == .used ? "used-up" : reason.rawValue
                }
                service.metrics.codeLookup(counted)
                return response(for: answer)
            }
        } catch {
            return unavailable()
        }
    }

    /// 503 with `Retry-After`: the database is away; the client tries again shortly.
    static func unavailable(_ code: DiscoveryErrorCode = .unavailable,
                            _ message: String = "the discovery service cannot answer right now; try again shortly") -> Response {
        var response = error(.serviceUnavailable, code, message)
        response.headers[.retryAfter] = String(DatabaseWait.retryAfterSeconds)
        return response
    }

    static func response(for answer: LookupAnswer) -> Response {
        switch answer {
        case .document(let document): json(.ok, document)
        case .notFound(let why): error(.notFound, .notFound, why)
        case .gone(let reason): error(.gone, reason.errorCode, reason.message)
        }
    }

    /// 413, and the connection closed rather than the rest of the body drained.
    static func tooLarge(_ message: String) -> Response {
        var response = error(.contentTooLarge, .tooLarge, message)
        response.headers[.connection] = "close"
        return response
    }

    static func methodNotAllowed() -> Response {
        var response = error(.methodNotAllowed, .methodNotAllowed, "only GET is answered")
        response.headers[.allow] = "GET"
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func error(_ status: HTTPResponse.Status, _ code: DiscoveryErrorCode, _ message: String) -> Response {
        json(status, AdminAPI.errorJSON(code, message))
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xRequestID = Self("X-Request-ID")!
}

/// Request ids: this instance's random prefix and a counter, so ids of several instances differ.
enum RequestID {
    private static let prefix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    private static let counter = Mutex<UInt64>(0)

    static func next() -> String {
        "\(prefix)-\(counter.withLock { $0 += 1; return $0 })"
    }
}
