import ActivationConfiguration
import ActivationDiscovery
import ActivationDiscoveryServer
import ActivationImaging
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser

/// The one place the command line turns a library's error into what it says and how it ends: the
/// library's reason (what happened), the command line's advice after it (an option, a command:
/// the libraries never name one), and the documented exit status (docs/command-line.md).
/// Matched by type and code, never by text.
///
/// Commands throw the libraries' errors as they come; ``Activate/execute(_:)`` reports them.
struct ErrorReport: Sendable {
    /// What follows `activate: ` on stderr: the reason, then `; advice` when there is advice.
    var message: String
    /// The exit status.
    var status: Int32

    /// How the command judges errors that are about its input.
    enum Judgement: Sendable {
        /// Each error by its code.
        case byCode
        /// Every error about the configuration is a rejection (2): onboarding, where each source's
        /// failure says why no configuration was acceptable.
        case configurationRejected
    }

    /// The report of `error`, or `nil` for an error that is no library's (ArgumentParser's own,
    /// `ExitCode`), which ArgumentParser reports.
    init?(_ error: any Error, judgement: Judgement = .byCode) {
        switch error {
        case let error as ConfigurationError:
            self.init(error, judgement: judgement)
        case let error as SecureStoreError:
            self.init(error.reason, advice: Self.advice(for: error), status: Self.status(of: error))
        case let error as OnboardingError where error.code == .declined:
            self.init("not stored", advice: nil, status: ExitStatus.cancelled)
        case let error as OnboardingError:
            self.init(error.reason, advice: Self.advice(for: error), status: Self.status(of: error))
        case let error as DiscoveryClientError:
            self.init(error.reason, advice: Self.advice(for: error), status: Self.status(of: error))
        case let error as DiscoveryServiceError:
            self.init(error.reason, advice: Self.advice(for: error), status: Self.status(of: error))
        case let error as ImagingError:
            self.init(error.reason, advice: nil, status: ExitStatus.failure)
        case let failure as StepFailure:
            let rejecting =
                judgement == .configurationRejected && failure.step == ConfigurationStep.stepName
                && failure.error is ConfigurationError
            if let report = ErrorReport(failure.error, judgement: rejecting ? .configurationRejected : .byCode) {
                self = report
            } else {
                self.init("\(failure.step): \(failure.error)", advice: nil, status: ExitStatus.failure)
            }
        default:
            return nil
        }
    }

    init(_ error: ConfigurationError, judgement: Judgement = .byCode) {
        let status = judgement == .configurationRejected ? ExitStatus.rejected : Self.status(of: error)
        // A reason of several lines (a summary, then one line per cause) stays as it is.
        let advice = error.reason.contains("\n") ? nil : Self.advice(for: error)
        self.init(error.reason, advice: advice, status: status)
    }

    private init(_ reason: String, advice: String?, status: Int32) {
        message = advice.map { "\(reason); \($0)" } ?? reason
        self.status = status
    }

