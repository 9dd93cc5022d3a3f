import ActivationDiscoveryProtocol
import Foundation
import Hummingbird
import NIOCore

extension DiscoveryServer {
    /// The lookups, client policies, operations and console routes (``DiscoveryRoute``), each on
    /// its template, behind ``NoBody``. The console's routes exist when the admin API does.
    static func publicRoutes(on router: Router<Context>, service: Service, troubles: DatabaseTroubleLog) {
        let routes = router.group().add(middleware: NoBody())
        for route in DiscoveryRoute.allCases {
            let handler: @Sendable (Request, Context) async throws -> Response
            switch route {
            case .health:
                handler = { _, _ in json(.ok, #"{"status":"ok"}"#) }
            case .ready:
                handler = { _, _ in
                    if let why = await service.lookups.unreadiness() { return unavailable(.notReady, why) }
                    return json(.ok, #"{"status":"ready"}"#)
                }
            case .metrics:
                handler = { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: service.metrics.exposition())))
                }
            case .openAPI:
                handler = { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
                }
            case .lookup:
                handler = { request, context in
                    let call = try context.parameter("function", as: LookupCall.self)
                    // Whom the guessing limits count against: worked out only for the requests they limit.
                    let client = {
                        ClientAddress.of(
                            peer: context.peer, forwardedFor: request.headers[values: .xForwardedFor],
                            trusted: service.trustedProxies)
                    }
                    return await lookup(call, client: client, service: service, troubles: troubles, now: Date())
                }
            case .settings:
                handler = { _, context in
                    let appID = try context.parameter("appID", as: SettingsAppID.self).value
                    guard try context.parameter("appIDAgain", as: SettingsAppID.self).value == appID else {
                        throw Refusal(.notFound, "no such resource: the path names two application ids")
                    }
                    do {
                        guard let document = try await service.lookups.settings(appID: appID) else {
                            return error(.notFound, "no client policies for the application \(appID)")
                        }
                        return json(.ok, document)
                    } catch {
                        troubles.report(error, route: route.label)
                        return unavailable()
                    }
                }
            case .console:
                guard service.admin != nil else { continue }
                handler = { _, _ in AdminConsole.response(for: "") }
            case .consoleFile:
                guard service.admin != nil else { continue }
                handler = { _, context in AdminConsole.response(for: context.parameters.get("file") ?? "") }
            }
            routes.resource(route.template, route.methods.map { ($0, handler) })
        }
    }

    /// Lookups and the other public routes carry no body: a large or unbounded one is refused
    /// (413), and the connection closed rather than drained.
    struct NoBody: RouterMiddleware {
        typealias Context = DiscoveryServer.Context

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            if request.mayCarryBody(over: maxBodyBytes) {
                return tooLarge("lookups and the service's other public resources carry no body")
            }
            return try await next(request, context)
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

extension Request {
    /// Whether the head announces a body of more than `limit` bytes: chunked (of unknown size), or
    /// a `Content-Length` over the limit or not a number.
    func mayCarryBody(over limit: Int) -> Bool {
        headers[.transferEncoding] != nil || headers[.contentLength].map({ Int($0).map { $0 > limit } ?? true }) == true
    }
}
