@testable import activate
import Foundation

extension ActivateCLI {
    /// Runs `activate` with `arguments` in this process, its stdout and stderr captured: for the
    /// tests where no process boundary is under test (no standard input, no signal, no working
    /// folder of its own). The same path as the binary's `main`: parsing, validation, the command,
    /// its errors and exit status. `onboard` and `restore` get the test passcode as with ``run(_:stdin:in:)``.
    static func runInProcess(_ arguments: [String]) async throws -> Result {
        let capture = ConsoleCapture()
        let status = await Console.$capture.withValue(capture) { await Activate.execute(TestPasscode.added(to: arguments)) }
        return Result(status: status, stdout: capture.stdout.withLock { $0 }, stderr: String(decoding: capture.stderr.withLock { $0 }, as: UTF8.self))
    }
}
