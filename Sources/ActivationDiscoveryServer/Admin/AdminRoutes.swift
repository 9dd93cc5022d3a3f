import ActivationDiscoveryProtocol
import Hummingbird

extension AdminAPI {
    /// The admin API's routes on the service's router: a route group behind the token check and
    /// the audit, one route per ``AdminOperation`` on its template, 405 with `Allow` for another
    /// method on a known path, 404 for any other path below the prefix: all after the token check,
    /// so a caller without a token learns nothing, not even which paths exist.
    func routes(
        on router: Router<DiscoveryServer.Context>, guessing: GuessingLimits?, trustedProxies: [IPNetwork],
        troubles: DatabaseTroubleLog, afterChange: (@Sendable () async -> Void)?
    ) {
        let group = router.group()
            .add(
                middleware: AdminAuthentication(
                    tokens: tokens, audit: audit, guessing: guessing, trustedProxies: trustedProxies)
            )
            .add(middleware: AdminAudit(audit: audit, troubles: troubles, afterChange: afterChange))
        let byTemplate = Dictionary(grouping: AdminOperation.allCases, by: \.template)
        for (template, operations) in byTemplate.sorted(by: { $0.key < $1.key }) {
            group.resource(
                template,
                operations.map { operation in
                    (operation.method, { request, context in try await self.handle(operation, request, context) })
                })
        }
        group.on(RouterPath(AdminOperation.prefix + "/**"), method: .undeclared) { _, _ -> Response in
            throw Refusal(.notFound, "no such admin resource")
        }
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
