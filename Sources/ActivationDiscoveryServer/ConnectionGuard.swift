import ActivationDiscoveryProtocol
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

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
        public init(headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(30),
                    requestTimeout: Duration = .seconds(30), maxConnections: Int = 512) {
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

/// The number of connections being served, shared by every event loop.
final class ConnectionCount: Sendable {
    private let open = NIOLockedValueBox(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection in, or returns false when the cap is reached.
    func admit() -> Bool {
        open.withLockedValue { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func release() { open.withLockedValue { $0 -= 1 } }
}

/// HTTP/1 as Hummingbird serves it, behind a connection cap and per-connection deadlines.
struct GuardedHTTP1Channel: ServerChildChannel {
    enum Value: ServerChildChannelValue {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case .http(let http): http.channel
            case .refused(let channel): channel
            }
        }
    }

    let http: HTTP1Channel
    let limits: DiscoveryServer.Limits
    let connections: ConnectionCount
    let logger: Logger

    init(responder: @escaping HTTPChannelHandler.Responder, limits: DiscoveryServer.Limits, connections: ConnectionCount, logger: Logger) {
        // Hummingbird's own idle timeout stays off: ConnectionDeadlineHandler keeps every deadline.
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: DiscoveryServer.maxHeadBytes, maxHeaderListSize: DiscoveryServer.maxHeadBytes, maxHeaderFieldCount: 100)
        http = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: nil, httpDecoderConfiguration: decoder))
        self.limits = limits
        self.connections = connections
        self.logger = logger
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard connections.admit() else {
            self.logger.debug("connection refused: \(connections.limit) connections open")
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusingHandler())
                return .refused(channel)
            }
        }
        let connections = self.connections
        channel.closeFuture.whenComplete { _ in connections.release() }
        let limits = limits, deadlineLogger = self.logger
        return http.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { asyncChannel in
            // Between the HTTP codec and Hummingbird's handlers, to see whole request and response parts;
            // plus a watcher of raw bytes at the front, to see a request start before its head is complete.
            let pipeline = channel.pipeline.syncOperations
            let deadlines = ConnectionDeadlineHandler(limits: limits, logger: deadlineLogger)
            try pipeline.addHandler(deadlines, position: .before(try pipeline.handler(type: HTTPConnectionStateHandler.self)))
            try pipeline.addHandler(ByteArrivalHandler(deadlines: deadlines), position: .first)
            return Value.http(asyncChannel)
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        if case .http(let asyncChannel) = value {
            await http.handle(value: asyncChannel, logger: logger)
        }
    }
}

/// Answers 503 as soon as the connection is up, then closes it; reads nothing.
final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var refused = false

    static let answer = DiscoveryErrorBody(.busy, "too many connections; try again later").json
    static let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
        + "Content-Length: \(answer.utf8.count)\r\nConnection: close\r\nRetry-After: 1\r\n\r\n\(answer)"

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    private func refuse(_ context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: Self.response)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Tells the deadline handler that bytes arrived, before the HTTP decoder has made anything of them.
final class ByteArrivalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let deadlines: ConnectionDeadlineHandler

    init(deadlines: ConnectionDeadlineHandler) { self.deadlines = deadlines }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived()
        context.fireChannelRead(data)
    }
}

/// Closes a connection that keeps the server waiting: a request head not complete within the header
/// timeout (408 first if part of it came), an idle keep-alive connection, a request not read and
/// answered within the request timeout. Also closes after a response that says `Connection: close`.
///
/// One timer per connection, moved lazily: it fires at the earliest deadline set since it was
/// armed and re-arms itself when the deadline has moved later.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum Phase: Equatable {
        /// Waiting for a complete request head; `started` once a byte of it came.
        case awaitingHead(started: Bool)
        /// Reading a request or writing its answer.
        case inRequest
        /// Between requests, nothing received.
        case idle
        case closed
    }

    private let limits: DiscoveryServer.Limits
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private(set) var phase = Phase.awaitingHead(started: false)
    private var deadline = NIODeadline.distantFuture
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture
    private var unansweredRequests = 0
    private var readingRequest = false
    private var closeAfterResponse = false

    init(limits: DiscoveryServer.Limits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func start() {
        guard phase == .awaitingHead(started: false), deadline == .distantFuture else { return }
        arm(limits.headerTimeout)
    }

    private func stop() {
        phase = .closed
        timer?.cancel()
        timer = nil
    }

    func bytesArrived() {
        switch phase {
        case .idle:
            phase = .awaitingHead(started: true)
            arm(limits.headerTimeout)
        case .awaitingHead(started: false):
            phase = .awaitingHead(started: true)
        case .awaitingHead(started: true), .inRequest, .closed:
            break
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unansweredRequests += 1
            readingRequest = true
            if phase != .inRequest, phase != .closed {
                phase = .inRequest
                arm(limits.requestTimeout)
            }
        case .body:
            break
        case .end:
            readingRequest = false
            settle()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            if response.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            unansweredRequests = max(0, unansweredRequests - 1)
            if closeAfterResponse {
                context.writeAndFlush(data, promise: promise)
                stop()
                context.close(promise: nil)
            } else {
                context.write(data, promise: promise)
                settle()
            }
        }
    }

    /// After a request was read or answered: idle when both are done, a fresh request deadline when
    /// the next pipelined request is already waiting for its answer.
    private func settle() {
        guard phase == .inRequest, !readingRequest else { return }
        if unansweredRequests == 0 {
            phase = .idle
            arm(limits.idleTimeout)
        } else {
            arm(limits.requestTimeout)
        }
    }

    private func arm(_ timeout: Duration) {
        deadline = .now() + TimeAmount(timeout)
        guard let context, timer == nil || deadline < timerDeadline else { return }
        timer?.cancel()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in self?.fire() }
    }

    private func fire() {
        timer = nil
        guard let context, phase != .closed else { return }
        if deadline > .now() {
            timerDeadline = deadline
            timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in self?.fire() }
            return
        }
        switch phase {
        case .awaitingHead(started: true):
            // Nothing is being answered, so a response cannot interleave with this one.
            logger.debug("closing a connection: request head not complete in time (408)")
            context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: [.connection: "close", .contentLength: "0"]))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .inRequest:
            logger.debug("closing a connection: request not read and answered in time")
        case .awaitingHead(started: false), .idle, .closed:
            logger.trace("closing an idle connection")
        }
        stop()
        context.close(promise: nil)
    }
}
