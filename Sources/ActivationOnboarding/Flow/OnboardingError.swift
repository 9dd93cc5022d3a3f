import ActivationConfiguration

/// Why a step of onboarding stopped: a closed set of codes, and a sentence for people that names
/// what went wrong (never a command-line option: what to do about it is the app's to say).
///
/// Steps also throw the errors of the libraries they use (`ConfigurationError` for files,
/// documents and the network, `SecureStoreError` for the store); ``OnboardingError`` is for what
/// only onboarding knows. Two errors are equal when their codes are.
public struct OnboardingError: ActivationError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The closed set of kinds; the static members below are the only codes.
        private enum Kind: String, Sendable {
            case declined = "declined"
            case unanswered = "unanswered"
            case notOnboarded = "not-onboarded"
            case alreadyOnboarded = "already-onboarded"
            case missingValue = "missing-value"
            case forbidden = "forbidden"
            case signInRequired = "sign-in-required"
            case signInFailed = "sign-in-failed"
            case credentialsRefused = "credentials-refused"
            case serverUnavailable = "server-unavailable"
            case noClientPolicies = "no-client-policies"
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The code's stable name, e.g. `declined`: what `--json` output and the documentation show.
        public var rawValue: String { kind.rawValue }
        public var description: String { rawValue }

        /// The user declined the configuration, or a question onboarding had to ask.
        public static let declined = Code(.declined)
        /// A question onboarding had to ask got no answer (no passcode was given).
        public static let unanswered = Code(.unanswered)
        /// Nothing is onboarded: there is no store, or it holds no configuration.
        public static let notOnboarded = Code(.notOnboarded)
        /// Something is already onboarded and the flow was not asked to replace it.
        public static let alreadyOnboarded = Code(.alreadyOnboarded)
        /// A step needs a value that no step before it provided (the flow's steps are in the wrong order).
        public static let missingValue = Code(.missingValue)
        /// The policies in force forbid what was asked.
        public static let forbidden = Code(.forbidden)
        /// There is no sign-in to use, or the server refused to refresh it: the user must sign in again.
        public static let signInRequired = Code(.signInRequired)
        /// The sign-in ended without tokens: the server or the user refused it (`access_denied`,
        /// an `error` in the redirect, an expired device code), it timed out, or its answer
        /// failed a check (state, issuer, nonce).
        public static let signInFailed = Code(.signInFailed)
        /// The server refused the credentials (HTTP 401 or 403), or expects another sign-in method.
        public static let credentialsRefused = Code(.credentialsRefused)
        /// The server could not be reached, timed out, failed (5xx) or answered something that is
        /// not what the protocol says.
        public static let serverUnavailable = Code(.serverUnavailable)
        /// A server gives no client policies: it keeps none for the application, or its address
        /// is not one the security policy lets the client ask.
        public static let noClientPolicies = Code(.noClientPolicies)
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, for people.
    public var reason: String

    /// An error of `code`, saying `reason`.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
