// What an app does with the secure store that `activate onboard` made: open it with the user's
// passcode, read the configuration and the credentials, keep a value of its own.
//
//   swift run sample-secure-store [STORE]        (the passcode on standard input)
//
// Without STORE it first onboards into a temporary folder, as `activate onboard` does, from
// SampleCodes/basic-configuration.json and without asking anything, so that it runs anywhere.
import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import Foundation

/// A value of the app's own, kept encrypted beside the configuration.
struct Preferences: Codable, Equatable {
    var theme: String
    var lastSync: Date
}

var arguments = CommandLine.arguments.dropFirst()
let location: SecureStoreLocation
var passcode: Passcode
var temporary: String?
if let path = arguments.popFirst() {
    location = SecureStoreLocation(path: path)
    passcode = Passcode(readLine(strippingNewline: true) ?? "")
} else {
    let folder = NSTemporaryDirectory() + "sample-secure-store-\(UUID().uuidString)"
    temporary = folder
    location = SecureStoreLocation(path: "\(folder)/store.age")
    passcode = Passcode("Sample-passcode-1")
    let policy = SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts)
    let flow = OnboardingFlow.standard(
        configuration: ConfigurationStep(
            providers: [
                FileConfigurationProvider(
                    path: "SampleCodes/basic-configuration.json",
                    recognizer: PayloadRecognizer(policy: policy))
            ],
            policy: policy),
        settings: SettingsDownloadStep(source: .defaults, fetcher: SettingsExchangeFetcher()),
        store: StoreManagerStep(workFactor: 12, usesKeyring: false))
    let answers = UnattendedPresenter(
        passcode: passcode, credentials: StoredCredentials(user: "alice", password: "pa55-word"))
    if let failure = await flow.onboard(OnboardingContext(location: location, presenter: answers)).failure {
        print("onboarding failed in \(failure.step): \(failure.error)")
        exit(1)
    }
}
defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }

do {
    // Opens with the key the keyring keeps from a recent unlock, else with the passcode; a wrong
    // passcode is counted, and the error says how many tries are left.
    guard var store = try SecureStore.open(at: location, passcode: passcode) else {
        print("nothing is onboarded at \(location.path)")
        exit(3)
    }
    guard let configuration = store.contents.configuration else {
        print("the store holds no configuration")
        exit(3)
    }
    print("server: \(configuration.document.baseURL)")
    // The credentials print as `user alice, password (set)`: never the secret itself.
    print("credentials: \(store.contents.credentials)")
    if let password = store.contents.credentials.password {
        print("signing in with a password of \(password.count) characters")
    }

    let preferences = Preferences(theme: "dark", lastSync: Date(timeIntervalSince1970: 1_800_000_000))
    try store.setValue(preferences, forKey: "com.example.app.preferences")
    try store.save()

    let reopened = try SecureStore.open(at: location, passcode: passcode)
    let read = try reopened?.value(Preferences.self, forKey: "com.example.app.preferences")
    print("stored and read back: \(read == preferences ? "the same preferences" : "something else")")
    guard read == preferences else { exit(1) }
    SecureStore.lock(at: location)
} catch let error as SecureStoreError {
    // `wrong-passcode`, `passcode-expired`, `store-wiped`, … (SecureStoreError.Code)
    print("cannot open the store: \(error.reason)")
    exit(2)
} catch let error as ConfigurationError {
    // A file that cannot be read or written (`file-unreadable`, …).
    print("cannot use the store's files: \(error.reason)")
    exit(1)
}
