import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Paths in the source tree (goldens are compared with, and regenerated into, the checkout).
public enum SourceTree {
    /// The checkout's root folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// `relative` in the checkout.
    public static func path(_ relative: String) -> String { "\(root)/\(relative)" }
    /// The configuration documents the tests read.
    public static let documents = path("Tests/ActivationConfigurationTests/Fixtures/documents")
    /// The keys the tests sign and verify with.
    public static let keys = path("Tests/ActivationConfigurationTests/Fixtures/keys")
}

extension Process {
    /// Runs a server whose first stdout line is `listening on ADDRESS`, and returns ADDRESS; a
    /// server that says anything else is stopped and named in the error.
    public func startListening(output: Pipe, name: String) throws -> String {
        standardOutput = output
        try run()
        let first = output.readFirstLine()
        guard first.hasPrefix("listening on ") else {
            terminate()
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(first)"])
        }
        return String(first.dropFirst("listening on ".count))
    }
}

extension Pipe {
    /// Reads up to the first newline (or the end): the line a freshly started server prints.
    public func readFirstLine() -> String {
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        return String(decoding: line, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }
}

/// A mobile services server's `settingsExchange` endpoint (`Tests/Servers/settings_server.py`)
/// as its own process: it serves a policies file to requests with the credentials it asks for
/// and logs which credentials each request carried.
public final class SettingsServer {
    let process = Process()
    /// `http://localhost:PORT`.
    public let url: String
    let log: String
    private let output = Pipe()

    /// A server for `appID` serving the file `policies` to requests signed in as `auth` (`none`,
    /// `basic:USER:PASSWORD`, `apikey:KEY`, `redirect:URL`), logging to the file `log`.
    public init(appID: String, policies: String, auth: String, log: String) throws {
        self.log = log
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [SourceTree.path("Tests/Servers/settings_server.py"), appID, policies, auth, log]
        url = "http://localhost:\(try process.startListening(output: output, name: "settings_server.py"))"
    }

    /// The requests so far: which credentials each carried, and the status it got.
    public func requests() throws -> [[String: Any]] {
        guard FileManager.default.fileExists(atPath: log) else { return [] }
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Ends the server with SIGKILL: it inherits the test process's blocked signals, SIGTERM among them.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { if process.isRunning { stop() } }
}
