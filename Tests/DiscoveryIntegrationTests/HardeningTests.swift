import ActivationConfiguration
import Foundation
import TestSupport
import Testing

@testable import ActivationDiscoveryProtocol
@testable import ActivationDiscoveryServer

/// What only a real socket shows: the HTTP decoder's own refusals and forms of the request line
/// (routing, statuses and error bodies are tested in-process, RouterTests).
@Suite("Discovery service: request lines as the HTTP decoder reads them")
struct RequestLineTests {
    @Test("absolute-form targets route on their path; a head over 16 KiB is 400; the lookup path is logged as such")
    func requestLines() async throws {
        let log = LogCapture()
        try await withServer(logger: log.logger()) { server in
            let lookup =
                "/config-api.svc/ApplicationConfigurations/"
                + "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',EmailAddress='a@example.com')"
            #expect(try await rawRequest(port: server.port, "http://127.0.0.1" + lookup)?.status == 200)
            let long = lookup.replacingOccurrences(of: "a@", with: String(repeating: "a", count: 20_000) + "@")
            #expect(try await rawRequest(port: server.port, long)?.status == 400)
            let post = try await rawRequest(port: server.port, lookup, method: "POST")
            #expect(post?.status == 405 && post?.header("Allow") == "GET")
        }
        #expect(log.text.contains("GET lookup 200"))
        #expect(!log.text.contains("a@example.com"))
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
