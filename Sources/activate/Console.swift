import ActivationConfiguration
import ActivationImaging
import ArgumentParser
import FileAccess
import Foundation  // isatty, ioctl
import Synchronization
import SystemPackage

/// The only way the tool writes to standard output and standard error.
///
/// Results go to stdout, everything else (errors, progress, summaries) to stderr, so
/// `activate … | tool` pipes only results. Text for people passes through ``UntrustedText``
/// line by line: a line is one line, whatever a code or file name holds, so no input can move
/// the cursor, recolour the screen or forge a second "You will be connected to" line. Only the
/// exact-payload outputs (`--raw`, `--binary`) and JSON (already escaped) are written as they are.
///
/// A failed write to stdout is remembered; the command then ends with exit 1 and says why
/// (``finish()``), because a result that did not arrive is not a success.
enum Console {
    /// Lines for people on stdout; every character inside a line that could act on a terminal is escaped.
    static func print(lines: [String]) {
        write(STDOUT_FILENO, Array(lines.map { UntrustedText.escaped($0) + "\n" }.joined().utf8))
    }

    /// One line for people on stdout.
    static func print(_ line: String) { print(lines: [line]) }

    /// `--quiet`: no summaries, notes or progress; errors still.
    private static let quietProcess = Atomic<Bool>(false)

    /// Whether `--quiet` was given (to the command this task runs).
    static var quiet: Bool {
        if let capture { return capture.quiet.load(ordering: .relaxed) }
        return quietProcess.load(ordering: .relaxed)
    }

    /// Sets `--quiet` for the command this task runs.
    static func setQuiet(_ value: Bool) {
        if let capture {
            capture.quiet.store(value, ordering: .relaxed)
        } else {
            quietProcess.store(value, ordering: .relaxed)
        }
    }

    /// Where a command run in-process writes instead of the process's stdout and stderr
    /// (``Activate/execute(_:)`` under a capture); `nil` for the process's own.
    @TaskLocal static var capture: ConsoleCapture?

    /// One line for people on stderr (summaries, notes, warnings); nothing with `--quiet`.
    static func note(_ line: String) {
        if !quiet { error(line) }
    }

    /// One line on stderr, whatever `--quiet` says: errors and the help.
    static func error(_ line: String) {
        write(STDERR_FILENO, Array((UntrustedText.escaped(line) + "\n").utf8))
    }

    /// `activate: <message>` on stderr.
    static func report(_ message: String) { error("activate: \(message)") }

    /// `activate: <reason>; <advice>` on stderr (``ErrorReport``); a reason's lines
    /// (``ConfigurationError/init(_:lines:)``, each already escaped) stay lines.
    static func report(_ error: ConfigurationError) { ErrorReport(error).write() }

    /// `activate: <reason>` on stderr.
    static func report(_ error: ImagingError) { report(error.reason) }

    /// A question on stderr, without a newline.
    static func prompt(_ text: String) {
        write(STDERR_FILENO, Array(UntrustedText.escaped(text).utf8))
    }

    /// Bytes on stdout exactly as given: `--raw` payloads (zbarimg's contract) and JSON.
    static func raw(_ bytes: [UInt8]) { write(STDOUT_FILENO, bytes) }
    static func raw(_ text: String) { raw(Array(text.utf8)) }

    /// The tool's own terminal control sequences (the progress bar) on stderr; none with `--quiet`.
    static func terminalControl(_ text: String) {
        if quiet { return }
        write(STDERR_FILENO, Array(text.utf8))
    }

    static var stdoutIsTerminal: Bool { capture == nil && isatty(STDOUT_FILENO) == 1 }
    /// The width of the terminal on stdout, in columns, when stdout is one and says.
    static var terminalColumns: Int? {
        var size = winsize()
        guard stdoutIsTerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
    static var stdinIsTerminal: Bool { capture == nil && isatty(STDIN_FILENO) == 1 }
    static var stderrIsTerminal: Bool { capture == nil && isatty(STDERR_FILENO) == 1 }

    /// The errno of the first failed write to stdout; 0 while all went well.
    private static let outputError = Atomic<Int32>(0)

    /// Whether a write to stdout failed; if so, says why on stderr (not for a closed pipe, which
    /// the reader closed on purpose, as in `| head`).
    static func finish() -> Bool {
        if capture != nil { return true }
        let code = outputError.load(ordering: .relaxed)
        guard code != 0 else { return true }
        if code != EPIPE { report("standard output: write failed: \(FileFailure.describe(Errno(rawValue: code)))") }
        return false
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        if let capture {
            if fd == STDOUT_FILENO {
                capture.stdout.withLock { $0 += bytes }
            } else {
                capture.stderr.withLock { $0 += bytes }
            }
            return
        }
        if fd == STDOUT_FILENO, outputError.load(ordering: .relaxed) != 0 { return }  // stop after the first failure
        do {
            _ = try FileDescriptor(rawValue: fd).writeAll(bytes)  // retries EINTR and short writes
        } catch {
            let code = (error as? Errno)?.rawValue ?? EIO
            if fd == STDOUT_FILENO { _ = outputError.compareExchange(expected: 0, desired: code, ordering: .relaxed) }
            // stderr failing leaves nowhere to say so
        }
    }
}

/// The exit codes documented in `activate --help` and docs/command-line.md.
enum ExitStatus {
    static let success: Int32 = 0
    /// An input could not be read, or an output could not be written.
    static let failure: Int32 = 1
    /// `inspect`/`onboard`: the input was read but rejected.
    static let rejected: Int32 = 2
    /// `restore`: nothing is onboarded.
    static let notOnboarded: Int32 = 3
    /// `scan`: some input held no code.
    static let nothingFound: Int32 = 4
    /// `onboard`: the user declined the configuration.
    static let cancelled: Int32 = 5
    /// The store was deleted (too many wrong passcodes, too long without the server) or is blocked.
    static let lockedOut: Int32 = 6
    /// Not signed in: no sign-in is kept, the server refused to refresh it, the sign-in ended
    /// without tokens, or the server refused the credentials.
    static let notSignedIn: Int32 = 7
    /// The store is locked and no passcode was given, with no terminal to ask on.
    static let passcodeNeeded: Int32 = 8
    /// Usage error (ArgumentParser's validation errors exit with the same code).
    static let usage: Int32 = 64
}

/// `-q/--quiet`, for every command that prints summaries or progress.
struct QuietOption: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print no summaries, notes, warnings or progress on stderr (errors still).")
    var quiet = false

    // Parsing is the one place every command passes through before it prints anything.
    func validate() throws {
        Console.setQuiet(quiet)
    }
}

/// What a command run in-process wrote: its stdout and stderr, and its `--quiet`.
final class ConsoleCapture: Sendable {
    let stdout = Mutex<[UInt8]>([])
    let stderr = Mutex<[UInt8]>([])
    let quiet = Atomic<Bool>(false)
}
