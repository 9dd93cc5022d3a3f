import ActivationImaging
import Foundation

/// Starts the user's browser for a sign-in, as `xdg-open` and Python's `webbrowser` do:
/// `$BROWSER` when set (each `:`-separated command in turn, given the address as its one
/// argument, or in place of `%s`), else `xdg-open`. The browser's own output goes to stderr, so
/// stdout carries only results.
enum BrowserLauncher {
    /// Whether a browser was started: the command ran and had not failed after a short wait.
    static func open(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        for command in commands(environment: environment) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                command.contains("%s")
                ? command.split(separator: " ").map { $0 == "%s" ? url : String($0) }
                : [command, url]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.standardError
            process.standardError = FileHandle.standardError
            do {
                try process.run()
            } catch {
                continue
            }
            // xdg-open ends at once, failing where it finds no browser; a browser itself keeps running.
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning || process.terminationStatus == 0 { return true }
        }
        return false
    }

    /// The commands to try, in order.
    static func commands(environment: [String: String]) -> [String] {
        if let browser = environment["BROWSER"], !browser.isEmpty {
            return browser.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        return ["xdg-open"]
    }

    /// What to tell a session without a display (SSH, a container): the browser may not start
    /// or may not reach this device's listener.
    static func headlessNote(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let noDisplay = (environment["DISPLAY"] ?? "").isEmpty && (environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        guard noDisplay || environment["SSH_CONNECTION"] != nil else { return nil }
        return
            """
            this session has no display of its own (or runs over SSH): if the browser cannot come back here, sign in \
            with --device (a code on another device), or with --no-browser (paste the address the browser ends on)
            """
    }
}

/// A QR code drawn with block characters, for a terminal.
enum TerminalQR {
    static func draw(_ text: String) throws -> String {
        try QRCodeEncoder(errorCorrection: .low).encode(Array(text.utf8)).terminal(margin: 2)
    }
}
