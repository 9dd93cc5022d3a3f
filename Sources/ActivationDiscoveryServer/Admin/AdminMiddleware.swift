import ActivationDiscoveryProtocol
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// What an admin call touched, filled in by its handler for the audit.
final class AuditNote: Sendable {
    private let state = Mutex<(appID: String?, subject: String?)>((nil, nil))
    var appID: String? {
        get { state.withLock { $0.appID } }
        set { state.withLock { $0.appID = newValue } }
    }
    var subject: String? {
        get { state.withLock { $0.subject } }
        set { state.withLock { $0.subject = newValue } }
    }
}

/// The token check, before anything else is looked at: a caller without a valid token learns
/// nothing, not even which paths exist. A wrong token is a guess like a wrong code: it takes from
/// the client's budget, and past it the answer is 429. No answer of the admin API is kept by a
/// cache (`Cache-Control: no-store`): they hold codes and documents.
struct AdminAuthentication: RouterMiddleware {
    typealias Context = DiscoveryServer.Context
    let tokens: AdminTokens
    let audit: AuditLog
    let guessing: GuessingLimits?
    let trustedProxies: [IPNetwork]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await check(request, context: context, next: next)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let actor = tokens.actor(authorization: request.headers[.authorization]) else {
            let now = Date()
            let client = ClientAddress.of(
                peer: context.peer, forwardedFor: request.headers[values: .xForwardedFor], trusted: trustedProxies)
            if let retryAfter = try? await guessing?.admit(client: client, appID: nil, now: now) {
                return DiscoveryServer.rateLimited("too many failed attempts", retryAfter: retryAfter)
            }
            try? await audit.record(
                AuditEntry(at: now, actor: "unauthenticated", action: "sign-in", outcome: "unauthorized"))
            return Refusal(.unauthorized, "a valid bearer token is needed (Authorization: Bearer <token>)")
                .response
        }
        var context = context
        context.actor = actor
        return try await next(request, context)
    }
}

/// Every authenticated call in the audit trail: who, which operation, what it touched, how it
/// ended. A refusal is answered with the protocol's error body, a database failure with 503; after
/// a change, the instance reloads what it serves before answering (read-your-writes).
struct AdminAudit: RouterMiddleware {
    typealias Context = DiscoveryServer.Context
    let audit: AuditLog
    let troubles: DatabaseTroubleLog
    /// Reloads what this instance serves.
    let afterChange: (@Sendable () async -> Void)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let note = AuditNote()
        var context = context
        context.auditNote = note
        let operation = context.coreContext.endpointPath.value.flatMap {
            AdminOperation(method: request.method.rawValue, template: $0)
        }
        let response: Response
        let outcome: String
        do {
            response = try await next(request, context)
            if operation?.changesState == true { await afterChange?() }
            outcome = "ok"
        } catch let refusal as Refusal {
            (response, outcome) = (refusal.response, refusal.code.rawValue)
        } catch {
            troubles.report(error, route: context.coreContext.endpointPath.value ?? AdminOperation.prefix)
            let unavailable = DiscoveryServer.unavailable(
                .unavailable, "the database could not complete the request; try again shortly")
            (response, outcome) = (unavailable, DiscoveryErrorCode.unavailable.rawValue)
        }
        try? await audit.record(
            AuditEntry(
                at: Date(), actor: context.actor ?? "unauthenticated", action: operation?.auditAction ?? "unknown",
                appID: note.appID, subject: note.subject, outcome: outcome))
        return response
    }
}
