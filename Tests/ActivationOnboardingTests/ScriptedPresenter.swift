import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import Foundation
import Synchronization
import TestSupport

/// A presenter that answers from a script, as a test or an unattended app would, and records
/// every question and note.
final class ScriptedPresenter: OnboardingPresenter {
    struct Script: Sendable {
        var confirms = true
        var newPasscodes: [String?] = []
        var currentPasscodes: [String?] = []
        var credentials = StoredCredentials()
        var providerInput: ProviderInput = [:]
        var consents: [Bool] = []
        /// Credentials for the second, third, … question (after a refusal); the last repeats.
        var laterCredentials: [StoredCredentials] = []
        /// The user at the browser: gets the address, signs in (or not), returns whether a browser started.
        var browser: (@Sendable (BrowserSignInRequest) async -> Bool)?
        /// The address pasted back for each question; `nil`: none.
        var pastedAddress: (@Sendable (PastedAddressRequest) async -> String?)?
        /// The user at another device: gets the code.
        var deviceCode: (@Sendable (DeviceCodePrompt) async -> Void)?
    }

    private let state: Mutex<(script: Script, asked: [String], notes: [OnboardingNote])>

    init(_ script: Script = Script()) {
        state = Mutex((script, [], []))
    }

    /// The questions asked, in order: `confirm host`, `new passcode 1`, `passcode 2`, …
    var asked: [String] { state.withLock { $0.asked } }
    /// Every note shown, progress included.
    var notes: [OnboardingNote] { state.withLock { $0.notes } }

    func present(_ summary: ConfigurationSummary, confirming: Bool) async -> Bool {
        state.withLock {
            $0.asked.append("\(confirming ? "confirm" : "show") \(summary.host)")
            return $0.script.confirms
        }
    }

    func providerInput(for keys: [ProviderInputKey]) async -> ProviderInput {
        state.withLock {
            $0.asked.append("input \(keys.map(\.rawValue).joined(separator: ","))")
            return $0.script.providerInput
        }
    }

    func newPasscode(_ request: NewPasscodeRequest) async throws -> Passcode? {
        state.withLock {
            $0.asked.append("new passcode \(request.attempt)")
            return $0.script.newPasscodes.isEmpty ? nil : $0.script.newPasscodes.removeFirst().map(Passcode.init)
        }
    }

    func currentPasscode(_ request: PasscodeRequest) async throws -> Passcode? {
        state.withLock {
            $0.asked.append("passcode \(request.attempt)")
            return $0.script.currentPasscodes.isEmpty
                ? nil : $0.script.currentPasscodes.removeFirst().map(Passcode.init)
        }
    }

    func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials {
        state.withLock {
            $0.asked.append("credentials \(request.host) \(request.attempt)")
            guard request.attempt > 1, !$0.script.laterCredentials.isEmpty else { return $0.script.credentials }
            return $0.script.laterCredentials[min(request.attempt - 2, $0.script.laterCredentials.count - 1)]
        }
    }

    func openBrowser(_ request: BrowserSignInRequest) async -> Bool {
        let browser = state.withLock {
            $0.asked.append("browser \(request.host)")
            return $0.script.browser
        }
        return await browser?(request) ?? false
    }

    func redirectedAddress(_ request: PastedAddressRequest) async throws -> String? {
        let paste = state.withLock {
            $0.asked.append("pasted address \(request.attempt)")
            return $0.script.pastedAddress
        }
        return await paste?(request)
    }

    func showDeviceCode(_ prompt: DeviceCodePrompt) async {
        let device = state.withLock {
            $0.asked.append("device code")
            return $0.script.deviceCode
        }
        await device?(prompt)
    }

    func consent(_ request: ConsentRequest) async -> Bool {
        state.withLock {
            $0.asked.append("consent")
            return $0.script.consents.isEmpty ? false : $0.script.consents.removeFirst()
        }
    }

    func show(_ note: OnboardingNote) {
        state.withLock { $0.notes.append(note) }
    }
}

/// A fresh folder for one test's store, removed afterwards (the store locked first).
final class StoreFolder: Sendable {
    let folder: TemporaryFolder
    let location: SecureStoreLocation
    var path: String { folder.path }

    init() throws {
        folder = try TemporaryFolder(prefix: "activate-onboarding")
        location = SecureStoreLocation(path: "\(folder.path)/store.age")
    }

    deinit { SecureStore.lock(at: location) }
}
