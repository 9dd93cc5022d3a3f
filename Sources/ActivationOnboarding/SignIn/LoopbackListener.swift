#if DiscoveryClient
    import ActivationConfiguration
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import Synchronization

    /// The listener that takes the browser's redirect back on this device (RFC 8252 §7.3): bound to
    /// 127.0.0.1 or ::1 only, on the redirect URL's port (a free one when it names none), answering
    /// only the redirect's path, with static pages that load nothing and are neither cached nor
    /// referred on. A callback with a missing or wrong `state` is answered 400 and the listener goes
    /// on waiting: a stale tab or another local process cannot end the sign-in. It stops at the
    /// first right callback, at an `error` with the right state, or at the timeout, and releases
    /// its port.
    final class LoopbackListener: Sendable {
        /// The port it listens on.
        let port: Int
        /// The redirect URI to send: the client's, with the port taken.
        let redirectURI: String
        private let channel: any Channel
        private let outcome: Outcome

        /// Starts listening where `redirectURL` points (a loopback URL).
        ///
        /// - Throws: ``OnboardingError`` `signInFailed` when the address cannot be bound (a port in use).
        static func start(redirectURL: String) async throws -> LoopbackListener {
            guard let url = try? CanonicalURL(parsing: redirectURL), url.scheme == "http", url.host.isLoopback else {
                throw OnboardingError(
                    .signInFailed,
                    "\(UntrustedText.escaped(redirectURL, maxCharacters: 200)) is not a loopback redirect address")
            }
            // `localhost` is bound as 127.0.0.1: a name could resolve elsewhere (RFC 8252 §8.3).
            let address: String
            switch url.host {
            case .ipv6(let text): address = text
            case .ipv4(let text): address = text
            case .name: address = "127.0.0.1"
            }
            let path = url.path.isEmpty ? "/" : url.path
            let outcome = Outcome()
            let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 16)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(CallbackHandler(path: path, outcome: outcome))
                    }
                }
            let channel: any Channel
            do {
                channel = try await bootstrap.bind(host: address, port: url.port ?? 0).get()
            } catch {
                throw OnboardingError(
                    .signInFailed, "cannot listen on \(url.host):\(url.port ?? 0) for the redirect (\(error))")
            }
            let port = channel.localAddress?.port ?? url.port ?? 0
            let hostPart = url.host.description
            let query = url.query.map { "?\($0)" } ?? ""
            return LoopbackListener(
                port: port, redirectURI: "http://\(hostPart):\(port)\(url.path)\(query)", channel: channel,
                outcome: outcome)
        }

        private init(port: Int, redirectURI: String, channel: any Channel, outcome: Outcome) {
            self.port = port
            self.redirectURI = redirectURI
            self.channel = channel
            self.outcome = outcome
        }

        /// Judges callbacks against `request` from now on: set before the browser opens, which may
        /// come back at once. Until then every callback is answered 400.
        func expect(_ request: AuthorizationRequest, issuer: String?) {
            outcome.expect(request: request, issuer: issuer)
        }

        /// Waits for the callback of the request ``expect(_:issuer:)`` named and returns its code;
        /// the port is released when this returns, on every path.
        ///
        /// - Throws: ``OnboardingError`` `signInFailed` for an `error` callback, a failed check, or
        ///   no callback within `timeout`.
        func code(timeout: Duration) async throws -> String {
            let result: Result<String, any Error>
            do {
                result = .success(
                    try await withThrowingTaskGroup(of: String.self) { group in
                        group.addTask { try await self.outcome.wait() }
                        group.addTask {
                            try await Task.sleep(for: timeout)
                            throw OnboardingError(
                                .signInFailed, "no sign-in came back within \(timeout.components.seconds) seconds")
                        }
                        defer { group.cancelAll() }
                        guard let code = try await group.next() else { throw CancellationError() }
                        return code
                    })
            } catch {
                result = .failure(error)
            }
            await close()
            return try result.get()
        }

        /// Stops listening (also when no callback came), and returns once the port is released.
        func close() async {
            outcome.cancel()
            try? await channel.close(mode: .all).get()
        }

        /// Callbacks count as requests; tests read how many were answered 400.
        var wrongStateCount: Int { outcome.wrongStates }
    }

    /// What the listener waits for, shared between the event loop and the waiting task.
    private final class Outcome: Sendable {
        private struct State {
            var request: AuthorizationRequest?
            var issuer: String?
            var result: Result<String, OnboardingError>?
            var waiter: CheckedContinuation<String, any Error>?
            var wrongStates = 0
        }
        private let state = Mutex(State())

        func expect(request: AuthorizationRequest, issuer: String?) {
            state.withLock {
                $0.request = request
                $0.issuer = issuer
            }
        }

        var wrongStates: Int { state.withLock { $0.wrongStates } }

        /// Judges a callback's query; `nil` when the sign-in is already over (the page says so).
        /// Before a request is expected, no state is right.
        func judge(_ query: Substring) -> AuthorizationCallback.Verdict? {
            state.withLock { current in
                guard current.result == nil else { return nil }
                guard let request = current.request else {
                    current.wrongStates += 1
                    return .wrongState
                }
                let verdict: AuthorizationCallback.Verdict
                do {
                    verdict = try AuthorizationCallback(query: query).verdict(for: request, issuer: current.issuer)
                } catch {
                    // A query without the right state proves nothing: answered 400, still waiting.
                    current.wrongStates += 1
                    return .wrongState
                }
                switch verdict {
                case .wrongState: current.wrongStates += 1
                case .code(let code): finish(&current, .success(code))
                case .failed(let error): finish(&current, .failure(error))
                }
                return verdict
            }
        }

        private func finish(_ current: inout State, _ result: Result<String, OnboardingError>) {
            current.result = result
            if let waiter = current.waiter {
                current.waiter = nil
                waiter.resume(with: result.mapError { $0 as any Error })
            }
        }

        func wait() async throws -> String {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    state.withLock { current in
                        if let result = current.result {
                            continuation.resume(with: result.mapError { $0 as any Error })
                        } else {
                            current.waiter = continuation
                        }
                    }
                }
            } onCancel: {
                cancel()
            }
        }

        func cancel() {
            state.withLock { current in
                if let waiter = current.waiter {
                    current.waiter = nil
                    waiter.resume(throwing: CancellationError())
                }
            }
        }
    }

    /// Answers one HTTP request on the listener's connection.
    private final class CallbackHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let path: String
        let outcome: Outcome
        private var head: HTTPRequestHead?

        init(path: String, outcome: Outcome) {
            self.path = path
            self.outcome = outcome
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let request): head = request
            case .body: break
            case .end:
                guard let request = head else { return }
                let (status, page) = answer(request)
                respond(context: context, status: status, page: page)
            }
        }

        private func answer(_ request: HTTPRequestHead) -> (HTTPResponseStatus, SignInPage) {
            let target = Substring(request.uri)
            let requestPath = target.prefix { $0 != "?" }
            guard requestPath == path else { return (.notFound, .notFound) }
            guard request.method == .GET else { return (.methodNotAllowed, .notFound) }
            let query = target.dropFirst(requestPath.count + (target.count > requestPath.count ? 1 : 0))
            switch outcome.judge(query) {
            case nil: return (.gone, .over)
            case .wrongState?: return (.badRequest, .wrongState)
            case .code?: return (.ok, .signedIn)
            case .failed(let error)?: return (.ok, .failed(error.reason))
            }
        }

        private func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, page: SignInPage) {
            let body = ByteBuffer(string: page.html)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "Referrer-Policy", value: "no-referrer")
            headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
            headers.add(name: "X-Content-Type-Options", value: "nosniff")
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

#endif
