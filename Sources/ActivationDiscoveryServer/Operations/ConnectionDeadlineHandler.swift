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
            context.write(
                wrapOutboundOut(
                    .head(
                        HTTPResponse(
                            status: .requestTimeout, headerFields: [.connection: "close", .contentLength: "0"]))),
                promise: nil)
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
