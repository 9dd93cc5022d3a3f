#if DiscoveryClient
    import ActivationConfiguration
    @testable import ActivationOnboarding
    import ActivationSecureStore
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import Synchronization
    import Testing

    /// An authorization server, in-process, for the faults real providers will not make on demand:
    /// an HTML 502, malformed JSON, a 400 with an empty body, no answer at all, `slow_down`.
    final class FaultyAuthorizationServer: Sendable {
        /// What a path answers: a status, a content type and a body, or nothing ever.
        enum Answer: Sendable {
            case reply(HTTPResponseStatus, String, String)
            case silence
        }

        let channel: any Channel
        let port: Int
        private let log = RequestLog()

        /// When each request came, by path.
        final class RequestLog: Sendable {
            private let entries = Mutex<[(path: String, at: ContinuousClock.Instant)]>([])
            /// Records a request to `path`; how many `path` has had, this one included.
            func add(_ path: String) -> Int {
                entries.withLock { entries in
                    entries.append((path, ContinuousClock.now))
                    return entries.filter { $0.path == path }.count
                }
            }
            func times(_ path: String) -> [ContinuousClock.Instant] {
                entries.withLock { $0.filter { $0.path == path }.map(\.at) }
            }
        }

        init(_ answers: @escaping @Sendable (_ path: String, _ count: Int) -> Answer) async throws {
            let log = self.log
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(Handler(answers: answers, log: log))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            port = channel.localAddress?.port ?? 0
        }

        var base: String { "http://localhost:\(port)" }
        /// When each request to `path` came.
        func times(_ path: String) -> [ContinuousClock.Instant] { log.times(path) }

        func stop() { _ = channel.close() }

        private final class Handler: ChannelInboundHandler {
            typealias InboundIn = HTTPServerRequestPart
            typealias OutboundOut = HTTPServerResponsePart
            let answers: @Sendable (String, Int) -> Answer
            let log: RequestLog
            init(answers: @escaping @Sendable (String, Int) -> Answer, log: RequestLog) {
                self.answers = answers
                self.log = log
            }
            private var path = ""

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                switch unwrapInboundIn(data) {
                case .head(let head): path = String(head.uri.prefix { $0 != "?" })
                case .body: break
                case .end:
                    let count = log.add(path)
                    guard case .reply(let status, let type, let body) = answers(path, count) else { return }
                    var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(body.utf8.count))])
                    headers.add(name: "Connection", value: "close")
                    context.write(
                        wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                        promise: nil)
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                }
            }
        }
    }

    @Suite("Sign-in: the faults of servers, in-process")
    struct SignInFaultTests {
        static let policy = SecurityPolicy(allowHTTP: true)

        static func session(_ server: FaultyAuthorizationServer, path: String) -> StoredSignIn {
            StoredSignIn(
                grant: "authorization_code", accessToken: "old-access", expiresAt: Date(timeIntervalSinceNow: -10),
                refreshToken: "old-refresh",
                tokenEndpoint: server.base + path, clientID: "app")
        }

        static func client(_ server: FaultyAuthorizationServer, timeout: Duration = .seconds(30)) -> OAuth2SignIn {
            OAuth2SignIn(
                endpoints: OAuth2Endpoints(
                    authorization: server.base + "/authorize", token: server.base + "/token",
                    deviceAuthorization: server.base + "/device",
                    client: OAuth2Client(clientID: "app", redirectURL: "http://127.0.0.1/callback")),
                policy: policy, requestTimeout: timeout)
        }

        @Test(
            """
            a refresh answered with an HTML 502, a 400 with an empty body or an escaped error needs a new sign-in; \
            malformed JSON and silence are the server's fault
            """,
            arguments: [
                ("/html-502", "sign-in-required", "HTTP 502 with an HTML page"),
                ("/empty-400", "sign-in-required", "HTTP 400 with an empty body"),
                ("/error-400", "sign-in-required", #"HTTP 400, invalid_grant: <script>\u{1B}[2J"#),
                ("/malformed", "server-unavailable", "the answer is not JSON"),
                ("/silence", "server-unavailable", "could not be reached"),
            ])
        func refreshFaults(path: String, code: String, reason: String) async throws {
            let server = try await FaultyAuthorizationServer { path, _ in
                switch path {
                case "/html-502": .reply(.badGateway, "text/html", "<html><body>Bad gateway</body></html>")
                case "/empty-400": .reply(.badRequest, "application/json", "")
                case "/error-400":
                    .reply(
                        .badRequest, "application/json",
                        #"{"error":"invalid_grant","error_description":"<script>\u001b[2J"}"#)
                case "/malformed": .reply(.ok, "application/json", #"{"access_token": "#)
                default: .silence
                }
            }
            defer { server.stop() }
            await #expect {
                _ = try await Self.client(server, timeout: .seconds(2)).refresh(Self.session(server, path: path))
            } throws: { error in
                guard let error = error as? OnboardingError else { return false }
                return error.code.rawValue == code && error.reason.contains(reason)
                    && !error.reason.contains("old-refresh")
            }
        }

        @Test("the device grant waits the interval before each poll and five seconds more after slow_down")
        func slowDown() async throws {
            let server = try await FaultyAuthorizationServer { path, count in
                switch (path, count) {
                case ("/device", _):
                    .reply(
                        .ok, "application/json",
                        #"""
                        {"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"http://localhost/device",\#
                        "expires_in":60,"interval":1}
                        """#
                    )
                case ("/token", 1): .reply(.badRequest, "application/json", #"{"error":"slow_down"}"#)
                case ("/token", 2): .reply(.badRequest, "application/json", #"{"error":"authorization_pending"}"#)
                case ("/token", _):
                    .reply(.ok, "application/json", #"{"access_token":"at","token_type":"Bearer","expires_in":60}"#)
                default: .silence
                }
            }
            defer { server.stop() }
            let shown = Mutex<[String]>([])
            let polls = Mutex<[Int]>([])
            let session = try await Self.client(server).signInWithDeviceCode { authorization in
                shown.withLock { $0.append(authorization.userCode) }
            } progress: { polling in
                polls.withLock { $0.append(polling.interval) }
            }
            #expect(session.accessToken == "at" && shown.withLock { $0 } == ["ABCD-EFGH"])
            #expect(polls.withLock { $0 } == [6, 6, 6], "slow_down took the interval from 1 to 6 s")
            let times = server.times("/token")
            let started = try #require(server.times("/device").first)
            #expect(times.count == 3)
            // Lower bounds only: a loaded machine may be late, never early.
            #expect(times[0] - started >= .seconds(1))
            #expect(times[1] - times[0] >= .seconds(6) && times[2] - times[1] >= .seconds(6))
        }
    }
#endif
