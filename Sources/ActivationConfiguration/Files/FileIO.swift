#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Size-capped reads and atomic, no-clobber writes of regular files: the only way this toolkit
/// touches files.
///
/// Every input is capped before it is read, so a huge input cannot exhaust memory, and only
/// regular files are read or replaced: a FIFO, device or socket named like an image or a
/// configuration is refused before it is opened, so it can neither hang the tool nor be
/// overwritten. Every output is written to a temporary file in the target's directory, flushed,
/// and then moved into place in one step, so a crash never leaves a half-written file and an
/// existing file is replaced only when the caller asks.
public enum FileIO {
    /// The path that means standard input (for reads) or standard output (for writes).
    public static let standardStreamPath = "-"

    /// Reads a whole regular file, or standard input for `-`, refusing more than `limit` bytes.
    ///
    /// - Parameters:
    ///   - path: the file, or `-` for standard input.
    ///   - limit: the most bytes accepted.
    ///   - followLinks: whether a symbolic link at `path` is followed (to a regular file)
    ///     or refused.
    /// - Throws: ``ConfigurationError`` with `fileNotFound`, `fileUnreadable` (a directory, a FIFO,
    ///   a device, permissions, an I/O error) or `inputTooLarge`; the reason names `path`.
    public static func read(_ path: String, limit: Int, followLinks: Bool = true) throws -> [UInt8] {
        if path == standardStreamPath {
            return try readAll(fd: STDIN_FILENO, name: "standard input", limit: limit)
        }
        // Look before opening: opening a FIFO waits for a writer, and opening a device can act.
        var before = stat()
        guard (followLinks ? stat(path, &before) : lstat(path, &before)) == 0 else { throw openError(path, errno: errno) }
        try requireRegular(path, mode: before.st_mode)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW))
        if fd < 0 { throw openError(path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw openError(path, errno: errno) }
        // The same regular file that was looked at, not one swapped in since.
        try requireRegular(path, mode: info.st_mode)
        guard info.st_dev == before.st_dev, info.st_ino == before.st_ino else {
            throw ConfigurationError(.fileUnreadable, source: path, "changed while being opened")
        }
        if Int(info.st_size) > limit {
            throw tooLarge(path, size: Int(info.st_size), limit: limit)
        }
        return try readAll(fd: fd, name: path, limit: limit)
    }

    /// Writes `bytes` to `path` atomically; `-` writes to standard output.
    ///
    /// The data goes to a temporary file beside `path`, is flushed to disk, and is then linked
    /// (no replace) or renamed (replace) into place, so readers see the old file or the new one,
    /// never a mix. Without `replace`, an existing file is left untouched and the call throws;
    /// with it, only a regular file is replaced (never a link, FIFO, device or directory).
    ///
    /// - Parameters:
    ///   - bytes: the new content.
    ///   - path: the file to write, or `-` for standard output.
    ///   - replace: whether an existing regular file may be replaced.
    ///   - mode: permission bits of the new file, before the process umask (use `0o600` for secrets).
    ///   - syncFolder: make the new name durable at once (fsync of the folder). A caller writing many
    ///     files into one folder passes `false` and calls ``syncFolder(_:)`` once at the end; each
    ///     file's content is made durable before its name appears either way, so a crash never
    ///     leaves a partial file under the final name.
    /// - Throws: ``ConfigurationError`` with `fileExists` or `fileUnwritable`; the reason names `path`.
    public static func write(_ bytes: [UInt8], to path: String, replace: Bool, mode: UInt32 = 0o644, syncFolder: Bool = true) throws {
        if path == standardStreamPath {
            try writeAll(fd: STDOUT_FILENO, bytes, name: "standard output")
            return
        }
        var existing = stat()
        if lstat(path, &existing) == 0 {
            if !replace {
                throw ConfigurationError(.fileExists, source: path, "already exists")
            }
            guard existing.st_mode & S_IFMT == S_IFREG else {
                throw ConfigurationError(.fileUnwritable, source: path, "is \(kind(existing.st_mode)); only a regular file is ever replaced")
            }
        }
        let directory = parentDirectory(of: path)
        var template = Array("\(directory)/.\(baseName(of: path)).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd < 0 { throw writeError(path, errno: errno) }
        let temporary = String(cString: template.map { UInt8(bitPattern: $0) })
        var keepTemporary = false
        defer { if !keepTemporary { unlink(temporary) } }
        do {
            defer { close(fd) }
            let umaskValue = umask(0)
            umask(umaskValue)
            guard fchmod(fd, mode_t(mode) & ~umaskValue) == 0 else { throw writeError(path, errno: errno) }
            try writeAll(fd: fd, bytes, name: path)
            guard fsync(fd) == 0 else { throw writeError(path, errno: errno) }
        }
        if replace {
            guard rename(temporary, path) == 0 else { throw writeError(path, errno: errno) }
            keepTemporary = true
        } else {
            // link(2) fails with EEXIST instead of replacing: no-clobber without a race.
            guard link(temporary, path) == 0 else {
                let code = errno
                if code == EEXIST {
                    throw ConfigurationError(.fileExists, source: path, "already exists")
                }
                throw writeError(path, errno: code)
            }
        }
        if syncFolder { syncDirectory(directory) }
    }

    /// Makes the names written into `folder` durable (one fsync of the folder).
    public static func syncFolder(_ folder: String) {
        syncDirectory(folder)
    }

    /// Makes a folder (and its parents) if it is not there; an existing path must be a folder.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) naming `path`.
    public static func makeDirectory(_ path: String) throws {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw ConfigurationError(.fileUnwritable, source: path, "is \(kind(info.st_mode)), not a folder")
            }
            return
        }
        let parent = parentDirectory(of: path)
        if parent != path, stat(parent, &info) != 0 { try makeDirectory(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
            throw ConfigurationError(.fileUnwritable, source: path, "cannot make the folder: \(describe(errno))")
        }
    }

    /// Removes a file; returns `false` when there was nothing to remove.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) when the file exists but cannot be removed.
    @discardableResult
    public static func remove(_ path: String) throws -> Bool {
        if unlink(path) == 0 {
            syncDirectory(parentDirectory(of: path))
            return true
        }
        let code = errno
        if code == ENOENT { return false }
        throw ConfigurationError(.fileUnwritable, source: path, "cannot remove: \(describe(code))")
    }

    /// Whether something (a file, a directory, a link) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What a file is, for messages: `a directory`, `a FIFO (named pipe)`, ….
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    static func requireRegular(_ path: String, mode: mode_t) throws {
        guard mode & S_IFMT == S_IFREG else {
            throw ConfigurationError(.fileUnreadable, source: path, "is \(kind(mode)), not a regular file")
        }
    }

    // MARK: - Helpers

    private static func readAll(fd: Int32, name: String, limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigurationError(.fileUnreadable, source: name, "read failed: \(describe(errno))")
            }
            if count == 0 { return result }
            if result.count + count > limit {
                throw tooLarge(name, size: nil, limit: limit)
            }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    private static func writeAll(fd: Int32, _ bytes: [UInt8], name: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw writeError(name, errno: errno)
            }
            offset += written
        }
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    private static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func openError(_ path: String, errno code: Int32) -> ConfigurationError {
        if code == ENOENT { return ConfigurationError(.fileNotFound, source: path, "no such file") }
        if code == ELOOP { return ConfigurationError(.fileUnreadable, source: path, "is a symbolic link, not a regular file") }
        return ConfigurationError(.fileUnreadable, source: path, "cannot open: \(describe(code))")
    }

    private static func writeError(_ path: String, errno code: Int32) -> ConfigurationError {
        ConfigurationError(.fileUnwritable, source: path, "cannot write: \(describe(code))")
    }

    private static func tooLarge(_ name: String, size: Int?, limit: Int) -> ConfigurationError {
        let what = size.map { "\(ByteCount($0)) exceeds" } ?? "input exceeds"
        return ConfigurationError(.inputTooLarge, source: name, "\(what) the \(ByteCount(limit)) limit")
    }

    /// The system's message for an `errno` value, in lower case (`no space left on device`).
    public static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message).lowercased()
    }
}

/// A byte count printed the way people read it: `512 bytes`, `64 KiB`, `1.5 MiB`.
public struct ByteCount: CustomStringConvertible, Sendable, Hashable {
    /// The count.
    public let bytes: Int
    /// A count of `bytes`.
    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }
}

extension Duration {
    /// The duration in milliseconds, for logs and reports.
    public var inMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
