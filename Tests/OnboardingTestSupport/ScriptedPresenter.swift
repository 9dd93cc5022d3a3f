import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import Foundation
import Synchronization
import TestSupport

/// A presenter that answers from a script, as a test or an unattended app would, and records
/// every question and note.
package final class ScriptedPresenter: OnboardingPresenter {
    package struct Script: Sendable {
        package var confirms = true
        package var newPasscodes: [String?] = []
        package var currentPasscodes: [String?] = []
        package var credentials = StoredCredentials()
        package var providerInput: ProviderInput = [:]
        package var consents: [Bool] = []
        /// Credentials for the second, third, … question (after a refusal); the last repeats.
        package var laterCredentials: [StoredCredentials] = []
        /// The user at the browser: gets the address, signs in (or not), returns whether a browser started.
        package var browser: (@Sendable (BrowserSignInRequest) async -> Bool)?
        /// The address pasted back for each question; `nil`: none.
        package var pastedAddress: (@Sendable (PastedAddressRequest) async -> String?)?
        /// The user at another device: gets the code.
        package var deviceCode: (@Sendable (DeviceCodePrompt) async -> Void)?

        package init(
            confirms: Bool = true, newPasscodes: [String?] = [], currentPasscodes: [String?] = [],
            credentials: StoredCredentials = StoredCredentials(), providerInput: ProviderInput = [:],
            consents: [Bool] = [], laterCredentials: [StoredCredentials] = [],
            browser: (@Sendable (BrowserSignInRequest) async -> Bool)? = nil,
            pastedAddress: (@Sendable (PastedAddressRequest) async -> String?)? = nil,
            deviceCode: (@Sendable (DeviceCodePrompt) async -> Void)? = nil
        ) {
            (self.confirms, self.newPasscodes, self.currentPasscodes, self.credentials) =
                (confirms, newPasscodes, currentPasscodes, credentials)
            (self.providerInput, self.consents, self.laterCredentials) = (providerInput, consents, laterCredentials)
            (self.browser, self.pastedAddress, self.deviceCode) = (browser, pastedAddress, deviceCode)
        }
    }

    private let state: Mutex<(script: Script, asked: [String], notes: [OnboardingNote])>

    package init(_ script: Script = Script()) {
        state = Mutex((script, [], []))
    }

    /// The questions asked, in order: `confirm host`, `new passcode 1`, `passcode 2`, …
    package var asked: [String] { state.withLock { $0.asked } }
    /// Every note shown, progress included.
    package var notes: [OnboardingNote] { state.withLock { $0.notes } }

    package func present(_ summary: ConfigurationSummary, confirming: Bool) async -> Bool {
        state.withLock {
            $0.asked.append("\(confirming ? "confirm" : "show") \(summary.host)")
            return $0.script.confirms
        }
    }

    package func providerInput(for keys: [ProviderInputKey]) async -> ProviderInput {
        state.withLock {
            $0.asked.append("input \(keys.map(\.rawValue).joined(separator: ","))")
            return $0.script.providerInput
        }
    }

    package func newPasscode(_ request: NewPasscodeRequest) async throws -> Passcode? {
        state.withLock {
            $0.asked.append("new passcode \(request.attempt)")
            return $0.script.newPasscodes.isEmpty ? nil : $0.script.newPasscodes.removeFirst().map(Passcode.init)
        }
    }

    package func currentPasscode(_ request: PasscodeRequest) async throws -> Passcode? {
        state.withLock {
            $0.asked.append("passcode \(request.attempt)")
            return $0.script.currentPasscodes.isEmpty
                ? nil : $0.script.currentPasscodes.removeFirst().map(Passcode.init)
        }
    }

    package func credentials(_ request: CredentialsRequest) async throws -> StoredCredentials {
        state.withLock {
            $0.asked.append("credentials \(request.host) \(request.attempt)")
            guard request.attempt > 1, !$0.script.laterCredentials.isEmpty else { return $0.script.credentials }
            return $0.script.laterCredentials[min(request.attempt - 2, $0.script.laterCredentials.count - 1)]
        }
    }

    package func openBrowser(_ request: BrowserSignInRequest) async -> Bool {
        let browser = state.withLock {
            $0.asked.append("browser \(request.host)")
            return $0.script.browser
        }
        return await browser?(request) ?? false
    }

    package func redirectedAddress(_ request: PastedAddressRequest) async throws -> String? {
        let paste = state.withLock {
            $0.asked.append("pasted address \(request.attempt)")
            return $0.script.pastedAddress
        }
        return await paste?(request)
    }

    package func showDeviceCode(_ prompt: DeviceCodePrompt) async {
        let device = state.withLock {
            $0.asked.append("device code")
            return $0.script.deviceCode
        }
        await device?(prompt)
    }

    package func consent(_ request: ConsentRequest) async -> Bool {
        state.withLock {
            $0.asked.append("consent")
            return $0.script.consents.isEmpty ? false : $0.script.consents.removeFirst()
        }
    }

    package func show(_ note: OnboardingNote) {
        state.withLock { $0.notes.append(note) }
    }
}

/// A fresh folder for one test's store, removed afterwards (the store locked first).
package final class StoreFolder: Sendable {
    package let folder: TemporaryFolder
    package let location: SecureStoreLocation
    package var path: String { folder.path }

    package init() throws {
        folder = try TemporaryFolder(prefix: "activate-onboarding")
        location = SecureStoreLocation(path: "\(folder.path)/store.age")
    }

    deinit { SecureStore.lock(at: location) }
}
