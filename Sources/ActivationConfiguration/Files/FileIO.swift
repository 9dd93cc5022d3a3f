import FileAccess
import SystemPackage

/// Size-capped reads and atomic, no-clobber writes of regular files: how this toolkit, and a
/// program built on it, reads configuration files and codes and writes results.
///
/// Every input is capped before it is read, so a huge input cannot exhaust memory, and only
/// regular files are read or replaced: a FIFO, device or socket named like an image or a
/// configuration is refused before it is opened, so it can neither hang the program nor be
/// overwritten. Every output is written to a new temporary file beside its target, flushed, and
/// then moved into place in one step, so a crash never leaves a half-written file and an existing
/// file is replaced only when the caller asks. (The work is done by the package's FileAccess
/// support target, over swift-system; this type gives it the library's error type.)
public enum FileIO {
    /// The path that means standard input (for reads) or standard output (for writes).
    public static let standardStreamPath = Files.standardStreamPath

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
        try converting { () throws(FileFailure) in try Files.read(path, limit: limit, followLinks: followLinks) }
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
    public static func write(
        _ bytes: [UInt8], to path: String, replace: Bool, mode: UInt32 = 0o644, syncFolder: Bool = true
    ) throws {
        try converting { () throws(FileFailure) in
            try Files.write(bytes, to: path, replace: replace, permissions: permissions(mode), syncFolder: syncFolder)
        }
    }

    /// Makes the names written into `folder` durable (one fsync of the folder).
    public static func syncFolder(_ folder: String) {
        Files.syncFolder(folder)
    }

    /// Makes a folder (and its missing parents) if it is not there; an existing path must be a folder.
    ///
    /// - Parameters:
    ///   - path: the folder.
    ///   - mode: permission bits of folders made, before the process umask (`0o700` for private ones).
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) naming `path`.
    public static func makeDirectory(_ path: String, mode: UInt32 = 0o755) throws {
        try converting { () throws(FileFailure) in try Files.makeFolder(path, permissions: permissions(mode)) }
    }

    /// Removes a file; returns `false` when there was nothing to remove.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) when the file exists but cannot be removed.
    @discardableResult
    public static func remove(_ path: String) throws -> Bool {
        try converting { () throws(FileFailure) in try Files.remove(path) }
    }

    /// Whether something (a file, a directory, a link) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        Files.exists(path)
    }

    /// Runs `body` while holding an exclusive lock on the lock file `path` (made with mode 0600
    /// if missing; never through a symbolic link): how processes sharing a file take turns.
    /// Waits up to `timeout` for another holder.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) when the lock cannot be taken in time;
    ///   whatever `body` throws.
    public static func withExclusiveLock<T>(_ path: String, timeout: Duration = .seconds(10), _ body: () throws -> T)
        throws -> T
    {
        do {
            return try FileLock.withExclusiveLock(path, timeout: timeout, body)
        } catch let failure as FileFailure {
            throw ConfigurationError(failure)
        }
    }

    /// Like ``withExclusiveLock(_:timeout:_:)`` for a body that awaits (a request made while the
    /// lock is held): waiting for the lock suspends the task instead of blocking its thread.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) when the lock cannot be taken in time;
    ///   whatever `body` throws.
    public static func withExclusiveLockWhileAwaiting<T>(
        _ path: String, timeout: Duration = .seconds(10),
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await FileLock.withExclusiveLockWhileAwaiting(path, timeout: timeout, body)
        } catch let failure as FileFailure {
            throw ConfigurationError(failure)
        }
    }

    private static func permissions(_ mode: UInt32) -> FilePermissions {
        FilePermissions(rawValue: CInterop.Mode(truncatingIfNeeded: mode & 0o7777))
    }

    /// Reads a secret (a server secret, a token file): a regular file, not a link, of this user,
    /// that no one else may read or change.
    ///
    /// - Throws: `ConfigurationError` (`fileNotFound`, `fileUnreadable`) naming the file and `what`.
    package static func readSecret(_ path: String, limit: Int, what: String) throws -> [UInt8] {
        try converting { () throws(FileFailure) in
            guard let status = try Files.status(path) else { throw FileFailure(.notFound, path, "no such file") }
            try Files.requireSecret(path, status, what: what)
        }
        return try read(path, limit: limit, followLinks: false)
    }

    /// Runs a file operation, giving its failure the library's error type.
    package static func converting<T>(_ body: () throws(FileFailure) -> T) throws(ConfigurationError) -> T {
        do {
            return try body()
        } catch {
            throw ConfigurationError(error)
        }
    }
}

extension ConfigurationError {
    /// The error for a failed file operation: the same code family, the path as the source.
    package init(_ failure: FileFailure) {
        let code: Code =
            switch failure.kind {
            case .notFound: .fileNotFound
            case .unreadable: .fileUnreadable
            case .tooLarge: .inputTooLarge
            case .exists: .fileExists
            case .unwritable: .fileUnwritable
            }
        self.init(code, source: failure.path, failure.message)
    }
}
