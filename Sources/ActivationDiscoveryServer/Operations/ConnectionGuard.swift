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

    init(
        responder: @escaping HTTPChannelHandler.Responder, limits: DiscoveryServer.Limits, connections: ConnectionCount,
        logger: Logger
    ) {
        // Hummingbird's own idle timeout stays off: ConnectionDeadlineHandler keeps every deadline.
        let decoder = HTTP1Channel.Configuration.DecoderConfiguration(
            maxHeaderFieldSize: DiscoveryServer.maxHeadBytes, maxHeaderListSize: DiscoveryServer.maxHeadBytes,
            maxHeaderFieldCount: 100)
        http = HTTP1Channel(
            responder: responder, configuration: .init(idleTimeout: nil, httpDecoderConfiguration: decoder))
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
        let limits = limits
        let deadlineLogger = self.logger
        return http.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { asyncChannel in
            // Between the HTTP codec and Hummingbird's handlers, to see whole request and response parts;
            // plus a watcher of raw bytes at the front, to see a request start before its head is complete.
            let pipeline = channel.pipeline.syncOperations
            let deadlines = ConnectionDeadlineHandler(limits: limits, logger: deadlineLogger)
            try pipeline.addHandler(
                deadlines, position: .before(try pipeline.handler(type: HTTPConnectionStateHandler.self)))
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
    static let response =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
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
