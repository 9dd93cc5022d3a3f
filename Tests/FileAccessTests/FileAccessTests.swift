import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import FileAccess

/// The support target on real files, folders, FIFOs, devices and links (a lock held by another
/// process: FileAccessIntegrationTests).
@Suite("FileAccess: regular files only, caps, atomic writes, locks")
final class FileAccessTests {
    let temporary: TemporaryFolder
    var folder: String { temporary.path }

    init() throws {
        temporary = try TemporaryFolder(prefix: "activate-fileaccess")
    }

    @Test("a FIFO, a device, a folder and a socket are refused by name and kind, without blocking")
    func notRegular() throws {
        let fifo = "\(folder)/code.png"
        #expect(mkfifo(fifo, 0o600) == 0)  // opening it for reading would wait for a writer forever
        let cases: [(String, String)] = [
            (fifo, "is a FIFO (named pipe), not a regular file"),
            ("/dev/null", "is a character device, not a regular file"),
            (folder, "is a directory, not a regular file"),
        ]
        for (path, message) in cases {
            let failure = #expect(throws: FileFailure.self) { try Files.read(path, limit: 10) }
            #expect(failure == FileFailure(.unreadable, path, message))
        }
        // Nor is anything but a regular file ever replaced.
        let replaced = #expect(throws: FileFailure.self) { try Files.write([1], to: fifo, replace: true) }
        #expect(replaced?.message == "is a FIFO (named pipe); only a regular file is ever replaced")
        #expect(Files.type(of: fifo, followLinks: false) == .fifo)
    }

    @Test("a symbolic link is followed only when asked; a dangling one is not found")
    func links() throws {
        let target = "\(folder)/target.json"
        let link = "\(folder)/link.json"
        try Files.write(Array("{}".utf8), to: target, replace: false)
        #expect(symlink(target, link) == 0)
        #expect(try Files.read(link, limit: 10) == Array("{}".utf8))
        let refused = #expect(throws: FileFailure.self) { try Files.read(link, limit: 10, followLinks: false) }
        #expect(refused?.message == "is a symbolic link, not a regular file")
        // Writing through a link never touches its target.
        let replaced = #expect(throws: FileFailure.self) { try Files.write([1], to: link, replace: true) }
        #expect(replaced?.kind == .unwritable)
        #expect(try Files.read(target, limit: 10) == Array("{}".utf8))
        #expect(symlink("\(folder)/nowhere", "\(folder)/dangling") == 0)
        let dangling = #expect(throws: FileFailure.self) { try Files.read("\(folder)/dangling", limit: 10) }
        #expect(dangling == FileFailure(.notFound, "\(folder)/dangling", "no such file"))
    }

    @Test("the cap holds for files that grow and for streams of unknown size")
    func caps() throws {
        let path = "\(folder)/big.bin"
        try Files.write([UInt8](repeating: 7, count: 4096), to: path, replace: false)
        #expect(try Files.read(path, limit: 4096).count == 4096)
        let failure = #expect(throws: FileFailure.self) { try Files.read(path, limit: 2048) }
        #expect(failure == FileFailure(.tooLarge, path, "4 KiB exceeds the 2 KiB limit"))
        // /dev/zero is refused as a device before its endless content is read.
        #expect(throws: FileFailure.self) { try Files.read("/dev/zero", limit: 1 << 20) }
    }

    @Test("writes are atomic, no-clobber unless asked, leave no temporary files, and keep the permissions")
    func writes() throws {
        let path = "\(folder)/out.txt"
        try Files.write([1, 2], to: path, replace: false, permissions: .ownerReadWrite)
        let exists = #expect(throws: FileFailure.self) { try Files.write([3], to: path, replace: false) }
        #expect(exists == FileFailure(.exists, path, "already exists"))
        try Files.write([4], to: path, replace: true, permissions: .ownerReadWrite)
        #expect(try Files.read(path, limit: 10) == [4])
        #expect(try Stat(FilePath(path)).permissions == .ownerReadWrite)
        #expect(Files.folderNames(folder) == ["out.txt"])
        let missingFolder = #expect(throws: FileFailure.self) {
            try Files.write([1], to: "/nonexistent-activate/x", replace: false)
        }
        #expect(
            missingFolder
                == FileFailure(.unwritable, "/nonexistent-activate/x", "cannot write: no such file or directory"))
    }

    @Test("a full disk is a write error, not a success")
    func fullDisk() throws {
        // /dev/full fails every write with ENOSPC, as standard output does in `scan > /dev/full`
        // (the CLI's test of that runs the tool).
        let full = try FileDescriptor.open("/dev/full", .writeOnly)
        defer { try? full.close() }
        let failure = #expect(throws: FileFailure.self) {
            try Files.writeAll(full, [1, 2, 3], name: "standard output")
        }
        #expect(failure == FileFailure(.unwritable, "standard output", "cannot write: no space left on device"))
    }

    @Test("folders: made with parents, an existing file in the way is named, listing is sorted")
    func folders() throws {
        try Files.makeFolder("\(folder)/a/b/c", permissions: .ownerReadWriteExecute)
        #expect(Files.type(of: "\(folder)/a/b/c", followLinks: false) == .directory)
        try Files.write([1], to: "\(folder)/a/file", replace: false)
        let blocked = #expect(throws: FileFailure.self) { try Files.makeFolder("\(folder)/a/file") }
        #expect(blocked?.message == "is a regular file, not a folder")
        #expect(Files.folderNames("\(folder)/a") == ["b", "file"])
        #expect(Files.folderNames("\(folder)/missing") == nil)
        #expect(try Files.remove("\(folder)/a/file"))
        #expect(try !Files.remove("\(folder)/a/file"))
    }

    @Test("private: refused when others may write it, or when it is a link")
    func requirePrivate() throws {
        let path = "\(folder)/store.json"
        try Files.write([1], to: path, replace: false, permissions: .ownerReadWrite)
        let status = try #require(try Files.status(path))
        try Files.requirePrivate(path, status, what: "the store")
        #expect(chmod(path, 0o622) == 0)
        let writable = #expect(throws: FileFailure.self) {
            try Files.requirePrivate(path, try #require(try Files.status(path)), what: "the store")
        }
        #expect(
            writable?.message
                == """
                the store is writable by other users (mode 622), so it cannot be trusted; fix it with chmod go-w \(path)
                """
        )
        #expect(symlink(path, "\(folder)/link") == 0)
        let link = #expect(throws: FileFailure.self) {
            try Files.requirePrivate(
                "\(folder)/link", try #require(try Files.status("\(folder)/link")), what: "the store")
        }
        #expect(link?.message == "the store is a symbolic link; only a real file is used there")
        #expect(try Files.status("\(folder)/none") == nil)
    }

    @Test("the lock file itself must be a regular file, never reached through a link")
    func lockFileKinds() throws {
        let fifo = "\(folder)/fifo.lock"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: FileFailure.self) { try FileLock.withExclusiveLock(fifo) {} }
        #expect(symlink("\(folder)/elsewhere", "\(folder)/link.lock") == 0)
        let link = #expect(throws: FileFailure.self) { try FileLock.withExclusiveLock("\(folder)/link.lock") {} }
        #expect(link?.message.hasPrefix("cannot open the lock file: ") == true)
        #expect(!Files.exists("\(folder)/elsewhere"))
    }
}
