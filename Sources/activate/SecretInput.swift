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
            throw ConfigurationError(.passcodeRequired, source: source, "gave no \(what) (it was closed)")
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

/// `--passcode-fd N` / `--passcode-file F`: the passcode of the store, for scripts and tests.
struct PasscodeOptions: ParsableArguments {
    @Option(
        name: .customLong("passcode-fd"),
        help: ArgumentHelp(
            "Read the passcode from this open file descriptor (one line), not the terminal.", valueName: "n"))
    var passcodeFD: Int32?
    @Option(
        name: .customLong("passcode-file"),
        help: ArgumentHelp(
            "Read the passcode from the first line of this file (only you may read it).", valueName: "file"),
        completion: .file())
    var passcodeFile: String?

    func validate() throws {
        if passcodeFD != nil && passcodeFile != nil {
            throw ValidationError("give --passcode-fd or --passcode-file, not both")
        }
        if let passcodeFD, passcodeFD < 0 { throw ValidationError("--passcode-fd takes a file descriptor (0 or more)") }
    }

    /// Whether the passcode comes from a descriptor or file (no question on the terminal).
    var isGiven: Bool { source != nil }

    /// The descriptor or file the passcode comes from, or `nil` for the terminal.
    var source: SecretSource? {
        if let passcodeFD { return .descriptor(passcodeFD) }
        return passcodeFile.map(SecretSource.file)
    }
}

/// The passcode policy for people.
enum NewPasscode {
    /// The policy: `at least 8 characters, at least one digit; 10 tries, then the store is deleted; …`.
    static func describe(_ policy: PasscodePolicy) -> [String] {
        var lines = ["Passcode policy: \(policy.rules.map(\.description).joined(separator: ", "))."]
        var after: [String] = []
        after.append(
            policy.retryLimit > 0
                ? "\(policy.retryLimit) wrong passcodes in a row delete the store" : "no limit on wrong passcodes")
        after.append(
            policy.lockTimeout > 0
                ? "unlocked for \(policy.lockTimeout) s after each use" : "locked again after each use")
        after.append(policy.expiresInDays > 0 ? "to be changed every \(policy.expiresInDays) days" : "never expires")
        if policy.fingerprintEnabled { after.append("fingerprint unlock is allowed (not on this system)") }
        lines.append("  " + after.joined(separator: "; ") + ".")
        return lines
    }
}

/// `--credentials-file F` / `--credentials-fd N`: the credentials the configuration signs in with,
/// as JSON, for scripts; else asked on the terminal.
struct CredentialOptions: ParsableArguments {
    @Option(
        name: .customLong("credentials-file"),
        help: ArgumentHelp(
            "Credentials as JSON, {\"user\": …, \"password\": …} or {\"apiKey\": …}, in a file only you may read.",
            valueName: "file"),
        completion: .file())
    var credentialsFile: String?
    @Option(
        name: .customLong("credentials-fd"),
        help: ArgumentHelp("Credentials as JSON from this open file descriptor (read to its end).", valueName: "n"))
    var credentialsFD: Int32?

    func validate() throws {
        if credentialsFile != nil && credentialsFD != nil {
            throw ValidationError("give --credentials-file or --credentials-fd, not both")
        }
    }

    /// The descriptor or file the credentials come from, or `nil` for the terminal.
    var source: SecretSource? {
        if let credentialsFD { return .descriptor(credentialsFD) }
        return credentialsFile.map(SecretSource.file)
    }
}
