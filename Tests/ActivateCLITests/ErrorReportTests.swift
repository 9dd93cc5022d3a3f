import ActivationConfiguration
import ActivationDiscovery
import ActivationDiscoveryProtocol
import ActivationDiscoveryServer
import ActivationImaging
import ActivationOnboarding
import ActivationSecureStore
import Testing

@testable import activate

/// The one place errors become exit statuses and advice: each library's codes against the
/// documented table (docs/command-line.md), and advice only where the command line has some.
@Suite("Error reports: every library's errors, their exit status and advice")
struct ErrorReportTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var error: any Error & Sendable
        var status: Int32
        var advice: String?
        /// The whole message, where it is not the error's reason.
        var message: String?
        var testDescription: String { "\(error)" }
    }

    static let rows: [Row] = [
        Row(error: ConfigurationError(.fileNotFound, source: "c.json", "no such file"), status: 1),
        Row(error: ConfigurationError(.inputTooLarge, source: "c.json", "over 256 KiB"), status: 2),
        Row(error: ConfigurationError(.fileExists, source: "out.png", "exists"), status: 1, advice: "--force"),
        Row(error: ConfigurationError(.insecureURL, source: "c.json", "not https"), status: 2),
        Row(error: ConfigurationError(.unknownKey, source: "code", "unknown key"), status: 2, advice: "--trust-list"),
        Row(error: ConfigurationError(.invalidKey, source: "k.pem", "no key"), status: 2, advice: "--sign"),
        Row(error: SecureStoreError(.wrongPasscode, source: "s.age", "wrong passcode"), status: 2),
        Row(
            error: SecureStoreError(.passcodeExpired, source: "s.age", "expired"), status: 2, advice: "passcode change"),
        Row(error: SecureStoreError(.passcodeRequired, source: "s.age", "locked"), status: 8, advice: "--passcode-fd"),
        Row(error: SecureStoreError(.storeWiped, source: "s.age", "deleted"), status: 6, advice: "onboard"),
        Row(error: SecureStoreError(.storeBlocked, source: "s.age", "blocked"), status: 6, advice: "--refresh"),
        Row(error: SecureStoreError(.storeDamaged, source: "s.age", "damaged"), status: 1, advice: "reset"),
        Row(error: SecureStoreError(.notAStore, source: "notes.txt", "no store"), status: 1),
        Row(error: OnboardingError(.declined, "declined"), status: 5, message: "not stored"),
        Row(error: OnboardingError(.notOnboarded, "nothing"), status: 3, advice: "activate onboard"),
        Row(error: OnboardingError(.signInRequired, "not signed in"), status: 7, advice: "activate login"),
        Row(error: OnboardingError(.serverUnavailable, "unreachable"), status: 1),
        Row(error: ImagingError(.corruptImage, source: "a.png", "cut short"), status: 1),
        Row(error: DiscoveryClientError(.unreachable, source: "https://d.example.com", "refused"), status: 1),
        Row(
            error: DiscoveryClientError(.unauthorized, source: "https://d.example.com", "refused"), status: 2,
            advice: "--token-file"),
        Row(
            error: DiscoveryClientError(.refused, refusal: .invalidDocument, "bad document"), status: 2),
        Row(error: DiscoveryServiceError(.databaseUnavailable, source: "postgres://db", "down"), status: 1),
        Row(error: DiscoveryServiceError(.invalidDatabaseURL, source: "x", "no"), status: 2, advice: "--database"),
        Row(error: DiscoveryServiceError(.invalidTokenFile, source: "tokens", "none"), status: 2),
    ]

    @Test("each error's exit status, and the command line's advice after the library's reason", arguments: rows)
    func report(_ row: Row) throws {
        let report = try #require(ErrorReport(row.error))
        #expect(report.status == row.status)
        if let message = row.message {
            #expect(report.message == message)
            return
        }
        let reason = "\(row.error)"
        #expect(report.message.hasPrefix(reason), "\(report.message)")
        if let advice = row.advice {
            #expect(report.message.dropFirst(reason.count).hasPrefix("; "), "\(report.message)")
            #expect(report.message.contains(advice), "\(report.message)")
        } else {
            #expect(report.message == reason)
        }
    }

    @Test("a flow's failure: in onboarding every configuration error is a rejection; elsewhere, by code")
    func stepFailures() throws {
        let missing = ConfigurationError(.fileNotFound, source: "c.json", "no such file")
        let failure = StepFailure(step: ConfigurationStep.stepName, error: missing)
        #expect(ErrorReport(failure)?.status == 1)
        #expect(ErrorReport(failure, judgement: .configurationRejected)?.status == 2)
        let store = StepFailure(step: "StoreManagerStep", error: SecureStoreError(.storeWiped, "deleted"))
        #expect(ErrorReport(store, judgement: .configurationRejected)?.status == 6)
    }

    @Test("a reason of several lines gets no advice; an error of no library is ArgumentParser's")
    func linesAndOthers() {
        let lines = ConfigurationError(.fileExists, lines: ["no source gave a configuration", "  file: exists"])
        #expect(ErrorReport(lines)?.message == lines.reason)
        #expect(ErrorReport(CancellationError()) == nil)
    }
}
