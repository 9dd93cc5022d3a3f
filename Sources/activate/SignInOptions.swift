import ActivationConfiguration
import ActivationOnboarding
import ArgumentParser

/// How `onboard` and `login` sign in with OAuth 2.0: the browser (the default), a pasted address
/// (--no-browser), or a code on another device (--device).
struct SignInOptions: ParsableArguments {
    @Flag(help: "Sign in with a code entered on another device (OAuth 2.0 device grant).") var device = false
    @Flag(
        name: .customLong("no-browser"),
        help: "Start no browser: open the address shown yourself, then paste the address the browser ends on.")
    var noBrowser = false
    @Option(help: ArgumentHelp("How long to wait for the browser sign-in, in seconds.", valueName: "seconds"))
    var timeout = 180

    func validate() throws {
        if device && noBrowser { throw ValidationError("--device and --no-browser are two ways to sign in: give one") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout takes 1 to 3600 seconds") }
    }

    /// The sign-in step for these options under `policy`.
    func step(policy: SecurityPolicy) -> OAuth2SignInStep {
        OAuth2SignInStep(
            flow: device ? .device : noBrowser ? .pastedAddress : .automatic, policy: policy, timeout: .seconds(timeout)
        )
    }
}

/// `--allow-http` for the commands that talk to the sign-in's servers without checking a
/// configuration (`token`, `logout`).
struct InsecureTestServerOption: ParsableArguments {
    @Flag(name: .customLong("allow-http"), help: "Accept http to a loopback server (test servers only).")
    var allowHTTP = false

    var policy: SecurityPolicy { SecurityPolicy(allowHTTP: allowHTTP) }
}
