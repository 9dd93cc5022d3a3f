import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser
import Foundation

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the access token of the stored sign-in, refreshed when it expires soon.",
        discussion: """
            Prints the OAuth 2.0 access token and a newline on stdout, and nothing else, for scripts and tools that \
            call the server:
              curl -H "Authorization: Bearer $(activate token)" https://mobile.example.com/...
            A token with at least --min-valid seconds left (default 60) comes from the store without any request. \
            Otherwise it is refreshed first with the stored refresh token; parallel calls on one store take turns (a \
            lock beside the store), so a refresh token the server lets be used once is never spent twice, and a \
            rotated refresh token is in the store before the new access token is printed. --json prints access_token, \
            token_type, expires_at (RFC 3339, UTC), expires_in and scope instead.

            The store opens as restore opens it: with the key the kernel keyring keeps since the last unlock, else \
            with --passcode-fd N or --passcode-file FILE, else with the passcode asked on the terminal. Without a \
            terminal nothing is asked.

            Exit codes: 0 printed; 7 not signed in, or the server refused the refresh (sign in with `activate login`); \
            8 the store is locked and no passcode was given, with no terminal to ask on; 3 nothing is onboarded; 1 the \
            server could not be reached, or the store cannot be read or written; 2 a wrong passcode. On every failure \
            stdout stays empty.
            """
    )

    @Option(
        name: .customLong("min-valid"),
        help: ArgumentHelp("Refresh when the token has fewer seconds left than this.", valueName: "seconds"))
    var minValid = 60
    @Flag(help: "Print the token and its expiry as JSON.") var json = false
    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
    @OptionGroup(title: "Security policy") var insecure: InsecureTestServerOption

    func validate() throws {
        guard (0...86_400).contains(minValid) else { throw ValidationError("--min-valid takes 0 to 86400 seconds") }
    }

    /// What `--json` prints.
    // The names of an OAuth 2.0 token response (RFC 6749, section 5.1), which scripts know.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    struct Output: Encodable {
        var access_token: String
        var token_type: String
        var expires_at: String?
        var expires_in: Int?
        var scope: String?
    }

    func run() async throws {
        let store = try await StoreOptions.open(storeOptions.location, passcode: passcode.source)
        var session = SignInSession(store: store, policy: insecure.policy)
        let token = try await session.accessToken(minimumValidity: .seconds(minValid))
        if json {
            let expiresIn = token.expiresAt.map { max(0, Int($0.timeIntervalSinceNow.rounded(.down))) }
            Console.raw(
                JSONOutput.encode(
                    Output(
                        access_token: token.accessToken, token_type: token.tokenType,
                        expires_at: token.expiresAt?.formatted(.iso8601), expires_in: expiresIn, scope: token.scope))
                    + "\n")
        } else {
            Console.raw(token.accessToken + "\n")
        }
    }
}
