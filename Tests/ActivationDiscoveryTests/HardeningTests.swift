import ActivationConfiguration
import Foundation
import TestSupport
import Testing

@testable import ActivationDiscoveryProtocol
@testable import ActivationDiscoveryServer

/// The person whose address and code must never reach a log.
private enum Secret {
    static let local = "zq7jane.doe"
    static let email = "\(local)@eu.example.com"
    static let code = "12345678"
    static let function =
        "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',EmailAddress='\(email)')"
    static let byCode =
        "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',OnboardingCode='\(code)')"
    static let prefix = "/config-api.svc/ApplicationConfigurations/"

    static func expectAbsent(from log: String, _ comment: Comment? = nil) {
        for secret in [local, "zq7", code, "%40eu", "eu.example.com"] {
            #expect(!log.contains(secret), "\(secret) in the log: \(comment?.description ?? "")")
        }
    }
}

@Suite("Discovery service: hostile request targets")
struct TargetTests {
    @Test("every spelling of a path gets its documented status and leaves no personal data in the log")
    func variants() async throws {
        let log = LogCapture()
        try await withServer(logger: log.logger()) { server in
            let f = Secret.function
            let p = Secret.prefix
            let cases: [(String, Int)] = [
                (p + f, 200),
                (p + Secret.byCode, 200),
                ("/" + p + f, 200),
                ("//config-api.svc//ApplicationConfigurations//" + f, 200),
                ("/x/../config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/./config-api.svc/./ApplicationConfigurations/./" + f, 200),
                ("/../../config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/%2e%2E/config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/config-api.svc/%41pplicationConfigurations/" + f, 200),
                ("/%63onfig-api.svc/ApplicationConfigurations/%67" + f.dropFirst(), 200),
                (p + f + "?EmailAddress=\(Secret.email)", 200),
                ("http://127.0.0.1" + p + f, 200),
                ("/CONFIG-API.svc/ApplicationConfigurations/" + f, 404),
                ("/config-api.svc/applicationconfigurations/" + f, 404),
                (p + "x/" + f, 404),
                (p + f + "/..", 400),  // the lookup prefix with no function
                ("/" + Secret.email, 404),
                ("/nothing?code=\(Secret.code)", 404),
                ("/config-api.svc%2FApplicationConfigurations/" + f, 400),
                ("/config-api.svc/ApplicationConfigurations%2f" + f, 400),
                (p + f.replacingOccurrences(of: "@", with: "%00@"), 400),
                (p + f.replacingOccurrences(of: "@", with: "%C0%40"), 400),  // not UTF-8
                ("/%C0%AE%C0%AE/config-api.svc/ApplicationConfigurations/" + f, 404),  // overlong dots stay bytes
                (p + f.replacingOccurrences(of: "@", with: "%4@"), 400),
                (p + f.replacingOccurrences(of: "@", with: "%G0"), 400),
                (p + f.replacingOccurrences(of: "zq7", with: "zq7ä"), 400),  // raw bytes ≥ 0x80
                (p + f.replacingOccurrences(of: "'", with: "\""), 400),
                (p + f.replacingOccurrences(of: "@", with: "%0A@"), 400),
                (p + f + "#\(Secret.code)", 400),
                ("/health\\" + Secret.email, 400),
                (p + f.replacingOccurrences(of: Secret.local, with: String(repeating: "a", count: 5000)), 414),
                (p + f.replacingOccurrences(of: Secret.local, with: String(repeating: "a", count: 20000)), 400),
                ("/health", 200),
                ("/./health", 200),
                ("/health/", 404),
                ("*", 400),
            ]
            for (target, status) in cases {
                let response = try await rawRequest(port: server.port, target)
                #expect(response?.status == status, "\(target.prefix(50))…\(target.suffix(70))")
                if status != 200, let response {
                    #expect(
                        response.body.hasPrefix(#"{"error":{"code":"#) || status == 400 && response.body.isEmpty,
                        "\(target.prefix(80))")
                }
            }
            let post = try await rawRequest(port: server.port, Secret.prefix + Secret.function, method: "POST")
            #expect(post?.status == 405)
            #expect(post?.head.contains("Allow: GET") == true || post?.head.contains("allow: GET") == true)
            let custom = try await rawRequest(port: server.port, Secret.prefix + Secret.function, method: "PROPFIND")
            #expect(custom?.status == 405)
            let head = try await rawRequest(port: server.port, "/health", method: "HEAD")
            #expect(head?.status == 405 && head?.body == "")
            let chunked = try await rawRequest(
                port: server.port, Secret.prefix + Secret.function, headers: "Transfer-Encoding: chunked\r\n")
            #expect(chunked?.status == 413)
        }
        let text = log.text
        Secret.expectAbsent(from: text, "\(text)")
        #expect(text.contains("GET lookup 200"))
        #expect(text.contains("GET other 404"))
        #expect(text.contains("GET health 200"))
        #expect(text.contains("OTHER lookup 405"))
    }

