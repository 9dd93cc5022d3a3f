import ActivationConfiguration
import ActivationSecureStore

/// Everything onboarding shows the user and asks of them, so that the steps never draw a screen
/// or read a terminal: the app supplies the presenter. `activate` implements it on the terminal,
/// the tests answer from a script, an app with a UI shows its own screens.
///
/// A question is asked once per call; the step that asks decides whether to ask again (a
/// passcode that breaks the policy, a wrong current passcode) and says why in the request.
public protocol OnboardingPresenter: Sendable {
    /// Shows the configuration that was found ("You will be connected to: host") and, when
    /// `confirming`, asks whether to go on: `false` declines it. Without `confirming` the answer
    /// is not asked for, and ignored.
    func present(_ summary: ConfigurationSummary, confirming: Bool) async -> Bool

    /// Asks for what the configuration providers can use, such as an e-mail address or an
    /// onboarding code for the discovery service; empty when the user gives nothing.
    func providerInput(for keys: [ProviderInputKey]) async -> ProviderInput

    /// Asks for a new passcode under the request's policy; `nil` when the user gives none.
    ///
    /// - Throws: to stop the step, e.g. when there is nobody to ask.
    func newPasscode(_ request: NewPasscodeRequest) async throws -> Passcode?

    /// Asks for the store's current passcode; `nil` when the user gives none.
    ///
    /// - Throws: to stop the step, e.g. when there is nobody to ask.
    func currentPasscode(_ request: PasscodeRequest) async throws -> Passcode?

    /// Asks for the credentials the configuration signs in with; empty credentials when the user
    /// gives none (nothing is then kept).
    ///
    /// - Throws: to stop the step, e.g. when given credentials cannot be read.
    func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials

    /// Asks whether the user consents to the collection of usage data under the request's policy.
    func consent(_ request: ConsentRequest) async -> Bool

    /// Opens the request's address in a browser, where the user signs in; the address is shown
    /// first whatever happens. `false` when no browser could be started.
    func openBrowser(_ request: BrowserSignInRequest) async -> Bool

    /// Asks for the address the browser ended on after the user signed in (paste-back), for a
    /// redirect that cannot come back to this device by itself; `nil` when none is given.
    ///
    /// - Throws: to stop the sign-in, e.g. when there is nobody to ask.
    func redirectedAddress(_ request: PastedAddressRequest) async throws -> String?

    /// Shows the device grant's user code and where to enter it, while the sign-in waits.
    func showDeviceCode(_ prompt: DeviceCodePrompt) async

    /// Tells the user something: progress, what a step did, or what it could not do.
    func show(_ note: OnboardingNote)
}

/// The configuration onboarding found, as the user confirms it.
public struct ConfigurationSummary: Sendable, Hashable {
    /// The server the app will connect to.
    public var host: String
    /// Where the configuration was found, for people.
    public var origin: String
    /// The summary's lines: the headline, "You will be connected to: …", then the server, app,
    /// sign-in and signature.
    public var lines: [String]

    /// A summary of a configuration for `host` found at `origin`.
    public init(host: String, origin: String, lines: [String]) {
        self.host = host
        self.origin = origin
        self.lines = lines
    }
}

/// A question for a new passcode.
public struct NewPasscodeRequest: Sendable {
    /// What the passcode is for.
    public enum Purpose: Sendable, Hashable {
        /// A new store.
        case newStore
        /// A change of the passcode of a store that has one (or its first).
        case change
    }

    /// The policy the passcode must meet; show it before asking.
    public var policy: PasscodePolicy
    /// What the passcode is for.
    public var purpose: Purpose
    /// 1 for the first question, then 2, 3, …
    public var attempt: Int
    /// Why the previous answer was refused (it broke the policy, or the two entries differed).
    public var rejection: (any Error)?

    /// A question for the passcode of `purpose` under `policy`.
    public init(policy: PasscodePolicy, purpose: Purpose, attempt: Int = 1, rejection: (any Error)? = nil) {
        self.policy = policy
        self.purpose = purpose
        self.attempt = attempt
        self.rejection = rejection
    }
}

/// A question for a store's current passcode.
public struct PasscodeRequest: Sendable {
    /// The store.
    public var location: SecureStoreLocation
    /// 1 for the first question, then 2, 3, …
    public var attempt: Int
    /// Why the previous answer was refused (a wrong passcode, with the tries left in its reason).
    public var rejection: (any Error)?

    /// A question for the passcode of the store at `location`.
    public init(location: SecureStoreLocation, attempt: Int = 1, rejection: (any Error)? = nil) {
        self.location = location
        self.attempt = attempt
        self.rejection = rejection
    }
}

