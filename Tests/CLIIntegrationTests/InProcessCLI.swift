import Foundation

@testable import activate

extension ActivateCLI {
    /// Runs `activate` with `arguments` in this process, its stdout and stderr captured: for the
    /// tests where no process boundary is under test (no standard input, no signal, no working
    /// folder of its own). The same path as the binary's `main`: parsing, validation, the command,
    /// its errors and exit status. `onboard` and `restore` get the test passcode as with ``run(_:stdin:in:)``.
    ///
    /// The command runs on a thread of its own, never on the cooperative threads: its synchronous
    /// work (encoding, decoding, key derivation) would otherwise hold the few that every suite and
    /// the in-process servers share. Commands count against ``ProcessSlots`` as children do.
    static func runInProcess(_ arguments: [String]) async throws -> Result {
        try await ProcessSlots.shared.holding {
            let capture = ConsoleCapture()
            let status = await withTaskExecutorPreference(CommandThread()) {
                await Console.$capture.withValue(capture) { await Activate.execute(TestPasscode.added(to: arguments)) }
            }
            return Result(
                status: status, stdout: capture.stdout.withLock { $0 },
                stderr: String(decoding: capture.stderr.withLock { $0 }, as: UTF8.self))
        }
    }
}

/// A task executor on a serial Dispatch queue of its own: the jobs of one in-process command.
final class CommandThread: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "activate-in-process-command")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