    @Test(
        "canonical paths",
        arguments: [
            ("/", "/"), ("//", "/"), ("/a//b", "/a/b"), ("/a/./b/", "/a/b/"), ("/a/b/..", "/a/"), ("/a/b/.", "/a/b/"),
            ("/../a", "/a"), ("/a/../../..", "/"), ("/%61%2D%7e", "/a-~"), ("/%2e%2e/%2E", "/"),
            ("/a%3ab%3A", "/a%3Ab%3A"),
            ("/a?x/../y", "/a"), ("/.../a", "/.../a"), ("/a..b/..c", "/a..b/..c"),
        ])
    func canonical(target: String, path: String) throws {
        #expect(try DiscoveryRoute.canonicalPath(of: target.utf8) == path)
    }

    @Test(
        "refused targets",
        arguments: [
            "", "a", "*", "/%2F", "/%2f", "/%00", "/a%", "/a%4", "/%zz", "/a b", "/a\u{0}", "/ä", "/a#b", "/a?%00",
            "/a?%g0", "/\\",
        ])
    func refused(target: String) {
        #expect(DiscoveryRoute(target: target) == .refused(.malformed))
    }

    @Test("the settingsExchange path routes only with the same application id twice")
    func settingsRoute() {
        let path = { (first: String, second: String) in
            """
            /mobileservices/application/\(first)/storage/v1/runtime/application/\(second)/global/mobileservices/\
            settingsExchange
            """
        }
        #expect(
            DiscoveryRoute(target: path("com.example.app", "com.example.app")) == .settings(appID: "com.example.app"))
        #expect(
            DiscoveryRoute(target: path("com.example.app", "com.example.app") + "?x=1")
                == .settings(appID: "com.example.app"))
        #expect(DiscoveryRoute(target: path("a%20b", "a%20b")) == .settings(appID: "a b"))
        #expect(
            DiscoveryRoute(target: "/x/.." + path("a", "a")) == .settings(appID: "a"), "routed on the canonical path")
        #expect(DiscoveryRoute(target: path("a", "b")) == .unknown)
        #expect(DiscoveryRoute(target: path("a%01", "a%01")) == .unknown)
        #expect(
            DiscoveryRoute(target: path("a", "a").replacingOccurrences(of: "/global/", with: "/currentuser/"))
                == .unknown)
        #expect(DiscoveryRoute(target: path("a", "a") + "/more") == .unknown)
        #expect(DiscoveryRoute(target: path("a", "a")).label == "settings")
    }

    @Test("lookup calls parse with raw or encoded quotes, and refuse the rest")
    func lookupCall() {
        let p = Secret.prefix + "getApplicationConfiguration"
        let call = LookupCall(
            function: Array("getApplicationConfiguration(AppConfigID='a.b:1.0',EmailAddress='x@y.com')".utf8))
        #expect(call?.appID == "a.b" && call?.version == "1.0" && call?.lookup == .email("x@y.com"))
        #expect(
            DiscoveryRoute(target: "\(p)(AppConfigID='a.b:1.0',EmailAddress='x@y.com')")
                == DiscoveryRoute(target: "\(p)(AppConfigID=%27a.b:1.0%27,EmailAddress=%27x%40y.com%27)"))
        #expect(
            DiscoveryRoute(target: "\(p)(AppConfigID='a.b:1.0',OnboardingCode='1,2')")
                == .lookup(LookupCall(appID: "a.b", version: "1.0", lookup: .code("1,2"))))
        #expect(
            DiscoveryRoute(target: "\(p)(AppConfigID='a.b:1.0',EmailAddress='o''neil@y.com')")
                == .lookup(LookupCall(appID: "a.b", version: "1.0", lookup: .email("o'neil@y.com"))))
        for malformed in [
            "(AppConfigID='a.b:1.0')", "(AppConfigID=a.b:1.0,EmailAddress=x@y.com)",
            "(AppConfigID='a.b:1.0',EmailAddress='x@y.com',EmailAddress='z@y.com')",
            "(AppConfigID=':1.0',EmailAddress='x@y.com')", "(AppConfigID='a.b:1.0',EmailAddress='x%FF@y.com')", "", "(",
            ")",
        ] {
            #expect(DiscoveryRoute(target: p + malformed) == .malformedLookup, "\(malformed)")
        }
        #expect(DiscoveryRoute(target: Secret.prefix) == .malformedLookup)
    }

    @Test("the route parser is total and fast on arbitrary bytes")
    func arbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("/.%2fFeE0aA?'(),=:@#\\ \u{0}".utf8) + [0x80, 0xC0, 0xFF]
        let start = ThreadCPUTime.now()
        for round in 0..<5_000 {
            let length =
                round % 50 == 0
                ? Int.random(in: 0...9000, using: &generator) : Int.random(in: 0...64, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            _ = DiscoveryRoute(target: [UInt8(ascii: "/")] + bytes)
            _ = DiscoveryRoute(target: Secret.prefix.utf8 + bytes)
        }
        let worst = Array(
            (Secret.prefix + "getApplicationConfiguration(" + String(repeating: "'a',", count: 1000)).utf8.prefix(4096))
        for _ in 0..<100 { _ = DiscoveryRoute(target: worst) }
        #expect(ThreadCPUTime.now() - start < .seconds(5))
    }
}

