import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `activate serve` as its own process against hostile clients: its log, its timeouts, its
/// connection cap and the descriptors it holds.
@Suite("serve against hostile clients", .serialized)
struct ServeLimitsTests {
    let directory: TemporaryFolder
    let configs: String

    init() throws {
        directory = try TemporaryFolder(prefix: "activate-cli")
        configs = directory.file("configs")
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        for name in ["oauth-authorization-code.json", "android-basic.json"] {
            try FileManager.default.copyItem(atPath: "\(SourceTree.documents)/\(name)", toPath: "\(configs)/\(name)")
        }
        try Data(
            """
            {"applications": {"com.example.fieldservice": {
              "domains": {"example.com": "oauth-authorization-code.json"},
              "codes": {"12345678": {"document": "android-basic.json", "expires": "2099-01-01T00:00:00Z"}}}}}
            """.utf8
        ).write(to: URL(fileURLWithPath: "\(configs)/discovery.json"))
    }

    @Test("--help documents the bounds and their defaults")
    func help() async throws {
        let help = try await ActivateCLI.run(["serve", "--help"]).text
        for option in [
            "--header-timeout <seconds>", "--idle-timeout <seconds>", "--request-timeout <seconds>",
            "--max-connections <n>",
        ] {
            #expect(help.contains(option), "\(option)")
        }
        for value in ["(default: 10.0)", "(default: 30.0)", "(default: 512)"] {
            #expect(help.contains(value), "\(value)")
        }
        #expect(try await ActivateCLI.run(["serve", "--configs", configs, "--header-timeout", "0"]).status == 64)
        #expect(try await ActivateCLI.run(["serve", "--configs", configs, "--max-connections", "0"]).status == 64)
    }

    @Test("a port in use is named plainly, without the network library's internals")
    func portInUse() async throws {
        let server = try ServeProcess(configs: configs)
        let second = try await ActivateCLI.run([
            "serve", "--configs", configs, "--database", "none", "--port", "\(server.port)",
        ])
        _ = server.stop()
        #expect(second.status == 1)
        #expect(
            second.stderr
                == """
                activate: serve: port \(server.port) is in use on 127.0.0.1 (another server listens there); choose \
                another with --port\n
                """,
            "\(second.stderr)")
    }

    @Test("odd spellings of a lookup path: answered, and the log holds no address or code")
    func log() async throws {
        let server = try ServeProcess(configs: configs)
        let function =
            "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',EmailAddress='zq7jane@example.com')"
        let byCode = "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',OnboardingCode='12345678')"
        let targets: [(String, Int)] = [
            ("//config-api.svc/ApplicationConfigurations/\(function)", 200),
            ("/CONFIG-API.svc/ApplicationConfigurations/\(function)", 404),
            ("/config-api.svc/%41pplicationConfigurations/\(function)", 200),
            ("/x/../config-api.svc/ApplicationConfigurations/\(byCode)", 200),
            ("/config-api.svc%2FApplicationConfigurations/\(byCode)", 400),
            ("/zq7jane@example.com?code=12345678", 404),
        ]
        for (target, status) in targets {
            let answer = try await Socket.exchange(
                port: server.port, "GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 \(status) "), "\(target): \(answer.prefix(40))")
        }
        let (status, log) = server.stop()
        #expect(status == 0)
        #expect(
            log.contains("GET lookup 200") && log.contains("GET other 404") && log.contains("GET other 400"), "\(log)")
        #expect(!log.contains("zq7") && !log.contains("12345678") && !log.contains("example.com"), "\(log)")
    }

    @Test(
        """
        connection cap and header timeout: extra connections refused at once, descriptors bounded, slow clients cut off
        """
    )
    func capAndTimeout() async throws {
        let server = try ServeProcess(configs: configs, arguments: ["--max-connections", "8", "--header-timeout", "2"])
        defer { _ = server.stop() }
        let port = server.port
        let fdFolder = "/proc/\(server.process.processIdentifier)/fd"
        let descriptors: @Sendable () -> Int = {
            (try? FileManager.default.contentsOfDirectory(atPath: fdFolder).count) ?? 0
        }
        let baseline = descriptors()
        let (closedAtOnce, heldAfterwards) = try await offThread { () -> (Int, Int) in
            let sockets = try (0..<48).map { _ in try Socket(port: port) }
            defer { for socket in sockets { socket.close() } }
            // Within a second, well before the header timeout closes the 8 that are served.
            let deadline = ContinuousClock.now + .seconds(1)
            let closed = sockets.filter { $0.waitForClose(timeout: deadline - ContinuousClock.now) }.count
            return (closed, descriptors())
        }
        #expect(closedAtOnce == 40, "\(closedAtOnce)")
        #expect(heldAfterwards - baseline <= 8 + 2, "\(baseline) → \(heldAfterwards)")

        // The server frees the 48 connections' slots only once it has seen them close: wait for
        // that, or the next two clients could still be refused as over the cap (closed at once).
        let released = ContinuousClock.now + .seconds(5)
        while descriptors() - baseline > 2, ContinuousClock.now < released {
            try await Task.sleep(for: .milliseconds(20))
        }

        // A head sent one byte a second is cut off at the header timeout (2 s); a silent client too.
        let (slow, silent) = try await offThread { () -> (Duration, Duration) in
            let trickling = try Socket(port: port)
            let quiet = try Socket(port: port)
            defer {
                trickling.close()
                quiet.close()
            }
            let start = ContinuousClock.now
            for byte in "GET /health HTTP/1.1\r\n".utf8 {
                trickling.send([byte])
                if trickling.waitForClose(timeout: .seconds(1)) { break }
            }
            let slow = ContinuousClock.now - start
            _ = quiet.waitForClose(timeout: .seconds(4))
            return (slow, ContinuousClock.now - start)
        }
        #expect(slow > .milliseconds(1500) && slow < .seconds(4) && silent < .seconds(4), "\(slow), \(silent)")

        let answer = try await Socket.exchange(
            port: server.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 "))
        #expect(descriptors() - baseline <= 2)
    }
}

extension ServeProcess {
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }
}

/// A blocking loopback TCP client, just enough for these tests (run it with `offThread`).
final class Socket: @unchecked Sendable {
    private var fd: Int32

    init(port: Int) throws {
        fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, result == 0 else {
            close()
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close() }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the server closes the connection (true) or `timeout` passes (false); `received` collects the bytes.
    func waitForClose(timeout: Duration, received: inout [UInt8]) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Past the deadline, still one look at what has already arrived.
            let left = max(.zero, deadline - ContinuousClock.now)
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, milliseconds) > 0 else {
                if ContinuousClock.now >= deadline { return false } else { continue }
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
            received += buffer[..<count]
        }
    }

    func waitForClose(timeout: Duration) -> Bool {
        var ignored: [UInt8] = []
        return waitForClose(timeout: timeout, received: &ignored)
    }

    /// Sends a request with `Connection: close` and returns all the server sent back.
    static func exchange(port: Int, _ request: String) async throws -> String {
        try await offThread {
            let socket = try Socket(port: port)
            socket.send(Array(request.utf8))
            var received: [UInt8] = []
            _ = socket.waitForClose(timeout: .seconds(5), received: &received)
            return String(decoding: received, as: UTF8.self)
        }
    }
}

/// Runs blocking work on a Dispatch thread, off the few cooperative threads.
func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
