import ActivationConfiguration

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
            "--sign takes a private key (`activate keys create` makes one); --public-key and trust lists take public keys (`activate keys public KEY.pem`)"
        default:
            nil
        }
    }

    /// The error's reason with the advice after it: `reason; advice`. A reason of several lines
    /// (one per cause) is left as it is.
    static func reason(_ error: ConfigurationError) -> String {
        guard let hint = text(for: error), !error.reason.contains("\n") else { return error.reason }
        return "\(error.reason); \(hint)"
    }
}
