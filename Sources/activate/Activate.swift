import ActivationImaging
import ArgumentParser
import Foundation

@main
struct Activate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Scan, check and generate activation QR codes for enterprise mobile apps.",
        discussion: """
            Administrators hand an app its server and sign-in settings as a QR code, a file, managed configuration or \
            a discovery service. `activate` reads such codes from images (`scan`), makes them (`generate`, plain or \
            signed), checks configurations (`inspect`), runs the onboarding lifecycle (`onboard`, `restore`, `reset`, \
            with the configuration and credentials in a passcode-protected secure store: `lock`, `passcode change`), \
            signs in and hands scripts access tokens (`login`, `token`, `logout`), a discovery service (`serve`) and \
            its codes and documents (`discovery`), and manages signing keys and trust lists (`keys`).

            Exit codes:
              0   success (scan: every input had at least one code)
              1   an input could not be read or an output not written (reason on stderr)
              2   the input was read but rejected (scan: a code was refused; a wrong or expired passcode)
              3   restore: nothing is onboarded
              4   scan: some input had no code (the others are still scanned and printed)
              5   onboard: the configuration was declined at the prompt
              6   restore, passcode: the secure store was deleted (too many wrong passcodes, too long without the \
            server) or is blocked
              7   onboard, login, token: not signed in (no sign-in kept, the server refused the refresh or the \
            credentials, the sign-in ended without tokens)
              8   the store is locked, and no passcode was given (--passcode-fd, --passcode-file) with no terminal to \
            ask on
              64  usage error (unknown option, bad value)
            """,
        version: ActivateVersion.current,
        subcommands: [
            ScanCommand.self, GenerateCommand.self, InspectCommand.self, OnboardCommand.self, RestoreCommand.self,
            ResetCommand.self, LoginCommand.self, TokenCommand.self, LogoutCommand.self, LockCommand.self,
            PasscodeCommand.self, ServeCommand.self, DiscoveryCommand.self, KeysCommand.self,
        ]
    )
}

extension Activate {
    /// ArgumentParser's main, plus two rules: no subcommand is a usage error (help on stderr,
    /// exit 64); and if a result could not be written to stdout (a full disk, a closed pipe), the
    /// command fails with exit 1, whatever it computed.
    static func main() async {
        // `--version` alone is answered before the command tree is built: scripts and package
        // checks ask it, and building the tree of every command costs more than the answer.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            Console.raw(ActivateVersion.current + "\n")
            Foundation.exit(Console.finish() ? ExitStatus.success : ExitStatus.failure)
        }
        // Without a subcommand there is nothing to do: the help goes where errors go, and it is a
        // usage error, so that a script that forgot the subcommand does not pass.
        if CommandLine.arguments.count == 1 {
            for line in helpMessage().split(separator: "\n", omittingEmptySubsequences: false) {
                Console.error(String(line))
            }
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        // Parsing `scan`'s options takes longer than the zxing helper needs to load: it loads
        // meanwhile (a scan starts it anyway; `--help` and usage errors leave it to exit unused),
        // unless the fast effort, which has no zxing pass, is asked for.
        if CommandLine.arguments[1] == ScanCommand.configuration.commandName
            && !ScanCommand.asksForFastEffort(CommandLine.arguments.dropFirst(2))
        {
            BarcodeScanner.startSecondEngine()
        }
        Foundation.exit(await execute(Array(CommandLine.arguments.dropFirst())))
    }

    /// Parses `arguments`, runs the command and tells its exit status; the libraries' errors
    /// (``ErrorReport``) and ArgumentParser's messages (help on stdout, usage errors on stderr) go
    /// where the console writes. The one path
    /// of every command, for the process and for tests that run a command in-process.
    static func execute(_ arguments: [String]) async -> Int32 {
        do {
            var command = try parseCommand(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // The libraries' errors: the reason, the command line's advice, the documented status.
            if let report = ErrorReport(error) {
                report.write()
                return Console.finish() ? report.status : ExitStatus.failure
            }
            // A command's documented status (scan's 4 when an image had no code): nothing to
            // print, and no need for ArgumentParser's message machinery to say so.
            if let status = error as? ExitCode {
                return Console.finish() ? status.rawValue : ExitStatus.failure
            }
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                if code == .success {
                    Console.raw(message + "\n")
                } else {
                    for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
                        Console.error(String(line))
                    }
                }
            }
            return Console.finish() ? code.rawValue : ExitStatus.failure
        }
        return Console.finish() ? ExitStatus.success : ExitStatus.failure
    }

    /// The command `arguments` name, parsed. `scan`, which scripts start once per image, is parsed
    /// on its own: building the tree of every command costs more than reading a small image.
    /// Anything but a clean parse (help, a usage error, a completion request) is parsed again
    /// with the whole tree, so what the user sees is the same either way.
    static func parseCommand(_ arguments: [String]) throws -> ParsableCommand {
        if arguments.first == ScanCommand.configuration.commandName,
            let scan = try? ScanCommand.parse(Array(arguments.dropFirst()))
        {
            return scan
        }
        return try parseAsRoot(arguments)
    }
}

enum ActivateVersion {
    static let current = "0.1.0"
}
