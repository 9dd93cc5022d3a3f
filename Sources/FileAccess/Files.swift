import Foundation  // the C library's calls that SystemPackage does not wrap (link, rename, fsync, mkdir, unlink)
import SystemPackage

/// Size-capped reads and atomic, no-clobber writes of regular files: the one place this package
/// touches the file system (`FileIO` in ActivationConfiguration is its public face).
///
/// Every input is capped before it is read, so a huge input cannot exhaust memory, and only
/// regular files are read or replaced: a FIFO, device or socket named like an image or a
/// configuration is refused before it is opened, so it can neither hang the tool nor be
/// overwritten. Every output goes to a new temporary file beside its target, is flushed, and is
/// then moved into place in one step, so a crash never leaves a half-written file and an existing
/// file is replaced only when the caller asks.
package enum Files {
    /// The path that means standard input (for reads) or standard output (for writes).
    package static let standardStreamPath = "-"

    /// Reads a whole regular file, or standard input for `-`, refusing more than `limit` bytes.
    /// A symbolic link at `path` is followed to a regular file, or refused when `followLinks` is false.
    package static func read(_ path: String, limit: Int, followLinks: Bool = true) throws(FileFailure) -> [UInt8] {
        if path == standardStreamPath {
            return try readAll(.standardInput, name: "standard input", limit: limit)
        }
        // Look before opening: opening a FIFO waits for a writer, and opening a device can act.
        let before: Stat
        do {
            before = try Stat(FilePath(path), followTargetSymlink: followLinks)
        } catch {
            throw openFailure(path, error)
        }
        try requireRegular(path, before.type, kind: .unreadable)
        var options: FileDescriptor.OpenOptions = [.closeOnExec, .nonBlocking, noControllingTerminal]
        if !followLinks { options.insert(.noFollow) }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(path), .readOnly, options: options)
        } catch {
            throw openFailure(path, systemError(error))
        }
        defer { try? fd.close() }
        let info: Stat
        do {
            info = try fd.stat()
        } catch {
            throw openFailure(path, error)
        }
        // The same regular file that was looked at, not one swapped in since.
        try requireRegular(path, info.type, kind: .unreadable)
        guard info.deviceID == before.deviceID, info.inode == before.inode else {
            throw FileFailure(.unreadable, path, "changed while being opened")
        }
        if info.size > limit {
            throw tooLarge(path, size: Int(info.size), limit: limit)
        }
        return try readAll(fd, name: path, limit: limit)
    }

    /// Writes `bytes` to `path` atomically; `-` writes to standard output.
    ///
    /// The data goes to a new temporary file beside `path`, is flushed to disk, and is then linked
    /// (no replace) or renamed (replace) into place, so readers see the old file or the new one,
    /// never a mix. Without `replace`, an existing file is left untouched and the call fails with
    /// `exists`; with it, only a regular file is replaced (never a link, FIFO, device or folder).
    /// `permissions` apply before the process umask. With `syncFolder` false, the caller makes
    /// the new names durable once at the end (``syncFolder(_:)``); each file's content is durable
    /// before its name appears either way.
    package static func write(
        _ bytes: [UInt8], to path: String, replace: Bool,
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead],
        syncFolder: Bool = true
    ) throws(FileFailure) {
        if path == standardStreamPath {
            try writeAll(.standardOutput, bytes, name: "standard output")
            return
        }
        if let existing = try? Stat(FilePath(path), followTargetSymlink: false) {
            guard replace else { throw FileFailure(.exists, path, "already exists") }
            guard existing.type == .regular else {
                throw FileFailure(
                    .unwritable, path, "is \(FileFailure.describe(existing.type)); only a regular file is ever replaced"
                )
            }
        }
        let (temporary, fd) = try createTemporary(beside: path, permissions: permissions)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }  // after a link, the temporary name still has to go
        do throws(FileFailure) {
            try writeAll(fd, bytes, name: path)
            guard fsync(fd.rawValue) == 0 else { throw writeFailure(path, Errno.last) }
        } catch {
            try? fd.close()
            throw error
        }
        do {
            try fd.close()  // on network file systems a write error may surface only here
        } catch {
            throw writeFailure(path, systemError(error))
        }
        if replace {
            guard rename(temporary, path) == 0 else { throw writeFailure(path, Errno.last) }
            renamed = true
        } else {
            // link(2) fails with EEXIST instead of replacing: no-clobber without a race.
            guard link(temporary, path) == 0 else {
                let code = Errno.last
                if code == .fileExists { throw FileFailure(.exists, path, "already exists") }
                throw writeFailure(path, code)
            }
        }
        if syncFolder { Self.syncFolder(parentFolder(of: path)) }
    }

    /// Makes the names written into `folder` durable (one fsync of the folder).
    package static func syncFolder(_ folder: String) {
        guard let fd = try? FileDescriptor.open(FilePath(folder), .readOnly, options: [.directory, .closeOnExec]) else {
            return
        }
        fsync(fd.rawValue)
        try? fd.close()
    }

    /// Makes a folder (and its missing parents) with `permissions`; an existing path must be a folder.
    package static func makeFolder(
        _ path: String, permissions: FilePermissions = [.ownerReadWriteExecute, .groupReadExecute, .otherReadExecute]
    ) throws(FileFailure) {
        if let type = type(of: path, followLinks: true) {
            guard type == .directory else {
                throw FileFailure(.unwritable, path, "is \(FileFailure.describe(type)), not a folder")
            }
            return
        }
        let parent = parentFolder(of: path)
        if parent != path, type(of: parent, followLinks: true) == nil {
            try makeFolder(parent, permissions: permissions)
        }
        guard mkdir(path, permissions.rawValue) == 0 || Errno.last == .fileExists else {
            throw FileFailure(.unwritable, path, cannot: "make the folder", Errno.last)
        }
    }

    /// Removes a file; `false` when there was nothing to remove.
    @discardableResult
    package static func remove(_ path: String) throws(FileFailure) -> Bool {
        if unlink(path) == 0 {
            syncFolder(parentFolder(of: path))
            return true
        }
        let code = Errno.last
        if code == .noSuchFileOrDirectory { return false }
        throw FileFailure(.unwritable, path, cannot: "remove", code)
    }

    /// Whether anything (a file, a folder, a link) is at `path`.
    package static func exists(_ path: String) -> Bool {
        type(of: path, followLinks: false) != nil
    }

    /// What is at `path` (through a final symbolic link when `followLinks`), or `nil` for nothing
    /// or nothing that can be looked at.
    package static func type(of path: String, followLinks: Bool) -> FileType? {
        try? Stat(FilePath(path), followTargetSymlink: followLinks).type
    }

    /// The entry itself at `path` (a link is not followed), or `nil` when there is none.
    package static func status(_ path: String) throws(FileFailure) -> Stat? {
        do {
            return try Stat(FilePath(path), followTargetSymlink: false)
        } catch {
            if error == .noSuchFileOrDirectory { return nil }
            throw FileFailure(.unreadable, path, cannot: "read", error)
        }
    }

    /// The names in a folder, sorted, or `nil` when it cannot be listed.
    package static func folderNames(_ path: String) -> [String]? {
        (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted()
    }

    /// Refuses `status` (of `path`) unless only its owner, this user or root, can change it: a
    /// symbolic link, another user's file, or one that others may write could be swapped.
    /// `what` names it in the message (`the stored configuration`).
    package static func requirePrivate(_ path: String, _ status: Stat, what: String) throws(FileFailure) {
        if status.type == .symbolicLink {
            throw FileFailure(.unreadable, path, "\(what) is a symbolic link; only a real file is used there")
        }
        if status.userID.rawValue != geteuid() && status.userID.rawValue != 0 {
            throw FileFailure(
                .unreadable, path,
                "\(what) belongs to another user (uid \(status.userID.rawValue)); it cannot be trusted")
        }
        if !status.permissions.isDisjoint(with: [.groupWrite, .otherWrite]) {
            let mode = String(status.permissions.rawValue & 0o7777, radix: 8)
            throw FileFailure(
                .unreadable, path,
                """
                \(what) is writable by other users (mode \(mode)), so it cannot be trusted; \
                fix it with chmod go-w \(path)
                """
            )
        }
    }

    /// Refuses `status` (of `path`) unless only its owner can read or change it: what a secret
    /// (a key, a server secret) needs on top of ``requirePrivate(_:_:what:)``.
    package static func requireSecret(_ path: String, _ status: Stat, what: String) throws(FileFailure) {
        try requirePrivate(path, status, what: what)
        if !status.permissions.isDisjoint(with: [.groupRead, .otherRead]) {
            let mode = String(status.permissions.rawValue & 0o7777, radix: 8)
            throw FileFailure(
                .unreadable, path,
                """
                \(what) is readable by other users (mode \(mode)), so it is no secret; \
                fix it with chmod go-rwx \(path)
                """
            )
        }
    }

    /// The folder part of `path` (`.` for a bare name, `/` at the root).
    package static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    // MARK: - Helpers

    /// O_NOCTTY: a terminal swapped in between the look and the open never becomes ours.
    static let noControllingTerminal = FileDescriptor.OpenOptions(rawValue: O_NOCTTY)

    static func requireRegular(_ path: String, _ type: FileType, kind: FileFailure.Kind) throws(FileFailure) {
        guard type == .regular else {
            throw FileFailure(kind, path, "is \(FileFailure.describe(type)), not a regular file")
        }
    }

    /// A new file beside `path`, made with O_EXCL under a random name: never someone else's file.
    private static func createTemporary(beside path: String, permissions: FilePermissions) throws(FileFailure) -> (
        String, FileDescriptor
    ) {
        let prefix = "\(parentFolder(of: path))/.\(FilePath(path).lastComponent?.string ?? "file").tmp-"
        var attempt = 0
        while true {
            let name = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            do {
                let fd = try FileDescriptor.open(
                    FilePath(name), .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec, .noFollow],
                    permissions: permissions)
                return (name, fd)
            } catch {
                attempt += 1
                let code = systemError(error)
                if code != .fileExists || attempt >= 16 { throw writeFailure(path, code) }
            }
        }
    }

    /// Reads an open descriptor (a pipe, standard input) to its end, refusing more than `limit` bytes.
    package static func readAll(_ fd: FileDescriptor, name: String, limit: Int) throws(FileFailure) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch {
                throw FileFailure(.unreadable, name, "read failed: \(FileFailure.describe(systemError(error)))")
            }
            if count == 0 { return result }
            if result.count + count > limit { throw tooLarge(name, size: nil, limit: limit) }
            result.append(contentsOf: chunk[0..<count])
        }
    }

    static func writeAll(_ fd: FileDescriptor, _ bytes: [UInt8], name: String) throws(FileFailure) {
        do {
            _ = try fd.writeAll(bytes)
        } catch {
            throw writeFailure(name, systemError(error))
        }
    }

    /// SystemPackage's untyped throws carry an `Errno`.
    private static func systemError(_ error: any Error) -> Errno {
        error as? Errno ?? .ioError
    }

    private static func openFailure(_ path: String, _ code: Errno) -> FileFailure {
        switch code {
        case .noSuchFileOrDirectory: FileFailure(.notFound, path, "no such file")
        case .tooManySymbolicLinkLevels: FileFailure(.unreadable, path, "is a symbolic link, not a regular file")
        default: FileFailure(.unreadable, path, cannot: "open", code)
        }
    }

    private static func writeFailure(_ path: String, _ code: Errno) -> FileFailure {
        FileFailure(.unwritable, path, cannot: "write", code)
    }

    private static func tooLarge(_ name: String, size: Int?, limit: Int) -> FileFailure {
        let what = size.map { "\(ByteCount($0)) exceeds" } ?? "input exceeds"
        return FileFailure(.tooLarge, name, "\(what) the \(ByteCount(limit)) limit")
    }
}

extension Errno {
    /// The calling thread's `errno`, after a C call that SystemPackage does not wrap.
    static var last: Errno { Errno(rawValue: errno) }
}
