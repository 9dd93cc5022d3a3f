import ActivationConfiguration
import Foundation
import TestSupport
import Testing

@Suite("Files: capped reads, atomic no-clobber writes")
final class FileIOTests {
    let folder: TemporaryFolder
    var directory: String { folder.path }

    init() throws { folder = try TemporaryFolder(prefix: "activate-fileio") }

    @Test("write, refuse to clobber, replace when asked")
    func noClobber() throws {
        let path = "\(directory)/out.bin"
        try FileIO.write([1, 2, 3], to: path, replace: false)
        let error = #expect(throws: ConfigurationError.self) { try FileIO.write([9], to: path, replace: false) }
        #expect(error?.code == .fileExists)
        #expect(try FileIO.read(path, limit: 10) == [1, 2, 3])
        try FileIO.write([4, 5], to: path, replace: true)
        #expect(try FileIO.read(path, limit: 10) == [4, 5])
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.bin"])
    }

    @Test("the mode is applied (0600 for secrets)")
    func mode() throws {
        let path = "\(directory)/secret"
        try FileIO.write([1], to: path, replace: false, mode: 0o600)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("reads are capped")
    func cap() throws {
        let path = "\(directory)/big"
        try FileIO.write([UInt8](repeating: 0, count: 2048), to: path, replace: false)
        let error = #expect(throws: ConfigurationError.self) { try FileIO.read(path, limit: 1024) }
        #expect(error?.code == .inputTooLarge)
        #expect(error?.reason == "\(path): 2 KiB exceeds the 1 KiB limit")
    }

    @Test("unwritable destinations and missing files are named")
    func errors() throws {
        let error = #expect(throws: ConfigurationError.self) {
            try FileIO.write([1], to: "/nonexistent-dir/x", replace: false)
        }
        #expect(error?.code == .fileUnwritable)
        #expect(error?.reason.hasPrefix("/nonexistent-dir/x: cannot write") == true)
        let missing = #expect(throws: ConfigurationError.self) { try FileIO.read("\(directory)/missing", limit: 1) }
        #expect(missing?.code == .fileNotFound)
    }

    @Test("remove is idempotent")
    func remove() throws {
        let path = "\(directory)/gone"
        try FileIO.write([1], to: path, replace: false)
        #expect(try FileIO.remove(path))
        #expect(try !FileIO.remove(path))
    }

    @Test("each file failure becomes the library error with its code, the path as the source")
    func failuresMapToCodes() throws {
        let fifo = "\(directory)/pipe.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let unreadable = #expect(throws: ConfigurationError.self) { try FileIO.read(fifo, limit: 10) }
        #expect(unreadable?.code == .fileUnreadable)
        #expect(unreadable?.source == fifo)
        #expect(unreadable?.reason == "\(fifo): is a FIFO (named pipe), not a regular file")
        let notFolder = #expect(throws: ConfigurationError.self) { try FileIO.makeDirectory(fifo) }
        #expect(notFolder?.code == .fileUnwritable)
        // The lock's own failures are library errors too; what the body throws passes unchanged.
        let lockOnFIFO = #expect(throws: ConfigurationError.self) { try FileIO.withExclusiveLock(fifo) {} }
        #expect(lockOnFIFO?.code == .fileUnwritable)
        let passed = #expect(throws: ConfigurationError.self) {
            try FileIO.withExclusiveLock("\(directory)/x.lock") { throw ConfigurationError(.notFound, "from the body") }
        }
        #expect(passed?.code == .notFound)
    }
}
