import Foundation  // flock, usleep
import SystemPackage

/// An exclusive advisory lock (`flock`) on a lock file, held while a closure runs: how processes
/// that share a file (two `onboard`s on one store, an `onboard` and a `reset`) take turns.
package enum FileLock {
    /// Runs `body` while holding the lock at `path` (made with mode 0600 if missing; never through
    /// a symbolic link). Waits up to `timeout` for another holder to finish. Lock failures are
    /// ``FileFailure``s (`unwritable`); what `body` throws passes through.
    package static func withExclusiveLock<T>(_ path: String, timeout: Duration = .seconds(10), _ body: () throws -> T)
        throws -> T
    {
        let fd = try openLockFile(path)
        defer { try? fd.close() }  // closing releases the lock
        let deadline = ContinuousClock.now + timeout
        while try !tryLock(fd, path, deadline: deadline, timeout: timeout) { usleep(20_000) }
        return try body()
    }

    /// Like ``withExclusiveLock(_:timeout:_:)`` for a body that awaits (a request to a server
    /// made while the lock is held): waiting for the lock suspends the task instead of blocking
    /// its thread.
    package static func withExclusiveLockWhileAwaiting<T>(
        _ path: String, timeout: Duration = .seconds(10),
        _ body: () async throws -> T
    ) async throws -> T {
        let fd = try openLockFile(path)
        defer { try? fd.close() }
        let deadline = ContinuousClock.now + timeout
        while try !tryLock(fd, path, deadline: deadline, timeout: timeout) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await body()
    }

    /// The lock file, opened (made 0600 if missing), never through a link, a regular file.
    private static func openLockFile(_ path: String) throws -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(
                FilePath(path), .readWrite,
                options: [.create, .closeOnExec, .noFollow, .nonBlocking, Files.noControllingTerminal],
                permissions: .ownerReadWrite)
        } catch {
            throw FileFailure(.unwritable, path, cannot: "open the lock file", error as? Errno ?? .ioError)
        }
        guard (try? fd.stat().type) == .regular else {
            try? fd.close()
            throw FileFailure(.unwritable, path, "the lock file is not a regular file")
        }
        return fd
    }

    /// One try at the lock: `true` when held, `false` to wait and try again.
    ///
    /// - Throws: ``FileFailure`` when locking fails, or another holder kept it past `deadline`.
    private static func tryLock(
        _ fd: FileDescriptor, _ path: String, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws -> Bool {
        if flock(fd.rawValue, LOCK_EX | LOCK_NB) == 0 { return true }
        let code = Errno.last
        guard code == .wouldBlock || code == .interrupted else {
            throw FileFailure(.unwritable, path, cannot: "lock", code)
        }
        guard ContinuousClock.now < deadline else {
            throw FileFailure(
                .unwritable, path,
                "another activate process holds the lock (waited \(timeout.components.seconds) s); try again")
        }
        return false
    }
}
