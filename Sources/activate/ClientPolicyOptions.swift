import ActivationConfiguration
import ArgumentParser

/// `--policy FILE`: client policies as SAP's `settingsExchange` JSON.
struct ClientPolicyOptions: ParsableArguments {
    @Option(
        name: .customLong("policy"),
        help: ArgumentHelp(
            """
            Client policies: a settingsExchange JSON file as the mobile services server sends it (default: SAP's \
            defaults).
            """,
            valueName: "file"),
        completion: .file())
    var policyFile: String?

    /// Whether --policy was given.
    var isGiven: Bool { policyFile != nil }

    @OptionGroup var workFactorOption: WorkFactorOption
    var workFactor: Int { workFactorOption.workFactor }

    /// The policies of --policy, or SAP's defaults.
    func policies() throws -> ClientPolicies {
        guard let policyFile else { return .default }
        return try ClientPolicies(
            json: try FileIO.read(policyFile, limit: ClientPolicies.maxDocumentBytes), source: policyFile)
    }
}
