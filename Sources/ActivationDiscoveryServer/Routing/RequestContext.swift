import ActivationDiscoveryProtocol
import Hummingbird
import NIOCore

extension DiscoveryServer {
    /// A request's context: Hummingbird's (the route's template and path parameters), the peer's
    /// address, and for admin calls who made them and what they touched.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let peer: SocketAddress?
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
