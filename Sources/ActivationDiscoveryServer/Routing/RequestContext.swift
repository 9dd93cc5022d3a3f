import ActivationDiscoveryProtocol
import Hummingbird
import NIOCore

extension DiscoveryServer {
    /// A request's context: Hummingbird's, the peer's address, the request's route in canonical
    /// form (set by ``RequestLog``), and for admin calls who made them and what they touched.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let peer: SocketAddress?
        /// The route of the request's canonical target.
        var route = DiscoveryRoute.unknown
        /// The admin token's fingerprint, once `AdminAuthentication` accepted it.
        var actor: String?
        /// What an admin call touched, for `AdminAudit`.
        var auditNote: AuditNote?

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            peer = source.channel.remoteAddress
        }
    }
}