extension ServerSuites {
    /// The limits' lower bounds are what is tested (nobody is cut off early); the upper bounds and
    /// read timeouts only guard against a connection left open for ever, so they are wide enough
    /// for a loaded 2-core machine that delays the test's threads for seconds.
    @Suite("Discovery service: slow, idle and too many clients", .serialized)
    struct ConnectionLimitTests {
        static let short = DiscoveryServer.Limits(
            headerTimeout: .seconds(1), idleTimeout: .milliseconds(1500), requestTimeout: .seconds(2),
            maxConnections: 64)

        @Test("a head sent one byte at a time is cut off at the header timeout with 408; others are served meanwhile")
        func slowloris() async throws {
            try await withServer(limits: Self.short) { server in
                async let trickled = offThread { () -> (Duration, RawResponse?, Bool) in
                    let connection = try RawConnection(port: server.port)
                    let start = ContinuousClock.now
                    for byte
                        in "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: \(String(repeating: "z", count: 40))\r\n\r\n"
                    {
                        guard connection.send(String(byte)) else { break }
                        let (bytes, closed) = connection.read(timeout: .milliseconds(300))
                        if closed { return (ContinuousClock.now - start, RawResponse(bytes), true) }
                    }
                    let (bytes, closed) = connection.read(timeout: .seconds(30))
                    return (ContinuousClock.now - start, RawResponse(bytes), closed)
                }
                // Meanwhile a normal client is answered at once, several times.
                for _ in 0..<3 {
                    let clock = ContinuousClock()
                    let start = clock.now
                    #expect(try await rawRequest(port: server.port, "/health")?.status == 200)
                    #expect(clock.now - start < .seconds(10))
                }
                let (elapsed, response, closed) = try await trickled
                #expect(closed)
                #expect(response?.status == 408)
                #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(30), "\(elapsed)")
            }
        }

        @Test("a client that connects and says nothing is closed at the header timeout, without an answer")
        func silent() async throws {
            try await withServer(limits: Self.short) { server in
                let (elapsed, bytes, closed) = try await offThread { () -> (Duration, [UInt8], Bool) in
                    let connection = try RawConnection(port: server.port)
                    let start = ContinuousClock.now
                    let (bytes, closed) = connection.read(timeout: .seconds(30))
                    return (ContinuousClock.now - start, bytes, closed)
                }
                #expect(closed && bytes.isEmpty)
                #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(30), "\(elapsed)")
            }
        }

