import Foundation
import TestSupport
import Testing

@testable import FileAccess

/// The lock against another process (util-linux's flock(1)): what only a second process shows.
@Suite("FileAccess: the lock against another process")
struct LockAcrossProcessesTests {
    @Test("the lock waits for another process, then gives up with the reason")
    func lockHeldByAnotherProcess() throws {
        let folder = try TemporaryFolder(prefix: "activate-fileaccess")
        let lock = folder.file("store.lock")
        // util-linux's flock(1) holds the same kind of lock from another process for 3 s.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [lock, "sleep", "3"]
        try holder.run()
        defer {
            holder.terminate()
            holder.waitUntilExit()
        }
        var waited = 0
        while !Files.exists(lock) && waited < 100 {
            usleep(20_000)
            waited += 1
        }
        usleep(200_000)  // flock(1) creates the file, then locks it
        let busy = #expect(throws: FileFailure.self) {
            try FileLock.withExclusiveLock(lock, timeout: .milliseconds(300)) {
                Issue.record("ran while another process held the lock")
            }
        }
        #expect(
            busy == FileFailure(.unwritable, lock, "another activate process holds the lock (waited 0 s); try again"))
        // Once the holder is gone, the lock is ours within the default wait.
        holder.terminate()
        holder.waitUntilExit()
        #expect(try FileLock.withExclusiveLock(lock) { 42 } == 42)
    }
}
