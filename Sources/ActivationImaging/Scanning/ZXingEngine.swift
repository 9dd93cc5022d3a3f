import ActivationConfiguration
internal import CGlibcExtras
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The second decoding engine: zxing-cpp, run in `activate-zxing-helper` processes.
///
/// zxing-cpp reads codes zbar does not (Micro QR, strongly rotated or perspective-distorted QR
/// codes), but Debian's 1.4.0 aborts on some images. It therefore runs in a helper process that
/// this type starts, feeds over a socket pair, and restarts when it dies or overruns its time; a
/// crash costs that one attempt, never the scanning process. Helpers are pooled, one per
/// concurrent caller, and reused across images.
final class ZXingEngine: Sendable {
    /// The helper program: `$ACTIVATE_ZXING_HELPER`, else `activate-zxing-helper` beside the
    /// running executable (where SwiftPM builds it, for the CLI and for a package that depends on
    /// the `activate-zxing-helper` product), else in `../libexec/activate/` from it (where the Debian
    /// package puts it), else on `PATH` (where `make install` puts it). `nil`
    /// when there is none: scanning then uses zbar alone (``BarcodeScanner/hasSecondEngine``).
    static let helperPath: String? = {
        // getenv, not ProcessInfo's dictionary of every variable: this runs as `activate scan` starts.
        func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        if let path = environment("ACTIVATE_ZXING_HELPER"), !path.isEmpty {
            return access(path, X_OK) == 0 ? path : nil
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var candidates: [String] = []
        if length > 0 {
            let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let folder = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
            candidates += [folder + "/activate-zxing-helper", folder + "/../libexec/activate/activate-zxing-helper"]
        }
        candidates += (environment("PATH") ?? "").split(separator: ":").map { "\($0)/activate-zxing-helper" }
        return candidates.first { access($0, X_OK) == 0 }
    }()

    /// The shared engine, or `nil` when the helper is not installed.
    static let shared: ZXingEngine? = helperPath.map { ZXingEngine(helperPath: $0) }

    /// One attempt may take this long before the helper is killed and the attempt counts as a miss.
    static let timeoutMilliseconds: Int32 = 10_000

    private let helperPath: String
    /// The helpers no caller is using, each with the thread that used it last.
    private let idle = Mutex<[(helper: Helper, lastUser: pthread_t)]>([])
    /// Set while ``prepare()`` starts a helper, which requests wait for instead of starting another.
    private let starting = Mutex<DispatchGroup?>(nil)

    init(helperPath: String) {
        self.helperPath = helperPath
    }

    /// zxing-cpp's own retries within one attempt.
    struct Retries: OptionSet, Sendable, Hashable {
        let rawValue: UInt32
        /// Scan more rows and look harder for finder patterns.
        static let harder = Retries(rawValue: 1)
        /// Also the image turned by 90° (vertical linear codes).
        static let rotate = Retries(rawValue: 2)
        /// Also downscaled copies (large codes in large images).
        static let downscale = Retries(rawValue: 4)
        static let all: Retries = [.harder, .rotate, .downscale]

        var name: String {
            [(Retries.harder, "harder"), (.rotate, "rotate"), (.downscale, "downscale")].filter { contains($0.0) }.map(
                \.1
            ).joined(separator: "+")
        }
    }

    struct Options: Sendable {
        var symbologies: Set<Symbology>
        var retries: Retries = .all
        /// The image is one clean symbol and its quiet zone (zxing skips detection).
        var pure = false
        /// The helper answers without decoding: the cost of a request alone.
        var echo = false
    }

    /// Decodes `image`; an empty result when zxing finds nothing, crashes or times out.
    func scan(_ image: GrayImage, options: Options) -> [ScannedSymbol] {
        decode(image, options: options).map(\.symbol)
    }

    /// The ECI-declared QR payloads in `image`: each code's raw bytes (what zbar's binary mode
    /// hands over) and its text converted to UTF-8 by the declared character set. zbar cannot say
    /// whether a code declares one; this is how Windows-1250/1251/1252/1256, Big5, GB18030 and
    /// EUC-KR codes come out as the text they carry.
    func declaredCharsetTexts(_ image: GrayImage) -> [(raw: [UInt8], utf8: [UInt8])] {
        let options = Options(symbologies: [.qr, .microqr], retries: .harder)
        return decode(image, options: options).filter(\.hasECI).map { ($0.raw, $0.symbol.bytes) }
    }

    /// One request to a helper; an empty result when zxing finds nothing, crashes or times out.
    private func decode(_ image: GrayImage, options: Options) -> [(symbol: ScannedSymbol, raw: [UInt8], hasECI: Bool)] {
        let formats = options.symbologies.reduce(UInt32(0)) { $0 | $1.zxingFormat }
        guard formats != 0 else { return [] }
        guard let helper = checkOut() else { return [] }
        // The pixels go through the memory the helper maps when there is one (a copy into it and
        // a 20-byte request), else through the socket after the header.
        let shared = helper.share(image.pixels)
        var request = [UInt8]()
        request.reserveCapacity(20 + (shared ? 0 : image.pixels.count))
        request += Array((shared ? "AZX2" : "AZX1").utf8)
        let flags = options.retries.rawValue | (options.pure ? 8 : 0) | (options.echo ? 32 : 0)
        for value in [UInt32(image.width), UInt32(image.height), formats, flags] { request += Self.littleEndian(value) }
        if !shared { request += image.pixels }

        guard let response = helper.exchange(request, timeoutMilliseconds: Self.timeoutMilliseconds) else {
            helper.terminate()  // crashed, hung or garbled: start a fresh one next time
            return []
        }
        checkIn(helper)
        return Self.parse(response)
    }

    /// Starts a helper, unless one is idle or being started, and returns at once: the start runs
    /// on a thread of its own, as `posix_spawn` holds the thread that calls it until the child has
    /// become the helper. The helper then loads zxing-cpp while the caller parses its options,
    /// reads and decodes its image; a request made meanwhile waits for it instead of starting
    /// another.
    func prepare() {
        let started = starting.withLock { starting -> DispatchGroup? in
            guard starting == nil, idle.withLock({ $0.isEmpty }) else { return nil }
            let group = DispatchGroup()
            group.enter()
            starting = group
            return group
        }
        guard let group = started else { return }
        DispatchQueue.global().async {
            if let helper = Helper(path: self.helperPath) { self.checkIn(helper) }
            self.starting.withLock { $0 = nil }
            group.leave()
        }
    }

    /// The helper this thread used last if it is idle, else any idle one, else a new one. A
    /// helper sleeps and wakes where its caller runs: handed to another thread, it is woken on
    /// the processor where that thread's own helper is busy, and waits there while this
    /// thread's processor idles.
    private func checkOut() -> Helper? {
        starting.withLock { $0 }?.wait()  // the helper being started is this request's
        let thread = pthread_self()
        let reused = idle.withLock { helpers -> Helper? in
            guard let index = helpers.lastIndex(where: { $0.lastUser == thread }) ?? helpers.indices.last else {
                return nil
            }
            return helpers.remove(at: index).helper
        }
        return reused ?? Helper(path: helperPath)
    }

    private func checkIn(_ helper: Helper) {
        let thread = pthread_self()
        idle.withLock { $0.append((helper, thread)) }
    }

    /// How many helpers are idle: how tests see that a request waits for the helper being
    /// started instead of starting another.
    var idleCount: Int { idle.withLock { $0.count } }

    /// The process ID of the helper this thread's next request would go to: checked out, held
    /// while `hold` runs, and checked in again. How tests see which helper serves which thread.
    func helperProcessID(holding hold: () -> Void = {}) -> pid_t? {
        guard let helper = checkOut() else { return nil }
        defer { checkIn(helper) }
        hold()
        return helper.processID
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Parses a response; symbols of formats activate does not report are dropped. Each comes with
    /// its raw bytes and whether it declares a character set (ECI).
    static func parse(_ data: [UInt8]) -> [(symbol: ScannedSymbol, raw: [UInt8], hasECI: Bool)] {
        var reader = ByteReader(data: data)
        guard let count = reader.u32() else { return [] }
        var symbols: [(symbol: ScannedSymbol, raw: [UInt8], hasECI: Bool)] = []
        for _ in 0..<count {
            guard let format = reader.u32(), let hasECI = reader.u32(), let bytes = reader.block(),
                let text = reader.block()
            else { return symbols }
            var corners: [Point] = []
            for _ in 0..<4 {
                guard let x = reader.u32(), let y = reader.u32() else { return symbols }
                corners.append(Point(x: Int(Int32(bitPattern: x)), y: Int(Int32(bitPattern: y))))
            }
            guard let symbology = Symbology(zxingFormat: format) else { continue }
            // ECI-declared text is handed over converted to UTF-8 (the zbar pass asks this engine
            // for it too, see BarcodeScanner), so both engines give the same bytes for one code.
            let payload = hasECI == 1 ? text : bytes
            let decoded =
                symbology.isLinear
                ? (PayloadText.decode(payload, as: .isoLatin1) ?? "") : PayloadText.decode(payload).text
            symbols.append(
                (
                    ScannedSymbol(symbology: symbology, bytes: payload, text: decoded, corners: corners), bytes,
                    hasECI == 1
                ))
        }
        return symbols
    }

    private struct ByteReader {
        let data: [UInt8]
        var offset = 0
        mutating func u32() -> UInt32? {
            guard offset + 4 <= data.count else { return nil }
            defer { offset += 4 }
            return (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[offset + $1]) << (8 * UInt32($1)) }
        }
        mutating func block() -> [UInt8]? {
            guard let length = u32().map(Int.init), offset + length <= data.count else { return nil }
            defer { offset += length }
            return Array(data[offset..<offset + length])
        }
    }
}

/// One helper process, connected by a Unix socket pair (sends use MSG_NOSIGNAL, so a dead helper
/// gives an error instead of SIGPIPE), and sharing a file in memory (memfd) that it maps as
/// descriptor 3: the pixels of a request are copied there once instead of being sent through the
/// socket (two copies through the kernel, and the helper's fresh buffer faulted in page by page).
/// A helper is used by one caller at a time (``ZXingEngine`` checks it out and in).
private final class Helper: @unchecked Sendable {
    private var pid: pid_t = 0
    private var socket: Int32 = -1
    /// The shared file, this process's mapping of it (read and write) and its size; -1 when the
    /// system gives no memfd, and the pixels go through the socket.
    private var memory: Int32 = -1
    private var mapping: UnsafeMutableRawPointer?
    private var capacity = 0

