// A fresh access token for a program that calls the server, from the sign-in that
// `activate onboard` or `activate login` kept in the secure store: the rules of `activate token`
// (no request while the token has a minute left; a refresh under the store's lock otherwise).
//
//   swift run sample-access-token [store]      (default: the store `activate` uses)
import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import Foundation

let location = CommandLine.arguments.dropFirst().first.map { SecureStoreLocation(path: $0) } ?? SecureStoreLocation()
do {
    // With the key the kernel keyring keeps since the last unlock; pass a Passcode otherwise.
    guard let store = try SecureStore.open(at: location, passcode: nil) else {
        print("nothing is onboarded at \(location.path): run `activate onboard` first")
        exit(0)
    }
    var session = SignInSession(store: store)
    let token = try await session.accessToken(minimumValidity: .seconds(60))
    // Use it as `Authorization: Bearer <token>`; never print or log it.
    let validUntil = token.expiresAt?.formatted(.iso8601) ?? "(no expiry given)"
    print("an access token valid until \(validUntil), \(token.accessToken.count) characters")
} catch let error as OnboardingError where error.code == .signInRequired {
    print("not signed in: \(error.reason) (`activate login` signs in)")
} catch let error as SecureStoreError where error.code == .passcodeRequired {
    print("the store is locked: \(error.reason)")
}
