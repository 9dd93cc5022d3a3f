import ActivationDiscoveryProtocol
import Foundation
import Hummingbird
import NIOCore

extension DiscoveryServer {
    /// Dispatches each request on its canonical route (``RequestLog`` has put it in the context):
    /// lookups, client policies and operations here; admin calls to the admin API's router, with
    /// the path rewritten to its canonical form, so that the router sees what the route parser saw.
    struct Responder: HTTPResponder {
        let service: Service
        /// The admin API's routes; nil when it is off.
        let admin: RouterResponder<Context>?
        /// Tells the operator why requests get 503.
        let troubles: DatabaseTroubleLog

        func respond(to request: Request, context: Context) async throws -> Response {
            let route = context.route
            if case .admin(let segments) = route {
                guard let admin else {
                    return error(.notFound, "the admin API is off: the service has no admin tokens")
                }
                var head = request.head
                let query = request.uri.query.map { "?" + $0 } ?? ""
                head.path =
                    AdminOperation.prefix + "/" + segments.map(PercentEncoding.encodeSegment).joined(separator: "/")
                    + query
                var response = try await admin.respond(to: Request(head: head, body: request.body), context: context)
                response.headers[.cacheControl] = "no-store"
                return response
            }
            // Lookups carry no body: a large or unbounded one is refused, and the connection closed
            // rather than drained.
            if request.headers[.transferEncoding] != nil
                || request.headers[.contentLength].map({ Int($0).map { $0 > maxBodyBytes } ?? true }) == true
            {
                return tooLarge("lookups carry no body")
            }
            switch route {
            case .refused(.tooLong): return error(.tooLong, "the request target exceeds \(maxTargetLength) bytes")
            case .refused(.malformed): return error(.badRequest, "the request target is not a well-formed path")
            case .unknown: return error(.notFound, "no such resource")
            case .console(let file):
                guard admin != nil else {
                    return error(.notFound, "the console is off: the service has no admin tokens")
                }
                guard request.method == .get else { return methodNotAllowed() }
                return AdminConsole.response(for: file)
            case .health, .ready, .metrics, .openAPI, .settings, .malformedLookup, .lookup, .admin: break
            }
            guard request.method == .get else { return methodNotAllowed() }
            switch route {
            case .health: return json(.ok, #"{"status":"ok"}"#)
            case .ready:
                if let why = await service.lookups.unreadiness() { return unavailable(.notReady, why) }
                return json(.ok, #"{"status":"ready"}"#)
            case .metrics:
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: service.metrics.exposition())))
            case .lookup(let call):
                // Whom the guessing limits count against: worked out only for the requests they limit.
                let client = {
                    ClientAddress.of(
                        peer: context.peer, forwardedFor: request.headers[values: .xForwardedFor],
                        trusted: service.trustedProxies)
                }
                return await lookup(call, client: client, service: service, troubles: troubles, now: Date())
            case .openAPI:
                return Response(
                    status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
            case .settings(let appID):
                do {
                    guard let document = try await service.lookups.settings(appID: appID) else {
                        return error(.notFound, "no client policies for the application \(appID)")
                    }
                    return json(.ok, document)
                } catch {
                    troubles.report(error, route: route.label)
                    return unavailable()
                }
            default:
                return error(
                    .badRequest,
                    """
                    expected getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>') \
                    or OnboardingCode='<code>'
                    """
                )
            }
        }
    }

    /// What a code lookup came to: refused by the guessing limits, or answered.
    enum CodeOutcome: Sendable {
        case limited(retryAfter: Int)
        case answered(LookupAnswer)
    }

    /// A lookup: by e-mail, read-only; by code, within the guessing limits.
    static func lookup(
        _ call: LookupCall, client clientAddress: () -> String, service: Service, troubles: DatabaseTroubleLog,
        now: Date
    ) async -> Response {
        do {
            switch call.lookup {
            case .email(let email):
                return response(for: try await service.lookups.find(appID: call.appID, email: email))
            case .code(let code):
                let client = clientAddress()
                // Limits, use and settlement all need the database: together they get an answer in
                // bounded time, or 503.
                let outcome = try await DatabaseWait.finishing(within: DatabaseWait.answer) {
                    () async throws -> CodeOutcome in
                    if let retryAfter = try await service.guessing?.admit(client: client, appID: call.appID, now: now) {
                        return .limited(retryAfter: retryAfter)
                    }
                    let answer = try await service.lookups.find(appID: call.appID, code: code, now: now)
                    try await service.guessing?.settle(
                        client: client, appID: call.appID, failed: answer.failed, now: now)
                    return .answered(answer)
                }
                let answer: LookupAnswer
                switch outcome {
                case .limited(let retryAfter):
                    return rateLimited("too many failed lookups", retryAfter: retryAfter)
                case .answered(let found):
                    answer = found
                }
                let counted =
                    switch answer {
                    case .document: "used"
                    case .notFound: "not-found"
                    case .gone(let reason): reason == .used ? "used-up" : reason.rawValue
                    }
                service.metrics.codeLookup(counted)
                return response(for: answer)
            }
        } catch {
            troubles.report(error, route: "lookup")
            return unavailable()
        }
    }

    /// 503 with `Retry-After`: the database is away; the client tries again shortly.
    static func unavailable(
        _ code: DiscoveryErrorCode = .unavailable,
        _ message: String = "the discovery service cannot answer right now; try again shortly"
    ) -> Response {
        var response = error(code, message)
        response.headers[.retryAfter] = String(DatabaseWait.retryAfterSeconds)
        return response
    }

    static func response(for answer: LookupAnswer) -> Response {
        switch answer {
        case .document(let document): json(.ok, document)
        case .notFound(let why): error(.notFound, why)
        case .gone(let reason): error(reason.errorCode, reason.message)
        }
    }

    /// 413, and the connection closed rather than the rest of the body drained.
    static func tooLarge(_ message: String) -> Response {
        var response = error(.tooLarge, message)
        response.headers[.connection] = "close"
        return response
    }

    static func methodNotAllowed() -> Response {
        var response = error(.methodNotAllowed, "only GET is answered")
        response.headers[.allow] = "GET"
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// 429 with `Retry-After`: past the guessing limits.
    static func rateLimited(_ what: String, retryAfter: Int) -> Response {
        var response = error(.rateLimited, "\(what); retry in \(retryAfter) s")
        response.headers[.retryAfter] = String(retryAfter)
        return response
    }

    /// An error answer: the protocol's body, with the status its code has.
    static func error(_ code: DiscoveryErrorCode, _ message: String, keyPath: String? = nil) -> Response {
        json(HTTPResponse.Status(code: code.httpStatus), DiscoveryErrorBody(code, message, keyPath: keyPath).json)
    }
}
