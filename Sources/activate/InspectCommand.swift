import ActivationConfiguration
import ArgumentParser

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Check a configuration file or payload and show where it connects.",
        discussion: """
            Reads a configuration document (JSON, XML or binary property list, flattened MDM keys, \
            AppParameters.plist), a signed code (JWS), an activation link (MDK, SAP Mobile Cards), or any scanned \
            text, from a file or standard input (`-`). The format is told from the content.

            It prints the confirmation a user sees before onboarding ("You will be connected to: …"), or with --json \
            the normalised document and the transformed configuration (docs/generating-and-inspecting.md, "inspect \
            --json"). Secrets such as passcodes are never printed.

            Examples:
              activate inspect SampleCodes/oauth-configuration.json
              activate scan --raw code.png | activate inspect -
              activate inspect signed.txt --public-key signer.pub.pem --signature required
              activate inspect config.json --allow-host hana.ondemand.com --json

            Exit codes: 0 accepted; 2 rejected (the reason is on stderr, naming the key path); 1 the input cannot be \
            read; 64 usage error.
            """
    )

    @Argument(
        help: ArgumentHelp("The file to inspect; `-` reads standard input.", valueName: "file"), completion: .file())
    var file: String

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp("The application id to use when the document names none.", valueName: "id"))
    var appID: String?

    @OptionGroup(title: "Security policy")
    var policy: PolicyOptions

    func run() async throws {
        let recognizer: PayloadRecognizer
        let report: ActivationReport
        do {
            recognizer = PayloadRecognizer(policy: try policy.policy(applicationID: appID))
            let bytes = try FileIO.read(file, limit: recognizer.policy.limits.maxDocumentBytes)
            report = try ActivationReport(
                payload: try recognizer.recognize(bytes: bytes, source: file),
                transformer: DiscoveryServiceTransformer(applicationID: appID), source: file)
        } catch let error as ConfigurationError {
            if json { Console.raw(JSONOutput.encode(InspectReport(rejecting: error)) + "\n") }
            throw error
        }
        if json {
            Console.raw(JSONOutput.encode(InspectReport(report)) + "\n")
        } else {
            Console.print(lines: report.lines(headline: "Configuration accepted."))
        }
        guard report.payload.document != nil else {
            if report.payload.kind != .appParameters {
                Console.report("\(file): \(report.payload.summary), not an onboarding configuration")
            }
            throw ExitCode(report.payload.kind == .appParameters ? ExitStatus.success : ExitStatus.rejected)
        }
    }
}
