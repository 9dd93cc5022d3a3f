import ActivationConfiguration
import ActivationOnboarding

/// What a person can do about an onboarding note: the command line's own advice (options,
/// commands), kept out of the library, whose notes say only what happened. Matched by topic,
/// never by text. Errors get theirs from ``ErrorReport``.
enum Hint {
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
}
