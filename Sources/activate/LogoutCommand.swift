import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import ArgumentParser

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the stored sign-in at the server and delete its tokens.",
        discussion: """
            Revokes the refresh token where a revocation endpoint is known (oauth2.revocationEndpoint, or the issuer's \
            metadata), then deletes the tokens from the secure store. A revocation that fails is reported, and the \
            tokens are deleted all the same. Credentials of basic or API-key sign-in are deleted too. The \
            configuration stays: `activate login` signs in again; `activate reset` removes everything.

            Exit codes: 0 signed out (also when the revocation failed: stderr says why); 8 the store is locked and no \
            passcode was given, with no terminal to ask on; 3 nothing is onboarded; 1 the store cannot be read or \
            written.
            """
    )

    @OptionGroup(title: "The secure store") var storeOptions: StoreOptions
    @OptionGroup(title: "The secure store") var passcode: PasscodeOptions
    @OptionGroup(title: "Security policy") var insecure: InsecureTestServerOption
    @OptionGroup var quietOption: QuietOption

    func run() async throws {
        let store = try await StoreOptions.open(storeOptions.location, passcode: passcode.source)
        var session = SignInSession(store: store, policy: insecure.policy)
        let result = try await session.signOut()
        var latest = session.store
        if !latest.contents.credentials.isEmpty {
            latest.contents.credentials = StoredCredentials()
            latest.contents.credentialsCheckedAt = nil
            try latest.save()
            Console.note("the stored credentials were deleted")
        }
        if result.wasSignedIn {
            if let problem = result.revocationProblem {
                Console.report(
                    "the sign-in was not revoked at the server: \(problem); its tokens were deleted all the same")
            } else {
                Console.note("signed out: the server revoked the sign-in, and its tokens were deleted")
            }
        } else if latest.contents.credentials.isEmpty {
            Console.note("not signed in: nothing to do")
        }
    }
}
