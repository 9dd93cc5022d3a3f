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
            return $0.script.currentPasscodes.isEmpty ? nil : $0.script.currentPasscodes.removeFirst().map(Passcode.init)
        }
    }

    func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials {
        state.withLock {
            $0.asked.append("credentials \(request.host)")
            return $0.script.credentials
        }
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
