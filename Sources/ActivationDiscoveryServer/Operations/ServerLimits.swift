#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiscoveryServer {
    /// How long a client may take and how many may be connected at once.
    public struct Limits: Sendable, Hashable {
        /// A request head must be complete this long after the connection opens, or after the first
        /// byte that follows the previous response; else 408 and the connection is closed.
        public var headerTimeout: Duration
        /// A keep-alive connection with no request under way is closed after this long without a byte.
        public var idleTimeout: Duration
        /// A request (its body included) must be read and answered this long after its head arrived;
        /// else the connection is closed.
        public var requestTimeout: Duration
        /// At most this many connections are served at once; more are answered 503 and closed. Lowered
        /// to what the process's file-descriptor limit allows (see ``effectiveMaxConnections(descriptorLimit:)``).
        public var maxConnections: Int

        /// Makes limits; by default a 10-second header timeout, 30-second idle and request timeouts,
        /// and 512 connections.
        public init(
            headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(10),
            requestTimeout: Duration = .seconds(30), maxConnections: Int = 512
        ) {
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maxConnections = maxConnections
        }

        /// Descriptors kept for everything but connections: standard streams, the listening socket,
        /// event loops, files.
        public static let reservedDescriptors = 64
        /// Connections accepted beyond ``maxConnections`` only to be answered 503 and closed; past
        /// them, new connections wait in the kernel's listen queue (which holds no descriptor).
        public static let refusalSlots = 32

        /// ``maxConnections``, lowered so that served and refused connections plus the reserve stay
        /// within `descriptorLimit` (the soft `RLIMIT_NOFILE`; nil reads it). At least 1.
        public func effectiveMaxConnections(descriptorLimit: Int? = nil) -> Int {
            let limit = descriptorLimit ?? Self.descriptorLimit()
            return max(1, min(maxConnections, limit - Self.reservedDescriptors - Self.refusalSlots))
        }

        static func descriptorLimit() -> Int {
            var limit = rlimit()
            #if os(Linux)
                let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            #else
                let resource = RLIMIT_NOFILE
            #endif
            guard getrlimit(resource, &limit) == 0 else { return 1024 }
            return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY clamps to Int.max
        }
    }
}
