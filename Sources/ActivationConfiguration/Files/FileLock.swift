#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a lock file, held while a closure runs: how processes
/// that share a store (two `onboard`s, an `onboard` and a `reset`) take turns.
public enum FileLock {
    /// Runs `body` while holding the lock at `path` (created with mode 0600 if missing; never
    /// through a symbolic link). Waits up to `timeout` for another holder to finish.
    ///
    /// - Throws: ``ConfigurationError`` (`fileUnwritable`) when the lock file cannot be opened or
    ///   the lock is not free in time; whatever `body` throws.
    public static func withExclusiveLock<T>(_ path: String, timeout: Duration = .seconds(10), _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
        if fd < 0 {
            throw ConfigurationError(.fileUnwritable, source: path, "cannot open the lock file: \(FileIO.describe(errno))")
        }
        defer { close(fd) }  // closing releases the lock
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigurationError(.fileUnwritable, source: path, "the lock file is not a regular file")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                throw ConfigurationError(.fileUnwritable, source: path, "cannot lock: \(FileIO.describe(code))")
            }
            guard clock.now < deadline else {
                throw ConfigurationError(.fileUnwritable, source: path, "another activate process holds the lock (waited \(timeout.components.seconds) s); try again")
            }
            usleep(20_000)
        }
        return try body()
    }
}