    /// Writes the report on stderr, one line per line of the message.
    func write() {
        for (index, line) in message.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            Console.error(index == 0 ? "activate: \(line)" : String(line))
        }
    }

    /// Writes the report and gives the exit to end the command with.
    func exit() -> ExitCode {
        write()
        return ExitCode(status)
    }

    // MARK: Exit statuses

    /// Inputs that cannot be read (missing, unreadable), outputs that cannot be written and a
    /// damaged plaintext store are failures (1); everything else about the input is a rejection
    /// (2), an input over one of the limits among it (a file, a document, a code that inflates).
    static func status(of error: ConfigurationError) -> Int32 {
        switch error.code {
        case .fileNotFound, .fileUnreadable, .fileUnwritable, .fileExists, .storeDamaged:
            ExitStatus.failure
        default: ExitStatus.rejected
        }
    }

    /// A deleted or blocked store is 6, a locked one without a passcode source 8; a store that
    /// cannot be used as it is, 1; a passcode that is wrong, breaks the policy or has expired, 2.
    static func status(of error: SecureStoreError) -> Int32 {
        switch error.code {
        case .storeWiped, .storeBlocked: ExitStatus.lockedOut
        case .passcodeRequired: ExitStatus.passcodeNeeded
        case .wrongPasscode, .passcodeRejected, .passcodeExpired, .invalidWorkFactor: ExitStatus.rejected
        default: ExitStatus.failure
        }
    }

    /// A server that could not be asked, or answered what no server of the protocol answers, is a
    /// failure (1); a refusal, a rejection (2).
    static func status(of error: DiscoveryClientError) -> Int32 {
        switch error.code {
        case .unreachable, .invalidAnswer: ExitStatus.failure
        default: ExitStatus.rejected
        }
    }

    /// A database that cannot be reached or written is a failure (1), like an unreadable file; a
    /// file or URL that is not what the service takes, a rejection (2).
    static func status(of error: DiscoveryServiceError) -> Int32 {
        switch error.code {
        case .databaseUnavailable, .databaseUnwritable: ExitStatus.failure
        default: ExitStatus.rejected
        }
    }

    static func status(of error: OnboardingError) -> Int32 {
        switch error.code {
        case .declined: ExitStatus.cancelled
        case .notOnboarded: ExitStatus.notOnboarded
        case .alreadyOnboarded, .missingValue, .serverUnavailable: ExitStatus.failure
        case .signInRequired, .signInFailed, .credentialsRefused: ExitStatus.notSignedIn
        default: ExitStatus.rejected
        }
    }

    // MARK: Advice

    static func advice(for error: ConfigurationError) -> String? {
        switch error.code {
        case .fileExists: "pass --force to replace it"
        case .storeDamaged: "run `activate reset` to remove it"
        case .unknownKey: "give the trust list (--trust-list) or the public key (--public-key) that verifies it"
        case .passcodeRefused: "--allow-passcode encodes it anyway, in a code that expires soon (--expires 10m)"
        case .invalidKey:
            """
            --sign takes a private key (`activate keys create` makes one); --public-key and trust lists take public \
            keys (`activate keys public KEY.pem`)
            """
        default: nil
        }
    }

    static func advice(for error: SecureStoreError) -> String? {
        switch error.code {
        case .storeDamaged: "run `activate reset` to remove it"
        case .storeExists: "pass --force to replace it"
        case .passcodeRequired:
            "give it with --passcode-fd N or --passcode-file FILE, or run the command on a terminal"
        case .passcodeExpired: "change it first with `activate passcode change`"
        case .storeWiped: "run `activate onboard` to start again"
        case .storeBlocked:
            "run `activate restore --refresh` where the server can be reached, or ask your administrator"
        default: nil
        }
    }

    static func advice(for error: DiscoveryClientError) -> String? {
        switch error.code {
        case .unauthorized, .noToken: "give the service's admin token with --token-file FILE or $ACTIVATE_ADMIN_TOKEN"
        default: nil
        }
    }

    static func advice(for error: DiscoveryServiceError) -> String? {
        switch error.code {
        case .invalidDatabaseURL: "--database takes sqlite:PATH, postgres://user@host/db or none (with --configs)"
        default: nil
        }
    }

    static func advice(for error: OnboardingError) -> String? {
        switch error.code {
        case .notOnboarded: "run `activate onboard`"
        case .alreadyOnboarded: "pass --force to replace it, or run `activate reset` first"
        case .signInRequired, .signInFailed:
            "sign in with `activate login` (--device signs in with a code on another device)"
        case .credentialsRefused: "check them, or sign in again with `activate login`"
        default: nil
        }
    }

    /// The reason of a configuration error with the command line's advice after it, for lines that
    /// show it under a result (a scanned code's rejection).
    static func reason(_ error: ConfigurationError) -> String { ErrorReport(error).message }
}