        @Test("an idle keep-alive connection is closed after the idle timeout, not the header timeout")
        func idleKeepAlive() async throws {
            // Wide margins both ways: the pause must outlast the header timeout and stay well inside
            // the idle timeout even when a loaded 2-core CI machine delays this thread.
            var limits = Self.short
            limits.idleTimeout = .seconds(10)
            try await withServer(limits: limits) { server in
                let (first, second, idle, closed) = try await offThread { () -> (Int?, Int?, Duration, Bool) in
                    let connection = try RawConnection(port: server.port)
                    connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    let first = connection.response()?.status
                    // A second request on the same connection after a pause longer than the header timeout.
                    Thread.sleep(forTimeInterval: 2)
                    connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    let second = connection.response()?.status
                    let start = ContinuousClock.now
                    let (_, closed) = connection.read(timeout: .seconds(40))
                    return (first, second, ContinuousClock.now - start, closed)
                }
                #expect(first == 200 && second == 200)
                #expect(closed)
                #expect(idle >= .milliseconds(9900) && idle < .seconds(40), "\(idle)")
            }
        }

        @Test("a request whose body trickles is cut off at the request timeout")
        func slowBody() async throws {
            try await withServer(limits: Self.short) { server in
                let (status, elapsed, closed) = try await offThread { () -> (Int?, Duration, Bool) in
                    let connection = try RawConnection(port: server.port)
                    let start = ContinuousClock.now
                    connection.send("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
                    let status = connection.response()?.status
                    var closed = false
                    // Without the request timeout the body would take 30 s to arrive.
                    for _ in 0..<300 where !closed {
                        closed = !connection.send("z") || connection.read(timeout: .milliseconds(100)).closed
                    }
                    return (status, ContinuousClock.now - start, closed)
                }
                #expect(status == 200)
                #expect(closed)
                #expect(elapsed >= .milliseconds(1900) && elapsed < .seconds(25), "\(elapsed)")
            }
        }

        @Test("over the connection cap: 503 and closed at once; the server then answers as before")
        func cap() async throws {
            // The held connections must outlast the look at all of them: a header timeout well past it.
            let limits = DiscoveryServer.Limits(headerTimeout: .seconds(30), maxConnections: 8)
            try await withServer(limits: limits) { server in
                let (refused, busy, held) = try await offThread { () -> (Int, Int, Int) in
                    var connections: [RawConnection] = []
                    for _ in 0..<28 { connections.append(try RawConnection(port: server.port)) }
                    var refused = 0
                    var busy = 0
                    var held = 0
                    let deadline = ContinuousClock.now + .seconds(8)
                    for connection in connections {
                        let (bytes, closed) = connection.read(timeout: max(.zero, deadline - ContinuousClock.now))
                        if closed { refused += 1 } else { held += 1 }
                        if RawResponse(bytes)?.status == 503 { busy += 1 }
                    }
                    for connection in connections { connection.close() }
                    return (refused, busy, held)
                }
                #expect(refused == 20 && held == 8, "refused \(refused), held \(held)")
                #expect(busy == 20)
                var status: Int?
                for _ in 0..<20 where status != 200 {
                    status = try await rawRequest(port: server.port, "/health")?.status
                    if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(status == 200)
            }
        }

        @Test("the cap never exceeds what the file-descriptor limit allows")
        func descriptorLimit() {
            let limits = DiscoveryServer.Limits(maxConnections: 512)
            #expect(limits.effectiveMaxConnections(descriptorLimit: 20_000) == 512)
            #expect(
                limits.effectiveMaxConnections(descriptorLimit: 256) == 256 - DiscoveryServer.Limits.reservedDescriptors
                    - DiscoveryServer.Limits.refusalSlots)
            #expect(limits.effectiveMaxConnections(descriptorLimit: 10) == 1)
            #expect(limits.effectiveMaxConnections() <= 512)
        }
    }
}
