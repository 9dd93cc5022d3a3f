import ActivationDiscoveryProtocol
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

extension DiscoveryServer {
    /// The outermost middleware: gives the request its id, counts it in the metrics and logs it as
    /// method, route, status and time. Never its path, query, e-mail address, code or token: the
    /// route is a label (`lookup`, `health`, `other` for no route) or an admin route template.
    struct RequestLog: RouterMiddleware {
        let metrics: ServiceMetrics
        let logger: Logger

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            let start = ContinuousClock.now
            let id = RequestID.next()
            var response: Response
            do {
                response = try await next(request, context)
            } catch {
                // Every refusal is answered by now; what is left is the server's own failure.
                logger.error("request \(id) failed: \(String(reflecting: type(of: error)))")
                response = DiscoveryServer.unavailable()
            }
            if request.method == .head { response.body = .init() }  // a HEAD answer has no body
            response.headers[.xRequestID] = id
            let elapsed = ContinuousClock.now - start
            let route = Self.routeName(template: context.coreContext.endpointPath.value)
            metrics.request(route: route, status: response.status.code, duration: elapsed)
            logger.info(
                """
                \(Self.loggedMethod(request.method)) \(route) \(response.status.code) \
                \(String(format: "%.2f", elapsed.inMilliseconds)) ms
                """,
                metadata: ["request_id": .string(id)])
            return response
        }

        /// A public route by its label, an admin call by its operation's template, a request no
        /// route matched as `other`: from the template the router matched, never from the request.
        static func routeName(template: String?) -> String {
            if let route = DiscoveryRoute.allCases.first(where: { $0.template == template }) { return route.label }
            if let template, template.hasPrefix(AdminOperation.prefix + "/") { return template }
            return "other"
        }

        /// The method as logged: a standard one, or `OTHER` (a method is client text too).
        static func loggedMethod(_ method: HTTPRequest.Method) -> String {
            switch method {
            case .get, .head, .post, .put, .delete, .options, .patch, .trace, .connect: method.rawValue
            default: "OTHER"
            }
        }
    }

    /// A middleware in front of a responder.
    struct Chained<Middleware: RouterMiddleware<Context>, Next: HTTPResponder<Context>>: HTTPResponder {
        let middleware: Middleware
        let next: Next

        func respond(to request: Request, context: Context) async throws -> Response {
            try await middleware.handle(request, context: context, next: next.respond)
        }
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
        let number = counter.withLock { count in
            count += 1
            return count
        }
        return "\(prefix)-\(number)"
    }
}
