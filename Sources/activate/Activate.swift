import ArgumentParser

@main
struct Activate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Scan, check and generate activation QR codes for enterprise mobile apps.",
        discussion: """
            Administrators hand an app its server and sign-in settings as a QR code; `activate` reads
            such codes from images (`scan`) and makes them (`generate`).

            Exit codes:
              0   success (scan: every input had at least one code)
              1   an input could not be read or an output could not be written (the reason is on stderr)
              4   scan: some input had no code (the others are still scanned and printed)
              64  usage error (unknown option, bad value)
            """,
        version: ActivateVersion.current,
        subcommands: [ScanCommand.self, GenerateCommand.self, InspectCommand.self]
    )
}

enum ActivateVersion {
    static let current = "0.1.0"
}
