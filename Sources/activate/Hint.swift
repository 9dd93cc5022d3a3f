import ActivationConfiguration
import ActivationOnboarding

/// What a person can do about an error: the command line's own advice (options, commands), kept
/// out of the library, whose errors say only what went wrong. Matched by code, never by text.
enum Hint {
    /// The advice for `error`, if the command line has one.
    static func text(for error: ConfigurationError) -> String? {
        switch error.code {
        case .fileExists:
            "pass --force to replace it"
        case .storeDamaged:
            "run `activate reset` to remove it"
        case .passcodeRequired:
            "give it with --passcode-fd N or --passcode-file FILE, or run the command on a terminal"
        case .passcodeExpired:
            "change it first with `activate passcode change`"
        case .storeWiped:
            "run `activate onboard` to start again"
        case .storeBlocked:
            "run `activate restore --refresh` where the server can be reached, or ask your administrator"
        case .unknownKey:
            "give the trust list (--trust-list) or the public key (--public-key) that verifies it"
        case .passcodeRefused:
            "--allow-passcode encodes it anyway, in a code that expires soon (--expires 10m)"
        case .invalidKey:
            """
            --sign takes a private key (`activate keys create` makes one); --public-key and trust lists take public \
            keys (`activate keys public KEY.pem`)
            """
        default:
            nil
        }
    }

    /// The advice for an onboarding error, if the command line has one.
    static func text(for error: OnboardingError) -> String? {
        switch error.code {
        case .notOnboarded: "run `activate onboard`"
        case .alreadyOnboarded: "pass --force to replace it, or run `activate reset` first"
        case .signInRequired, .signInFailed:
            "sign in with `activate login` (--device signs in with a code on another device)"
        case .credentialsRefused: "check them, or sign in again with `activate login`"
        default: nil
        }
    }

    /// A note from an onboarding step with the command line's advice after it, matched by topic.
    static func text(for note: OnboardingNote) -> String {
        let advice: String? =
            switch note.topic {
            case .defaultClientPolicies?: "--policy FILE gives others"
            case .noApplicationID?: "give --app-id"
            case .noCredentials?: "give them with --credentials-file FILE to keep them in the store"
            case .passcodeRequired?: "set one with `activate passcode change`"
            case .passcodeExpiring?: "change it with `activate passcode change`"
            case .serverContactNeeded?: "run `activate restore --refresh` where the server can be reached"
            case .plaintextBesideStore?: "`activate reset` removes both"
            case .credentialsUnchecked?: "`activate login` checks them once the server can be reached"
            case .noBrowser?: "--no-browser asks for the address the browser ends on instead"
            default: nil
            }
        guard let advice else { return note.text }
        return note.text.hasSuffix(".") ? "\(note.text.dropLast()) (\(advice))." : "\(note.text); \(advice)"
    }

    /// The error's reason with the advice after it: `reason; advice`. A reason of several lines
    /// (one per cause) is left as it is.
    static func reason(_ error: ConfigurationError) -> String {
        guard let hint = text(for: error), !error.reason.contains("\n") else { return error.reason }
        return "\(error.reason); \(hint)"
    }
}
