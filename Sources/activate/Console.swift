#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to standard output and standard error. Results go to stdout, everything else
/// (errors, progress, summaries) to stderr, so `activate … | tool` pipes only results.
enum Console {
    static func out(_ bytes: [UInt8]) { writeAll(STDOUT_FILENO, bytes) }
    static func out(_ text: String) { out(Array(text.utf8)) }
    static func error(_ text: String) { writeAll(STDERR_FILENO, Array(text.utf8)) }

    /// Prints `activate: <message>` on stderr.
    static func report(_ message: String) { error("activate: \(message)\n") }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                #if canImport(Glibc)
                Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #else
                Darwin.write(fd, raw.baseAddress! + offset, raw.count - offset)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe (e.g. `| head`): nothing sensible left to do with output
            }
            offset += written
        }
    }
}

/// The exit codes documented in `activate --help` and the README.
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
    /// Usage error (ArgumentParser's validation errors exit with the same code).
    static let usage: Int32 = 64
}