/// A question for the credentials a configuration signs in with.
public struct CredentialsRequest: Sendable, Hashable {
    /// The kind of credentials: a user name and password, or an API key.
    public var kind: StoredCredentials.Kind
    /// The server they are for.
    public var host: String
    /// 1 for the first question, then 2, 3, …
    public var attempt: Int
    /// Why the previous answer was refused (the server refused the credentials).
    public var rejection: OnboardingError?

    /// A question for credentials of `kind` for `host`.
    public init(kind: StoredCredentials.Kind, host: String, attempt: Int = 1, rejection: OnboardingError? = nil) {
        self.kind = kind
        self.host = host
        self.attempt = attempt
        self.rejection = rejection
    }
}

/// A sign-in in the browser: the address to open.
public struct BrowserSignInRequest: Sendable, Hashable {
    /// The authorization address (it carries the sign-in's state and PKCE challenge, no secret).
    public var url: String
    /// The authorization server's host, for people.
    public var host: String
    /// Whether a listener on this device takes the redirect (else the address is pasted back).
    public var returnsToListener: Bool

    /// A request to open `url`.
    public init(url: String, host: String, returnsToListener: Bool) {
        self.url = url
        self.host = host
        self.returnsToListener = returnsToListener
    }
}

/// A question for the address the browser ended on (paste-back).
public struct PastedAddressRequest: Sendable, Hashable {
    /// The redirect address the pasted one must start with.
    public var redirectURL: String
    /// 1 for the first question, then 2, 3, …
    public var attempt: Int
    /// Why the previous answer was refused.
    public var rejection: OnboardingError?

    /// A question for an address starting with `redirectURL`.
    public init(redirectURL: String, attempt: Int = 1, rejection: OnboardingError? = nil) {
        self.redirectURL = redirectURL
        self.attempt = attempt
        self.rejection = rejection
    }
}

/// What the user needs for the device grant: a code to enter at an address, maybe on another device.
public struct DeviceCodePrompt: Sendable, Hashable {
    /// The code to enter.
    public var userCode: String
    /// Where to enter it.
    public var verificationURI: String
    /// The address with the code in it, when the server gives one (for a QR code).
    public var verificationURIComplete: String?
    /// The seconds the code is valid for.
    public var expiresIn: Int

    /// A prompt.
    public init(userCode: String, verificationURI: String, verificationURIComplete: String?, expiresIn: Int) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
    }
}

/// Something a step tells the user.
public struct OnboardingNote: Sendable, Hashable, CustomStringConvertible {
    /// How much it matters.
    public enum Kind: Sendable, Hashable {
        /// A step starts (the text names it).
        case progress
        /// What a step did or found.
        case info
        /// What a step could not do, and what applies instead.
        case warning
    }

    /// What a note is about, for a presenter that adds its own advice (an option to give, a
    /// screen to open) to some notes: matched by topic, never by text.
    public struct Topic: Sendable, Hashable {
        /// The topic's stable name.
        public let rawValue: String
        /// A topic named `rawValue`; use reverse-DNS names for an app's own steps.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// No server gave client policies, so SAP's defaults apply.
        public static let defaultClientPolicies = Topic("default-client-policies")
        /// No server was asked for client policies: the configuration names no application id.
        public static let noApplicationID = Topic("no-application-id")
        /// The configuration signs in with credentials, and none were given.
        public static let noCredentials = Topic("no-credentials")
        /// The passcode policy now requires a passcode that the store does not have.
        public static let passcodeRequired = Topic("passcode-required")
        /// The passcode expires soon.
        public static let passcodeExpiring = Topic("passcode-expiring")
        /// The store is blocked or wiped soon without contact with the server.
        public static let serverContactNeeded = Topic("server-contact-needed")
        /// A plaintext configuration of an earlier version is still beside the secure store.
        public static let plaintextBesideStore = Topic("plaintext-beside-store")
        /// The credentials were stored without asking the server whether it accepts them.
        public static let credentialsUnchecked = Topic("credentials-unchecked")
        /// No browser could be started for the sign-in.
        public static let noBrowser = Topic("no-browser")
        /// A session without a display: the browser sign-in may not reach this device.
        public static let headlessSession = Topic("headless-session")
        /// A poll of the device grant (progress), with how often it polls now.
        public static let devicePoll = Topic("device-poll")
        /// The issuer's metadata could not be read or was ignored.
        public static let issuerMetadata = Topic("issuer-metadata")
    }

    /// How much it matters.
    public var kind: Kind
    /// The step that tells it.
    public var step: String
    /// The note, for people.
    public var text: String
    /// What it is about, where a presenter may add advice.
    public var topic: Topic?

    /// A note of `kind` from `step`.
    public init(_ kind: Kind, step: String, _ text: String, topic: Topic? = nil) {
        self.kind = kind
        self.step = step
        self.text = text
        self.topic = topic
    }

    /// The note's text.
    public var description: String { text }
}
