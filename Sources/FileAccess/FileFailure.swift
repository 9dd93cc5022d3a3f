import SystemPackage

/// Why a file operation failed, and on which path.
///
/// `kind` mirrors the file codes of the libraries' public errors (`ConfigurationError.Code`'s
/// `fileNotFound`, `fileUnreadable`, `inputTooLarge`, `fileExists`, `fileUnwritable`), so that each
/// library turns a failure into its own error type in one place; `message` is the sentence after
/// the path (`is a FIFO (named pipe), not a regular file`).
package struct FileFailure: Error, Hashable, Sendable {
    /// What went wrong, as a program matches it.
    package enum Kind: Hashable, Sendable {
        case notFound, unreadable, tooLarge, exists, unwritable
    }

    package var kind: Kind
    /// The file, folder or stream (`standard input`) concerned.
    package var path: String
    package var message: String

    package init(_ kind: Kind, _ path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    /// A failed system call: `cannot open: permission denied`.
    package init(_ kind: Kind, _ path: String, cannot action: String, _ errno: Errno) {
        self.init(kind, path, "cannot \(action): \(FileFailure.describe(errno))")
    }

    /// The system's message for `errno`, in lower case (`no space left on device`).
    package static func describe(_ errno: Errno) -> String {
        errno.description.lowercased()
    }

    /// What a file is, for messages: `a directory`, `a FIFO (named pipe)`, ….
    package static func describe(_ type: FileType) -> String {
        switch type {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .characterSpecial: "a character device"
        case .blockSpecial: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        default: "not a regular file"
        }
    }
}

/// A byte count printed the way people read it: `512 bytes`, `64 KiB`, `1.5 MiB`.
package struct ByteCount: CustomStringConvertible, Sendable, Hashable {
    package let bytes: Int
    package init(_ bytes: Int) { self.bytes = bytes }

    package var description: String {
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
