// Onboarding as an app composes it: the predefined steps and one step of the app's own, run to
// onboard, restore after a restart, sync and reset, printing what each step did.
//
//   swift run sample-onboarding-flow        (a temporary store; nothing is asked)
import ActivationConfiguration
import ActivationOnboarding
import ActivationSecureStore
import Foundation

/// The app's own step: it keeps the tenant it works for in the store on onboarding, and takes it
/// back from there on every later start.
struct TenantStep: OnboardingStep {
    static let tenant = InfoKey<String>("com.example.fieldservice.tenant")
    static let key = "com.example.fieldservice.tenant"

    func onboard(_ context: inout OnboardingContext) async throws {
        try context.keep("acme-field-team", forKey: Self.key)
        context[Self.tenant] = "acme-field-team"
    }

    func restore(_ context: inout OnboardingContext) async throws {
        guard let tenant = try context.kept(String.self, forKey: Self.key) else {
            throw OnboardingError(.notOnboarded, "no tenant was kept")
        }
        context[Self.tenant] = tenant
    }
}

/// Client policies from a file the app ships, where a real app asks its server
/// (`SettingsExchangeFetcher`): this sample runs without a network.
struct ShippedPolicies: ClientPoliciesFetcher {
    let path: String

    func fetch(_ request: ClientPoliciesRequest) async throws -> (policies: ClientPolicies, url: String) {
        (try ClientPolicies(json: try FileIO.read(path, limit: ClientPolicies.maxDocumentBytes), source: path), path)
    }
}

let folder = NSTemporaryDirectory() + "sample-onboarding-flow-\(UUID().uuidString)"
defer { try? FileManager.default.removeItem(atPath: folder) }
let location = SecureStoreLocation(path: "\(folder)/store.age")

let policy = SecurityPolicy(allowedHosts: SecurityPolicy.sapCloudHosts)
let flow = OnboardingFlow.standard(
    configuration: ConfigurationStep(
        providers: [
            FileConfigurationProvider(
                path: "SampleCodes/basic-configuration.json",
                recognizer: PayloadRecognizer(policy: policy))
        ],
        policy: policy),
    settings: SettingsDownloadStep(
        source: .servers(discovery: nil), fetcher: ShippedPolicies(path: "SampleCodes/client-policies.json")),
    store: StoreManagerStep(workFactor: 12, usesKeyring: false),
    appSteps: [TenantStep()])

// Nobody is asked: the answers are given up front, and every note is printed.
let presenter = UnattendedPresenter(
    passcode: Passcode("Sample-passcode-1"), credentials: StoredCredentials(user: "alice", password: "pa55-word"),
    consents: true, notes: { note in if note.kind != .progress { print("  [\(note.step)] \(note.text)") } })

func show(_ result: OnboardingResult) -> OnboardingContext? {
    print("\(result.kind.rawValue): \(result.completed.joined(separator: ", "))")
    if let failure = result.failure {
        print("  failed in \(failure.step): \(failure.error)")
        return nil
    }
    return result.context
}

guard let onboarded = show(await flow.onboard(OnboardingContext(location: location, presenter: presenter))) else {
    exit(1)
}
print("  tenant \(onboarded[TenantStep.tenant] ?? "none"), store \(onboarded.store?.location.path ?? "none")")

// The next start: a new context, nothing in memory; the store's step runs first.
guard let restored = show(await flow.restore(OnboardingContext(location: location, presenter: presenter))) else {
    exit(1)
}
let server = restored[.activationReport]?.payload.document?.baseURL ?? "none"
let tenant = restored[TenantStep.tenant] ?? "none"
print("  server \(server), tenant \(tenant), offline-edit allowed: \(restored.allows(feature: "offline-edit"))")

guard let synced = show(await flow.sync(restored)) else { exit(1) }
print("  last server contact \(synced.contents.lastServerContact.map { $0.formatted(.iso8601) } ?? "never")")

let reset = await flow.reset(synced)
_ = show(reset)
print("  store still there: \(FileManager.default.fileExists(atPath: location.path))")
guard reset.succeeded, !FileManager.default.fileExists(atPath: location.path) else { exit(1) }