    init?(path: String) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return nil
        }
        memory = memfd_create("activate-zxing-pixels", ACTIVATE_MFD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        if memory >= 0 { posix_spawn_file_actions_adddup2(&actions, memory, 3) }
        posix_spawn_file_actions_addclosefrom_np(&actions, memory >= 0 ? 4 : 3)
        var child: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
        defer { for argument in argv { free(argument) } }
        let status = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(pair[1])
        guard status == 0 else {
            close(pair[0])
            return nil
        }
        pid = child
        socket = pair[0]
    }

    /// The helper's process ID (0 once terminated).
    var processID: pid_t { pid }

    deinit {
        terminate()
        if let mapping { munmap(mapping, capacity) }
        if memory >= 0 { close(memory) }
    }

    /// Puts `pixels` into the shared memory, grown (doubling, from 1 MiB) when they do not fit;
    /// `false` when there is none or it cannot grow, and the pixels must go through the socket.
    func share(_ pixels: [UInt8]) -> Bool {
        guard memory >= 0, !pixels.isEmpty else { return false }
        if pixels.count > capacity {
            if let mapping { munmap(mapping, capacity) }
            mapping = nil
            var grown = max(1 << 20, capacity)
            while grown < pixels.count { grown *= 2 }
            guard ftruncate(memory, off_t(grown)) == 0,
                let mapped = mmap(nil, grown, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), mapped != MAP_FAILED
            else {
                capacity = 0
                return false
            }
            (mapping, capacity) = (mapped, grown)
        }
        guard let mapping else { return false }
        return pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return false }
            mapping.copyMemory(from: base, byteCount: bytes.count)
            return true
        }
    }

    /// Sends a request and reads the whole response, or returns `nil` on any failure or timeout.
    func exchange(_ request: [UInt8], timeoutMilliseconds: Int32) -> [UInt8]? {
        guard socket >= 0 else { return nil }
        var offset = 0
        while offset < request.count {
            let sent = request.withUnsafeBytes {
                send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return nil
            }
            offset += sent
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMilliseconds))
        func read(_ count: Int) -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let milliseconds = Int32(max(0, (deadline - ContinuousClock.now).inMilliseconds))
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard milliseconds > 0, poll(&descriptor, 1, milliseconds) > 0 else { return nil }
                let received = buffer.withUnsafeMutableBytes {
                    recv(socket, $0.baseAddress! + filled, count - filled, 0)
                }
                if received < 0 && errno == EINTR { continue }
                guard received > 0 else { return nil }
                filled += received
            }
            return buffer
        }
        // The response is a count and then self-describing records; read it record by record.
        guard let head = read(4) else { return nil }
        var response = head
        let count = head.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard count < 1000 else { return nil }
        for _ in 0..<count {
            guard let fixed = read(8) else { return nil }
            response += fixed
            for _ in 0..<2 {
                guard let lengthBytes = read(4) else { return nil }
                let length = lengthBytes.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                guard length < 1 << 20, let block = read(length) else { return nil }
                response += lengthBytes + block
            }
            guard let corners = read(32) else { return nil }
            response += corners
        }
        return response
    }

    func terminate() {
        if socket >= 0 {
            close(socket)
            socket = -1
        }
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            pid = 0
        }
    }
}

extension Symbology {
    /// zxing-cpp's BarcodeFormat bit for this symbology.
    var zxingFormat: UInt32 {
        switch self {
        case .qr: 1 << 13
        case .microqr: 1 << 16
        case .ean13: 1 << 9
        case .ean8: 1 << 8
        case .upca: 1 << 14
        case .upce: 1 << 15
        case .code128: 1 << 4
        case .code39: 1 << 2
        case .code93: 1 << 3
        case .itf: 1 << 10
        case .codabar: 1 << 1
        case .databar: 1 << 5
        case .databarExpanded: 1 << 6
        }
    }

    init?(zxingFormat: UInt32) {
        guard let match = Symbology.allCases.first(where: { $0.zxingFormat == zxingFormat }) else { return nil }
        self = match
    }
}
