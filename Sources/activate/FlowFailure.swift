import ActivationConfiguration
import ActivationOnboarding
import ArgumentParser

extension StepFailure {
    /// Tells why the flow stopped, on stderr with the command line's advice, and ends the command
    /// with the documented exit status (``ErrorReport``). A configuration that no source gave, or
    /// that the checks refused, is a rejection (2) whatever the reason.
    func exit(rejectingConfiguration: Bool = false) -> ExitCode {
        let report = ErrorReport(self, judgement: rejectingConfiguration ? .configurationRejected : .byCode)
        return report?.exit() ?? ExitCode(ExitStatus.failure)
    }
}

extension ConfigurationStep {
    /// The step's name in a flow's result.
    static let stepName = String(describing: ConfigurationStep.self)
}
