import ActivationConfiguration
import ActivationOnboarding
import ArgumentParser

extension StepFailure {
    /// Tells why the flow stopped, on stderr with the command line's advice, and ends the command
    /// with the documented exit status. A configuration that no source gave, or that the checks
    /// refused, is a rejection (2) whatever the reason.
    func exit(rejectingConfiguration: Bool = false) -> ExitCode {
        switch error {
        case let error as OnboardingError:
            switch error.code {
            case .declined:
                Console.report("not stored")
                return ExitCode(ExitStatus.cancelled)
            case .notOnboarded:
                Console.report("\(error.reason); \(Hint.text(for: error) ?? "")")
                return ExitCode(ExitStatus.notOnboarded)
            case .alreadyOnboarded:
                Console.report("\(error.reason); \(Hint.text(for: error) ?? "")")
                return ExitCode(ExitStatus.failure)
            case .missingValue, .serverUnavailable:
                Console.report(error.reason)
                return ExitCode(ExitStatus.failure)
            case .signInRequired, .signInFailed, .credentialsRefused:
                Console.report([error.reason, Hint.text(for: error)].compactMap { $0 }.joined(separator: "; "))
                return ExitCode(ExitStatus.notSignedIn)
            default:
                Console.report(error.reason)
                return ExitCode(ExitStatus.rejected)
            }
        case let error as ConfigurationError:
            Console.report(error)
            return ExitCode(
                rejectingConfiguration && step == ConfigurationStep.stepName ? ExitStatus.rejected : error.exitStatus)
        default:
            Console.report("\(step): \(error)")
            return ExitCode(ExitStatus.failure)
        }
    }
}

extension ConfigurationStep {
    /// The step's name in a flow's result.
    static let stepName = String(describing: ConfigurationStep.self)
}
