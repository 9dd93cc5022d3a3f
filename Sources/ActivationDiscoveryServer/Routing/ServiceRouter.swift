import ActivationDiscoveryProtocol
import HTTPTypes
import Hummingbird
import Logging

extension DiscoveryServer {
    /// Every request's way through the service: the request log, the target made canonical, then
    /// one router for all routes (public, console, admin API), which answers 405 with `Allow` to
    /// any method a known path does not declare.
    static func responder(service: Service, troubles: DatabaseTroubleLog, logger: Logger) -> ServiceResponder {
        let router = Router(context: Context.self)
        publicRoutes(on: router, service: service, troubles: troubles)
        if let admin = service.admin {
            // A change is served by this instance as soon as the admin API acknowledges it; a
            // failed reload leaves it to the next poll.
            let lookups = service.lookups
            admin.routes(
                on: router, guessing: service.guessing, trustedProxies: service.trustedProxies, troubles: troubles,
                afterChange: { try? await lookups.reload() })
        }
        return Chained(
            middleware: RequestLog(metrics: service.metrics, logger: logger),
            next: Chained(
                middleware: CanonicalTarget(),
                next: UndeclaredMethods(router: router.buildResponder(), adminIsOn: service.admin != nil)))
    }

    /// The type of ``responder(service:troubles:logger:)``'s chain.
    typealias ServiceResponder = Chained<
        RequestLog, Chained<CanonicalTarget, UndeclaredMethods<RouterResponder<Context>>>
    >
}

extension RouterMethods {
    /// Registers `handlers` on `template`, and the refusal of every other method (405 with
    /// `Allow`), behind the same middleware as the handlers.
    func resource(
        _ template: String,
        _ handlers: [(method: String, handler: @Sendable (Request, Context) async throws -> Response)]
    ) {
        let path = RouterPath(template)
        for (method, handler) in handlers {
            on(path, method: HTTPRequest.Method(method) ?? .get, use: handler)
        }
        let allowed = handlers.map(\.method).joined(separator: ", ")
        let refusal = Refusal(.methodNotAllowed, "use \(allowed)", allow: allowed)
        on(path, method: .undeclared) { _, _ -> Response in throw refusal }
    }
}

/// The router, asked a second time when no route matched the method: under the method
/// `HTTPRequest.Method.undeclared`, which every resource registers (its 405 with `Allow`, see
/// `RouterMethods.resource(_:_:)`), so the refusal runs behind the route's own middleware and an
/// admin path still needs the token first. A path no route knows gets the protocol's 404.
struct UndeclaredMethods<Router: HTTPResponder<DiscoveryServer.Context>>: HTTPResponder {
    typealias Context = DiscoveryServer.Context

    let router: Router
    /// Whether the admin API and console are served (else their paths say they are off).
    let adminIsOn: Bool

    func respond(to request: Request, context: Context) async throws -> Response {
        let response = try await router.respond(to: request, context: context)
        guard context.coreContext.endpointPath.value == HTTPRequest.Method.unmatchedEndpoint else { return response }
        var head = request.head
        head.method = .undeclared
        let undeclared = try await router.respond(to: Request(head: head, body: request.body), context: context)
        guard context.coreContext.endpointPath.value == HTTPRequest.Method.unmatchedEndpoint else { return undeclared }
        context.coreContext.endpointPath.value = nil
        let path = request.uri.path
        var notFound =
            !adminIsOn && (path == DiscoveryRoute.consolePath || path.hasPrefix(DiscoveryRoute.consolePath + "/"))
            ? DiscoveryServer.error(.notFound, "the admin API and console are off: the service has no admin tokens")
            : DiscoveryServer.error(.notFound, "no such resource")
        // A body nobody reads is not drained: the connection closes after the answer.
        if request.mayCarryBody(over: 0) {
            notFound.headers[.connection] = "close"
        }
        return notFound
    }
}

extension HTTPRequest.Method {
    /// The method every resource registers its 405 under (a client that sends it gets that 405
    /// too, as for any method the resource does not declare).
    static var undeclared: Self { Self("ACTIVATE-UNDECLARED-METHOD")! }
    /// What Hummingbird's router names, as the endpoint, a request no route matched.
    static var unmatchedEndpoint: String { "NotFound" }
}

/// The request target made canonical (``DiscoveryRoute/canonicalPath(of:)``) before anything
/// routes on it: 414 over the length limit, 400 when malformed; else the request goes on with its
/// canonical path and its query unchanged.
struct CanonicalTarget: RouterMiddleware {
    typealias Context = DiscoveryServer.Context

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let target = request.head.path ?? ""
        let path: String
        do {
            path = try DiscoveryRoute.canonicalPath(of: target.utf8)
        } catch .tooLong {
            return DiscoveryServer.error(
                .tooLong, "the request target exceeds \(DiscoveryRoute.maxTargetLength) bytes")
        } catch .malformed {
            return DiscoveryServer.error(.badRequest, "the request target is not a well-formed path")
        }
        var head = request.head
        head.path = path + (target.firstIndex(of: "?").map { String(target[$0...]) } ?? "")
        return try await next(Request(head: head, body: request.body), context)
    }
}
