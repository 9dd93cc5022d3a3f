import ActivationConfiguration
import Foundation
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to 127.0.0.1 on a plain socket, for what no HTTP library sends: odd targets,
/// a head one byte at a time, a connection that says nothing. Blocking; use it inside ``offThread(_:)``.
final class RawConnection: @unchecked Sendable {
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, connected == 0 else {
            close()
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    deinit { close() }

    /// Closed once only: a second close could hit a descriptor reused since.
    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    /// Sends all of `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }

    /// Reads what arrives within `timeout`: the bytes, and whether the server closed the connection
    /// (end of stream or reset). Stops early once `enough` says the bytes so far are a whole answer.
    func read(timeout: Duration, until enough: ([UInt8]) -> Bool = { _ in false }) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while !enough(received) {
            // Past the deadline, still one look at what has already arrived.
            let left = max(.zero, deadline - ContinuousClock.now)
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left.inMilliseconds.rounded(.up)))
            if ready == 0 { return (received, false) }
            if ready < 0 { if errno == EINTR { continue } else { return (received, true) } }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (received, true) }  // end of stream, or reset
            received += buffer[..<count]
        }
        return (received, false)
    }

    /// Reads one response (head and its Content-Length body); nil when none came in `timeout`.
    /// A hang guard, not a measure: the suites beside this one (scrypt, hundreds of processes,
    /// work that holds the cooperative threads the server under test needs too) can hold a
    /// 2-core machine for many seconds.
    func response(timeout: Duration = .seconds(60)) -> RawResponse? {
        RawResponse(read(timeout: timeout, until: { RawResponse($0)?.isComplete == true }).bytes)
    }
}

/// A response as it came over the wire.
struct RawResponse {
    var status: Int
    var head: String
    var body: String
    var isComplete: Bool

    init?(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        head = String(text[..<end.lowerBound])
        body = String(text[end.upperBound...])
        let statusLine = head.split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, let code = Int(statusLine[1]) else { return nil }
        status = code
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        isComplete = body.utf8.count >= length
    }

    /// The value of the header `name` (any case), if present.
    func header(_ name: String) -> String? {
        head.split(separator: "\r\n").dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }
}

/// Runs blocking work on a Dispatch thread: waiting on a socket must not hold one of the few
/// cooperative threads the server under test needs too.
func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// One request on its own connection (`Connection: close`); the response, or nil when none came.
func rawRequest(port: Int, _ target: String, method: String = "GET", headers: String = "") async throws -> RawResponse?
{
    try await offThread {
        let connection = try RawConnection(port: port)
        connection.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(headers)\r\n")
        return connection.response()
    }
}

/// The suites whose servers share the process's few event-loop threads with heavy database work,
/// or that measure timeouts: nested here, they run one test at a time, never beside each other, so
/// that a PostgreSQL start or a load test cannot delay a timeout another test measures.
@Suite("Discovery servers, one test at a time", .serialized)
enum ServerSuites {}
