import ActivationConfiguration
import Foundation
import Hummingbird
import HummingbirdCore
import Logging

/// A discovery service: answers the legacy lookup function by e-mail domain or onboarding code
/// from a ``DiscoveryDirectory``.
///
/// `GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// (or `OnboardingCode='<code>'`), quotes raw or percent-encoded: 200 with the document, 404 with a
/// JSON error when nothing matches, 410 for an expired code, 400 for a malformed call, 405 for a
/// method other than GET. Targets are routed on their canonical path (see ``DiscoveryRoute``).
///
/// Each request is logged as method, route label (`lookup`, `health`, `other`), status and time:
/// never its path, query, e-mail address or code. Clients are held to ``Limits``.
public struct DiscoveryServer: Sendable {
    /// The lookups answered and the documents served.
    public var directory: DiscoveryDirectory
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
    /// Requests with a body larger than this are refused (413) and their connection closed; lookups have none.
    public static let maxBodyBytes = 1024

    /// Makes a server; nothing is bound until ``run(onListening:)``.
    public init(directory: DiscoveryDirectory, host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(), logger: Logger) {
        self.directory = directory
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
            responder: Responder(directory: directory, logger: logger),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(responder: responder, limits: limits, connections: connections, logger: logger)
            },
            configuration: .init(
                address: .hostname(host, port: port), serverName: "activate-discovery",
                // Past the refusal slots, connections wait in the listen queue and hold no descriptor here.
                availableConnectionsDelegate: MaximumAvailableConnections(cap + Limits.refusalSlots, logger: logger)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Answers every request: one function from method, target and body size to a response.
    struct Responder: HTTPResponder {
        typealias Context = BasicRequestContext
        let directory: DiscoveryDirectory
        let logger: Logger

        func respond(to request: Request, context: Context) async throws -> Response {
            let start = ContinuousClock.now
            let route = DiscoveryRoute(target: request.head.path ?? "")
            var response = DiscoveryServer.answer(method: request.method, route: route, headers: request.headers, directory: directory)
            if request.method == .head { response.body = .init() }  // a HEAD answer has no body
            let milliseconds = (ContinuousClock.now - start).inMilliseconds
            logger.info("\(DiscoveryServer.loggedMethod(request.method)) \(route.label) \(response.status.code) \(String(format: "%.2f", milliseconds)) ms")
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

    /// The response to one request (pure: the server's whole logic, testable without a socket).
    static func answer(method: HTTPRequest.Method, route: DiscoveryRoute, headers: HTTPFields = [:],
                       directory: DiscoveryDirectory, now: Date = Date()) -> Response {
        // Lookups carry no body: a large or unbounded one is refused, and the connection closed
        // rather than drained.
        if headers[.transferEncoding] != nil || headers[.contentLength].map({ Int($0).map { $0 > maxBodyBytes } ?? true }) == true {
            var response = error(.contentTooLarge, "too-large", "lookups carry no body")
            response.headers[.connection] = "close"
            return response
        }
        switch route {
        case .refused(.tooLong): return error(.uriTooLong, "too-long", "the request target exceeds \(maxTargetLength) bytes")
        case .refused(.malformed): return error(.badRequest, "bad-request", "the request target is not a well-formed path")
        case .unknown: return error(.notFound, "not-found", "no such resource")
        case .health, .malformedLookup, .lookup: break
        }
        guard method == .get else {
            var response = error(.methodNotAllowed, "method-not-allowed", "only GET is answered")
            response.headers[.allow] = "GET"
            return response
        }
        guard case .lookup(let call) = route else {
            return route == .health ? json(.ok, #"{"status":"ok"}"#)
                : error(.badRequest, "bad-request", "expected getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>') or OnboardingCode='<code>'")
        }
        let result: DiscoveryDirectory.Answer
        switch call.lookup {
        case .email(let email): result = directory.lookup(appID: call.appID, email: email)
        case .code(let code): result = directory.lookup(appID: call.appID, code: code, now: now)
        }
        switch result {
        case .found(let entry): return json(.ok, entry.json)
        case .notFound(let why): return error(.notFound, "not-found", why)
        case .expired: return error(.gone, "expired", "this onboarding code has expired")
        }
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(status, JSONWriter.compact(.object(["error": .object(["code": .string(code), "message": .string(message)])])))
    }
}
