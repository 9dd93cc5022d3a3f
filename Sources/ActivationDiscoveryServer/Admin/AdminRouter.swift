import ActivationDiscoveryProtocol
import Hummingbird

extension AdminAPI {
    /// The admin API's router: the token check and the audit as middleware, one route per
    /// ``AdminOperation`` on its template, 405 for another method on a known path. It is handed
    /// requests whose path is already canonical (see `DiscoveryRoute`).
    func router(
        guessing: GuessingLimits?, trustedProxies: [IPNetwork], troubles: DatabaseTroubleLog,
        afterChange: (@Sendable () async -> Void)?
    ) -> Router<DiscoveryServer.Context> {
        let router = Router(context: DiscoveryServer.Context.self)
        router.add(
            middleware: AdminAuthentication(
                tokens: tokens, audit: audit, guessing: guessing, trustedProxies: trustedProxies))
        router.add(middleware: AdminAudit(audit: audit, troubles: troubles, afterChange: afterChange))
        for operation in AdminOperation.allCases {
            router.on(RouterPath(operation.template), method: HTTPRequest.Method(operation.method) ?? .get) {
                request, context in
                try await self.handle(operation, request: request, context: context)
            }
        }
        for (template, operations) in Dictionary(grouping: AdminOperation.allCases, by: \.template) {
            let allowed = operations.map(\.method)
            let refusal = AdminRefusal(
                .methodNotAllowed, "use \(allowed.joined(separator: " or "))", allow: allowed.joined(separator: ", "))
            for method in [HTTPRequest.Method.get, .head, .put, .post, .delete, .patch, .options]
            where !allowed.contains(method.rawValue) {
                router.on(RouterPath(template), method: method) { _, _ -> Response in throw refusal }
            }
        }
        return router
    }
}

extension AdminOperation {
    /// The operation answering `method` on a route `template`; nil for none.
    init?(method: String, template: String) {
        guard let operation = Self.allCases.first(where: { $0.method == method && $0.template == template }) else {
            return nil
        }
        self = operation
    }
}
