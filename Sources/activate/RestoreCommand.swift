import ActivationConfiguration
import ArgumentParser
import Foundation

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Show the stored configuration (no network).",
        discussion: """
            The stored configuration is checked again before it is shown, as onboarding checked it: every URL against the security policy (https, no IP address, --allow-host), and a recorded signature is verified again from the signed code kept in the store (with --public-key, the key must be one of those given). A store that was edited by hand, or that other users can write, is refused.

            Exit codes: 0 shown; 3 nothing is onboarded; 2 the stored configuration no longer passes the policy; 1 the store cannot be read, is not private, or is damaged (the message suggests `activate reset`).
            """
    )

    @Flag(help: "Print the stored configuration as JSON (README, \"restore --json\").") var json = false
    @Option(help: ArgumentHelp("Where the configuration is stored.", valueName: "path"), completion: .file()) var store: String?
    @OptionGroup(title: "Security policy") var policy: PolicyOptions

    func run() async throws {
        let store = FileConfigurationStore(path: self.store ?? FileConfigurationStore.defaultPath())
        let record: StoredConfiguration
        let report: ActivationReport
        do {
            guard let stored = try store.load() else {
                Console.report("nothing is onboarded (no configuration at \(store.path)); run `activate onboard`")
                throw ExitCode(ExitStatus.notOnboarded)
            }
            record = stored
            try stored.check(against: try policy.policy(), source: store.path)
            report = try ActivationReport(document: stored.document, signature: stored.signature,
                                          transformer: DiscoveryServiceTransformer(applicationID: stored.document.appID), source: store.path)
        } catch let error as ConfigurationError {
            Console.report(error)
            throw ExitCode(error.code == .storeDamaged ? ExitStatus.failure : error.exitStatus)
        }
        if json {
            Console.raw(JSONOutput.encode(record.report(report)) + "\n")
        } else {
            let when = record.storedAt.formatted(.iso8601)
            Console.print(lines: report.lines(headline: "Onboarded from \(record.origin) (\(record.providerID)) at \(when)."))
        }
    }
}
