import Foundation
import TestSupport
import Testing

/// Runs the built `activate` executable, as a user would.
enum ActivateCLI {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The `activate` binary beside the test bundle (SwiftPM builds it because the test target
    /// depends on it); `ACTIVATE_BIN` overrides.
    static let executable: String = {
        if let path = ProcessInfo.processInfo.environment["ACTIVATE_BIN"] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("activate").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        fatalError("activate executable not found near \(CommandLine.arguments[0]); set ACTIVATE_BIN")
    }()

    static func run(_ arguments: [String], stdin: [UInt8]? = nil, in directory: String? = nil) async throws -> Result {
        try await Tool.run(executable, TestPasscode.added(to: arguments), stdin: stdin, in: directory)
    }

    /// Starts `activate` without waiting for it, its output discarded: for the tests that kill it.
    static func launch(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = TestPasscode.added(to: arguments)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

/// The passcode of the secure stores that tests about something else make: `onboard` and
/// `restore` without a passcode option get `--passcode-file` with it (and `onboard` a fast KDF),
/// so that those tests read as before. The store's own tests give their passcodes explicitly.
enum TestPasscode {
    static let text = "Test-passcode-1"

    /// A 0600 file in the build folder holding ``text``.
    static let file: String = {
        let path = SourceTree.path(".build/test-passcode")
        let written = FileManager.default.createFile(
            atPath: path, contents: Data((text + "\n").utf8), attributes: [.posixPermissions: 0o600])
        // Every test that onboards or restores needs this file; without it none of them means anything.
        precondition(written, "cannot write the test passcode file \(path)")
        return path
    }()

    static func added(to arguments: [String]) -> [String] {
        guard let command = arguments.first, ["onboard", "restore"].contains(command),
            !arguments.contains(where: { ["--passcode-fd", "--passcode-file", "--no-passcode", "--help"].contains($0) })
        else { return arguments }
        var added = arguments + ["--passcode-file", file]
        if !arguments.contains("--work-factor") { added += ["--work-factor", "4"] }
        return added
    }
}

/// Runs any program and captures its output.
enum Tool {
    /// Runs the program on a Dispatch thread: waiting for a child must not hold one of the few
    /// cooperative threads that every async test shares (two on a 2-core machine). At most
    /// ``ProcessSlots/shared`` children run at once, however many suites run in parallel.
    static func run(_ program: String, _ arguments: [String], stdin: [UInt8]? = nil, in directory: String? = nil)
        async throws -> ActivateCLI.Result
    {
        try await ProcessSlots.shared.holding {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        with: Swift.Result { try runBlocking(program, arguments, stdin: stdin, in: directory) })
                }
            }
        }
    }

    static func runBlocking(_ program: String, _ arguments: [String], stdin: [UInt8]?, in directory: String?) throws
        -> ActivateCLI.Result
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            try input.fileHandleForWriting.write(contentsOf: Data(stdin))
            try input.fileHandleForWriting.close()
        }
        // Read stderr on another thread so neither pipe can fill up and block the child.
        final class Collected: @unchecked Sendable { var data = Data() }
        let errorData = Collected()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            errorData.data = errors.fileHandleForReading.readDataToEndOfFile()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return .init(
            status: process.terminationStatus, stdout: Array(outputData),
            stderr: String(decoding: errorData.data, as: UTF8.self))
    }

    /// The absolute path of a program on PATH, or nil.
    static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A bound on the children the tests run at once: one per core. The suites run in parallel and
/// spawn the binary hundreds of times; unbounded, they queue for two cores together and each
/// command takes many times as long as it does alone.
actor ProcessSlots {
    static let shared = ProcessSlots(count: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { free = count }

    /// Runs `body` once a slot is free, and frees the slot after it, whatever it throws.
    nonisolated func holding<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let value = try await body()
            await release()
            return value
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the longest waiting caller, or frees it.
    private func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// Kills that home in on a commit point: the delay after a start at which a write has happened.
/// First a delay after which the new state is there (doubling from a short one), then halving the
/// span around the point, so that the kills fall on both sides of the write and ever closer to it,
/// however fast the machine is at the moment; one kill at once comes last.
enum CommitPointSearch {
    /// Runs `killed` at each delay; it kills a run after the delay and tells what it left: `new`
    /// (the write happened), `old`, or anything else. Returns how often each outcome came.
    static func outcomes(steps: Int, killed: (Duration) async throws -> String) async throws -> [String: Int] {
        var outcomes: [String: Int] = [:]
        var before = Duration.zero
        var after = Duration.milliseconds(20)
        while true {
            let outcome = try await killed(after)
            outcomes[outcome, default: 0] += 1
            if outcome == "new" { break }
            before = after
            after *= 2
            try #require(after < .seconds(120), "the run never got to its write: \(outcomes)")
        }
        for _ in 0..<steps {
            let middle = (before + after) / 2
            let outcome = try await killed(middle)
            outcomes[outcome, default: 0] += 1
            if outcome == "new" { after = middle } else { before = middle }
        }
        outcomes[try await killed(.zero), default: 0] += 1
        return outcomes
    }
}
