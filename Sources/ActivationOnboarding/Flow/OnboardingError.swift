/// Why a step of onboarding stopped: a closed set of codes, and a sentence for people that names
/// what went wrong (never a command-line option: what to do about it is the app's to say).
///
/// Steps also throw the errors of the libraries they use (`ConfigurationError` for files,
/// documents, the store and the network); ``OnboardingError`` is for what only onboarding knows.
public struct OnboardingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// The code's stable name.
        public var description: String { rawValue }

        /// The user declined the configuration, or a question onboarding had to ask.
        public static let declined = Code("declined")
        /// A question onboarding had to ask got no answer (no passcode was given).
        public static let unanswered = Code("unanswered")
        /// Nothing is onboarded: there is no store, or it holds no configuration.
        public static let notOnboarded = Code("not-onboarded")
        /// Something is already onboarded and the flow was not asked to replace it.
        public static let alreadyOnboarded = Code("already-onboarded")
        /// A step needs a value that no step before it provided (the flow's steps are in the wrong order).
        public static let missingValue = Code("missing-value")
        /// The policies in force forbid what was asked.
        public static let forbidden = Code("forbidden")
        /// There is no sign-in to use, or the server refused to refresh it: the user must sign in again.
        public static let signInRequired = Code("sign-in-required")
        /// The sign-in ended without tokens: the server or the user refused it (`access_denied`,
        /// an `error` in the redirect, an expired device code), it timed out, or its answer
        /// failed a check (state, issuer, nonce).
        public static let signInFailed = Code("sign-in-failed")
        /// The server refused the credentials (HTTP 401 or 403), or expects another sign-in method.
        public static let credentialsRefused = Code("credentials-refused")
        /// The server could not be reached, timed out, failed (5xx) or answered something that is
        /// not what the protocol says.
        public static let serverUnavailable = Code("server-unavailable")
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

    /// The reason.
    public var description: String { reason }
}
