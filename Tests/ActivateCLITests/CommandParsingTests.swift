import ActivationOnboarding
import ArgumentParser
import Foundation
import Testing

@testable import activate

/// The option parsing of every command, in-process (`Activate.parseCommand`, as `activate` parses
/// its arguments, validation included): what each option sets, and the usage errors (exit 64) with
/// their messages. No binary is started; the tests that run `activate` test what happens after.
@Suite("Command-line parsing, in-process: every command's options and usage errors")
struct CommandParsingTests {
    func parse<Command: ParsableCommand>(
        _ arguments: [String], as type: Command.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Command {
        let parsed = try Activate.parseCommand(arguments)
        return try #require(
            parsed as? Command, "\(arguments) parsed as \(Swift.type(of: parsed))", sourceLocation: sourceLocation)
    }

    /// The usage error `arguments` give: its exit code must be 64; its message is returned.
    func usageError(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            _ = try Activate.parseCommand(arguments)
            Issue.record("\(arguments) parsed", sourceLocation: sourceLocation)
            return ""
        } catch {
            #expect(
                Activate.exitCode(for: error).rawValue == ExitStatus.usage,
                "\(arguments): \(Activate.message(for: error))", sourceLocation: sourceLocation)
            return Activate.message(for: error)
        }
    }

    @Test("onboard: the queue in the order given, the store, policy, passcode and credential options")
    func onboard() throws {
        let command = try parse(
            [
                "onboard", "--from", "scan:code.png", "--from", "file:fallback.json", "--from", "managed", "--store",
                "/s/store.age",
                "--policy", "p.json", "--passcode-fd", "3", "--credentials-file", "c.json", "--force", "--yes",
                "--json",
                "--work-factor", "12", "--allow-host", "example.com",
            ], as: OnboardCommand.self)
        #expect(try command.sources() == [.scan("code.png"), .file("fallback.json"), .managed])
        #expect(command.storeOptions.location.path == "/s/store.age")
        #expect(command.policyOptions.policyFile == "p.json" && command.policyOptions.workFactor == 12)
        #expect(command.passcode.passcodeFD == 3 && command.credentials.credentialsFile == "c.json")
        #expect(command.force && command.yes && command.json && !command.offline && !command.noPasscode)
        let shorthand = try parse(["onboard", "--file", "a.json", "--file", "b.json"], as: OnboardCommand.self)
        #expect(try shorthand.sources() == [.file("a.json"), .file("b.json")])
        #expect(
            try parse(["onboard", "--from", "json:{\"host\":\"a:b\"}"], as: OnboardCommand.self).sources() == [
                .json(#"{"host":"a:b"}"#)
            ])
    }

    @Test(
        "usage errors: exit 64 and a message that says what to give instead",
        arguments: [
            (["onboard", "--email", "a@example.com"], "need --discovery URL and --app-id ID"),
            (
                ["onboard", "--file", "a.json", "--scan", "b.png"],
                "were both given, and the order of different options is not kept"
            ),
            (["onboard", "--from", "file:a.json", "--file", "b.json"], "--file cannot be combined with --from"),
            (["onboard", "--from", "ftp:x"], "--from takes KIND:VALUE"),
            (["onboard", "--from", "managed:x"], "--from managed takes no value"),
            (["onboard", "--from", "file:"], "the value after the colon is empty"),
            (["onboard", "--no-passcode", "--passcode-fd", "3"], "--no-passcode goes with neither"),
            (
                ["onboard", "--passcode-fd", "3", "--passcode-file", "p"],
                "give --passcode-fd or --passcode-file, not both"
            ),
            (["onboard", "--passcode-fd=-1"], "--passcode-fd takes a file descriptor"),
            (
                ["onboard", "--credentials-fd", "3", "--credentials-file", "c"],
                "give --credentials-file or --credentials-fd, not both"
            ),
            (["onboard", "--work-factor", "21"], "--work-factor takes a number from 1 to 20"),
            (["restore", "--work-factor", "0"], "--work-factor takes a number from 1 to 20"),
            (
                ["passcode", "change", "--new-passcode-fd", "4", "--new-passcode-file", "n"],
                "give --new-passcode-fd or --new-passcode-file, not both"
            ),
            (["inspect"], "Missing expected argument"),
            (["inspect", "x", "--signature", "sometimes"], "--signature"),
            (["scan"], "Missing expected argument '<file> ...'"),
            (["scan", "--raw", "--json", "x.png"], "--raw, --json and --json-lines cannot be combined"),
            (["scan", "--binary", "x.png"], "--binary only applies to --raw output."),
            (["scan", "-", "-"], "Standard input (`-`) can be read only once."),
            (["scan", "--symbology", "nonsense", "x.png"], "The value 'nonsense' is invalid for '--symbology"),
            (["scan", "--effort", "hard", "x.png"], "The value 'hard' is invalid for '--effort <effort>'"),
            (["generate", "x", "--scale", "1"], "--scale must be at least 2"),
            (["generate", "x", "--ec", "X"], "The value 'X' is invalid for '--ec <ec>'"),
            (["generate", "x", "--min-version", "41"], "--min-version must be between 1 and 40."),
            (["generate", "x", "-o", "code.jpg"], "Cannot tell the format from 'code.jpg'"),
            (["generate", "x", "--input", "f"], "Give the payload one way"),
            (["generate", "x", "--margin", "-1"], "Missing value for '--margin"),
            (["generate", "x", "--sign", "k.pem"], "--sign signs a configuration: add --config FILE."),
            (["generate", "--compact", "-o", "u.png"], "--compact makes a signed code: add --sign KEY.pem"),
            (["generate", "--config", "c.json", "--expires", "7d", "-o", "u.png"], "--issuer, --expires an"),
            (
                ["generate", "--compact", "--config", "c.json", "-o", "u.png"],
                "--compact makes a signed code: add --sign KEY.pem"
            ),
            (
                ["generate", "--config", "c.json", "--compact", "--sign", "k.pem", "--expires", "31d", "-o", "u.png"],
                "--expires"
            ),
            (
                [
                    "generate", "--config", "c.json", "--compact", "--sign", "k.pem", "--expires", "2001-01-01", "-o",
                    "u.png",
                ], "--expires"
            ),
            (
                ["generate", "--config", "c.json", "--compact", "--sign", "k.pem", "--expires", "soon", "-o", "u.png"],
                "--expires"
            ),
            (["generate", "--batch", "folder"], "--batch writes its codes to a folder: add --out-dir DIR."),
            (["generate", "--batch", "folder", "--out-dir", "out", "-o", "x.png"], "--batch names each cod"),
            (["keys", "create", "--out", "-"], "A private key is written to a file, never to standard output"),
            (["keys", "create", "--out", "k.pem", "--algorithm", "rsa"], "The value 'rsa' is invalid for '"),
            (["keys", "trust", "remove", "xyz", "--trust-list", "t.json"], "A key id is 16 hex digits"),
            (["serve", "--configs", "c", "--header-timeout", "0"], "--header-timeout must be 0.01-86400 se"),
            (["frobnicate"], "Unexpected argument 'frobnicate'"),
        ] as [([String], String)])
    func usageErrors(arguments: [String], message: String) {
        let said = usageError(arguments)
        #expect(said.contains(message), "\(arguments): \(said)")
    }

    @Test("restore, reset, lock, passcode change: the store and passcode options")
    func storeCommands() throws {
        let restore = try parse(
            [
                "restore", "--store", "/s/a.age", "--refresh", "--json", "--show-secrets", "--passcode-file", "p",
                "--signature", "required",
            ],
            as: RestoreCommand.self)
        #expect(restore.refresh && restore.json && restore.showSecrets && restore.passcode.passcodeFile == "p")
        #expect(restore.storeOptions.location.path == "/s/a.age")
        #expect(
            try parse(["reset", "--store", "/s/b.age", "-q"], as: ResetCommand.self).storeOptions.store == "/s/b.age")
        #expect(try parse(["lock"], as: LockCommand.self).storeOptions.store == nil)
        let change = try parse(
            ["passcode", "change", "--passcode-fd", "0", "--new-passcode-fd", "0", "--work-factor", "10"],
            as: PasscodeCommand.Change.self)
        #expect(
            change.passcode.source.map { "\($0.name)" } == "file descriptor 0" && change.newPasscodeFD == 0
                && change.workFactor.workFactor == 10)
    }

    @Test(
        "scan: the look for the fast effort before parsing agrees with the parse (the helper is not started for it)",
        arguments: [
            ["--effort", "fast", "x.png"], ["--effort=fast", "x.png"], ["x.png", "--effort", "fast"],
            ["--effort", "fast", "--effort", "normal", "x.png"], ["--effort", "normal", "--effort=fast", "x.png"],
            ["--effort", "thorough", "x.png"], ["x.png"], ["--raw", "--", "--effort", "fast"],
        ])
    func fastEffortAhead(arguments: [String]) throws {
        let command = try parse(["scan"] + arguments, as: ScanCommand.self)
        #expect(ScanCommand.asksForFastEffort(arguments[...]) == (command.effort == .fast))
    }

    @Test("scan, generate, inspect, keys: the options each one takes")
    func otherCommands() throws {
        let scan = try parse(
            ["scan", "--json-lines", "--effort", "thorough", "--jobs", "2", "a.png", "photos/"], as: ScanCommand.self)
        #expect(scan.jsonLines && scan.files == ["a.png", "photos/"])
        let generate = try parse(
            ["generate", "--config", "c.json", "--compact", "--sign", "k.pem", "--issuer", "acme", "-o", "code.png"],
            as: GenerateCommand.self)
        #expect(generate.compact && generate.sign == "k.pem")
        let inspect = try parse(
            ["inspect", "--json", "-", "--allow-host", "hana.ondemand.com"], as: InspectCommand.self)
        #expect(inspect.json)
        _ = try parse(["keys", "create", "--out", "k.pem"], as: KeysCommand.CreateKey.self)
        _ = try parse(
            ["serve", "--configs", "SampleCodes", "--port", "0", "--database", "none"], as: ServeCommand.self)
    }

    /// What one parse gives: the command's values, or the error's exit code and message.
    func outcome(_ parse: () throws -> ParsableCommand) -> String {
        do {
            var values = ""
            dump(try parse(), to: &values)
            return values
        } catch {
            return "exit \(Activate.exitCode(for: error).rawValue): \(Activate.fullMessage(for: error))"
        }
    }

    @Test(
        "scan is parsed on its own, with the same values, help and usage errors as through the whole tree",
        arguments: [
            ["scan", "a.png"], ["scan", "--raw", "--binary", "-", "b.jpg"],
            ["scan", "--json", "--effort", "fast", "x"],
            ["scan", "--symbology", "qr,ean13", "--jobs", "3", "photos/"], ["scan"], ["scan", "--bogus", "a.png"],
            ["scan", "--effort", "slow", "a.png"], ["scan", "--help"], ["scan", "-h"], ["scan", "--version"],
            ["scan", "--generate-completion-script", "bash"], ["scan", "--", "--raw"],
        ])
    func scanParsedAlone(arguments: [String]) {
        let alone = outcome { try Activate.parseCommand(arguments) }
        #expect(alone == outcome { try Activate.parseAsRoot(arguments) })
        #expect(!alone.isEmpty)
    }

    @Test(
        "--help never states a default twice",
        arguments: [
            "scan", "generate", "inspect", "onboard", "restore", "reset", "lock", "passcode change", "serve",
            "keys create", "keys public", "keys trust add", "keys trust list",
        ])
    func helpDefaults(command: String) throws {
        let path = command.split(separator: " ").map(String.init)
        let subcommand = try #require(
            path.reduce(Activate.self as ParsableCommand.Type) { parent, name in
                parent.configuration.subcommands.first { $0._commandName == name } ?? parent
            } as ParsableCommand.Type?)
        #expect(subcommand._commandName == path.last)
        let help = Activate.helpMessage(for: subcommand, columns: 100)
        // Joined lines, so that a default wrapped onto the next line is seen too.
        let text = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(text.contains("USAGE:"))
        #expect(!text.contains(try Regex(#"\(default:[^)]*\)\.? \(default:"#)), "\(help)")
    }
}
