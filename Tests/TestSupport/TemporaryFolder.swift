import Foundation

/// A new folder (0700) under the system's temporary folder, removed with all it holds when the
/// value is released: hold it for as long as its files are used.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let path: String

    /// A new folder named `prefix-UUID`.
    public init(prefix: String = "activate") throws {
        path = try TemporaryFolder.makePath(prefix: prefix)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the folder (the file need not exist).
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `bytes` to the file `name` in the folder, and returns its path.
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// Makes a new folder (0700) named `prefix-UUID` under the system's temporary folder and
    /// returns its path, for a folder whose end is not a value's release (a server's that its
    /// `stop()` removes): the caller removes it.
    public static func makePath(prefix: String = "activate") throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }
}
