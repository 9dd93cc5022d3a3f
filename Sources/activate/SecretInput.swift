import ActivationConfiguration
import ActivationSecureStore
import ArgumentParser
import FileAccess
import Foundation  // termios, open, read
import SystemPackage

/// Where a secret comes from: a file descriptor (`--passcode-fd 3`, one line), a file only its
/// owner can read (`--passcode-file F`, its first line), or the terminal without echo. Never
/// argv, never the environment: both are visible to other processes.
enum SecretInput {
    /// The longest line read as a secret.
    static let maxLineBytes = 4096

    /// One line from descriptor `fd`, without its line ending. It reads a byte at a time, so
    /// that `--passcode-fd 0 --new-passcode-fd 0` finds the current passcode on the first line
    /// and the new one on the second.
    ///
    /// - Throws: ``ConfigurationError`` when the descriptor cannot be read, gives nothing, or a
    ///   line is longer than ``maxLineBytes``.
    static func line(fromDescriptor fd: Int32, what: String) throws -> String {
        let source = "file descriptor \(fd)"
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ended = false
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigurationError(
                    .fileUnreadable, source: source,
                    "cannot read the \(what): \(FileFailure.describe(Errno(rawValue: errno)))")
            }
            if count == 0 { break }
            if byte == 0x0A {
                ended = true
                break
            }
            line.append(byte)
            guard line.count <= maxLineBytes else {
                throw ConfigurationError(
                    .inputTooLarge, source: source, "the \(what) is longer than \(maxLineBytes) bytes")
            }
        }
        if line.last == 0x0D { line.removeLast() }
        guard ended || !line.isEmpty else {
            throw SecureStoreError(.passcodeRequired, source: source, "gave no \(what) (it was closed)")
        }
        return try text(line, source: source, what: what)
    }

    /// The first line of a file that only its owner can read.
    static func line(fromFile path: String, what: String) throws -> String {
        let bytes = try FileIO.readSecret(path, limit: maxLineBytes + 2, what: "the \(what) file")
        var line = Array(bytes.prefix { $0 != 0x0A })
        if line.last == 0x0D { line.removeLast() }
        return try text(line, source: path, what: what)
    }

    private static func text(_ bytes: [UInt8], source: String, what: String) throws -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(.invalidUTF8, source: source, "the \(what) is not UTF-8 text")
        }
        return text
    }

    /// Asks on the terminal (`/dev/tty`) with echo off, as `sudo` and `age` do; `nil` when there is
    /// no terminal, echo cannot be turned off, the input ends (Ctrl-D), or the answer is not UTF-8.
    static func ask(_ prompt: String, echo: Bool = false) -> String? {
        // A command run in-process (a test) has no terminal of its own.
        guard Console.capture == nil else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { return nil }
        if !echo {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            TerminalRestore.save(fd: fd, original)
            // TCSANOW, not TCSAFLUSH: what was typed before the question is the answer, not noise.
            guard tcsetattr(fd, TCSANOW, &silent) == 0 else {
                TerminalRestore.clear()
                return nil
            }
        }
        defer {
            if !echo {
                tcsetattr(fd, TCSANOW, &original)
                TerminalRestore.clear()
            }
        }
        let shown = Array(UntrustedText.escaped(prompt).utf8)
        _ = shown.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var ended = false
        while true {
            let count = read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if byte == 0x0A {
                ended = true
                break
            }
            if line.count < maxLineBytes { line.append(byte) }
        }
        guard ended || !line.isEmpty else { return nil }
        if line.last == 0x0D { line.removeLast() }
        return String(validating: line, as: UTF8.self)
    }

    /// Whether a terminal is there to ask on.
    static var hasTerminal: Bool {
        guard Console.capture == nil else { return false }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }
}

/// Puts the terminal's echo back when Ctrl-C interrupts a question asked without it.
enum TerminalRestore {
    nonisolated(unsafe) private static var saved: (fd: Int32, settings: termios)?

    /// The signals that end the process while it waits for an answer.
    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func save(fd: Int32, _ settings: termios) {
        saved = (fd, settings)
        for number in signals {
            signal(number) { number in
                if var settings = TerminalRestore.saved?.settings, let fd = TerminalRestore.saved?.fd {
                    tcsetattr(fd, TCSANOW, &settings)
                }
                _exit(128 + number)
            }
        }
    }

    static func clear() {
        for number in signals { signal(number, SIG_DFL) }
        saved = nil
    }
}

/// Where a secret comes from instead of the terminal: an open descriptor, or a file only its
/// owner can read. Never argv, never the environment: both are visible to other processes.
enum SecretSource: Sendable {
    case descriptor(Int32)
    case file(String)

    /// The descriptor or file, as errors name it.
    var name: String {
        switch self {
        case .descriptor(let fd): "file descriptor \(fd)"
        case .file(let path): path
        }
    }

    /// One line: the descriptor's next, or the file's first.
    func line(what: String) throws -> String {
        switch self {
        case .descriptor(let fd): try SecretInput.line(fromDescriptor: fd, what: what)
        case .file(let path): try SecretInput.line(fromFile: path, what: what)
        }
    }

    /// All of it, up to `limit` bytes.
    func bytes(what: String, limit: Int) throws -> [UInt8] {
        switch self {
        case .descriptor(let fd):
            try FileIO.converting { () throws(FileFailure) in
                try Files.readAll(FileDescriptor(rawValue: fd), name: name, limit: limit)
            }
        case .file(let path):
            try FileIO.readSecret(path, limit: limit, what: what)
        }
    }
}
