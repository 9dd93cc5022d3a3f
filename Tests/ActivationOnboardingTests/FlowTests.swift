import ActivationConfiguration
import ActivationSecureStore
import Foundation
import OnboardingTestSupport
import Synchronization
import Testing

@testable import ActivationOnboarding

/// A step that records each call in a shared journal, and fails where told.
struct RecordingStep: OnboardingStep {
    let name: String
    var opensStore = false
    var failsIn: Set<OnboardingFlow.Kind> = []
    let journal: Journal

    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    func record(_ kind: OnboardingFlow.Kind) throws {
        journal.add("\(kind.rawValue) \(name)")
        if failsIn.contains(kind) { throw OnboardingError(.forbidden, "\(name) fails in \(kind.rawValue)") }
    }

    func onboard(_ context: inout OnboardingContext) async throws { try record(.onboard) }
    func restore(_ context: inout OnboardingContext) async throws { try record(.restore) }
    func sync(_ context: inout OnboardingContext) async throws { try record(.sync) }
    func reset(_ context: inout OnboardingContext) async throws { try record(.reset) }
}

/// A custom step as an app writes one: it keeps a value of its own in the store on onboarding
/// and takes it back on restore.
struct TenantStep: OnboardingStep {
    static let key = "com.example.tenant"
    static let tenant = InfoKey<String>("com.example.tenant")
    var tenant = "acme"

    func onboard(_ context: inout OnboardingContext) async throws {
        try context.keep(tenant, forKey: Self.key)
        context[Self.tenant] = tenant
    }

    func restore(_ context: inout OnboardingContext) async throws {
        guard let kept = try context.kept(String.self, forKey: Self.key) else {
            throw OnboardingError(.notOnboarded, "no tenant was kept")
        }
        context[Self.tenant] = kept
    }
}

@Suite("Onboarding flows: step order, failures, reset of every step, a custom step across restarts")
struct FlowTests {
    static let passcode = "Tr0ub4dor&3"

    func steps(_ journal: RecordingStep.Journal, failing: String? = nil, in kind: OnboardingFlow.Kind? = nil)
        -> [any OnboardingStep]
    {
        ["configuration", "credentials", "settings", "store", "usage"].map { name in
            RecordingStep(
                name: name, opensStore: name == "store", failsIn: name == failing ? Set([kind].compactMap { $0 }) : [],
                journal: journal)
        }
    }

    @Test(
        "each flow runs the steps in its order: restore opens the store first, reset goes backwards",
        arguments: [
            (OnboardingFlow.Kind.onboard, ["configuration", "credentials", "settings", "store", "usage"]),
            (.restore, ["store", "configuration", "credentials", "settings", "usage"]),
            (.sync, ["configuration", "credentials", "settings", "store", "usage"]),
            (.reset, ["usage", "store", "settings", "credentials", "configuration"]),
        ])
    func order(kind: OnboardingFlow.Kind, expected: [String]) async throws {
        let journal = RecordingStep.Journal()
        let flow = OnboardingFlow(steps: steps(journal))
        #expect(flow.order(for: kind).map(\.name) == expected)
        let folder = try StoreFolder()
        var context = OnboardingContext(location: folder.location, presenter: ScriptedPresenter())
        if kind == .sync {
            // Sync needs a restored context: a real store, opened.
            context.store = try SecureStore.create(
                at: folder.location, contents: SecureStoreContents(), passcode: Passcode(Self.passcode), workFactor: 4)
        }
        let result =
            switch kind {
            case .onboard: await flow.onboard(context)
            case .restore: await flow.restore(context)
            case .sync: await flow.sync(context)
            case .reset: await flow.reset(context)
            }
        #expect(result.succeeded)
        #expect(result.completed == expected)
        #expect(journal.all == expected.map { "\(kind.rawValue) \($0)" })
    }

    @Test(
        "a failing step stops onboard, restore and sync, and the result names it",
        arguments: [OnboardingFlow.Kind.onboard, .restore, .sync])
    func failureStops(kind: OnboardingFlow.Kind) async throws {
        let journal = RecordingStep.Journal()
        let flow = OnboardingFlow(steps: steps(journal, failing: "settings", in: kind))
        let folder = try StoreFolder()
        var context = OnboardingContext(location: folder.location, presenter: ScriptedPresenter())
        context.store = try SecureStore.create(
            at: folder.location, contents: SecureStoreContents(), passcode: Passcode(Self.passcode), workFactor: 4)
        let result =
            switch kind {
            case .restore: await flow.restore(context)
            case .sync: await flow.sync(context)
            default: await flow.onboard(context)
            }
        #expect(!result.succeeded)
        #expect(result.failure?.step == "settings")
        #expect((result.failure?.error as? OnboardingError)?.reason == "settings fails in \(kind.rawValue)")
        #expect(!journal.all.contains { $0.hasSuffix(" usage") }, "nothing runs after the failing step")
        #expect(throws: OnboardingError.self) { try result.get() }
    }

    @Test("reset runs every step, backwards, even after some fail, and names each failure")
    func resetRunsAll() async throws {
        let journal = RecordingStep.Journal()
        var steps = steps(journal)
        steps[3] = RecordingStep(name: "store", opensStore: true, failsIn: [.reset], journal: journal)
        steps[0] = RecordingStep(name: "configuration", failsIn: [.reset], journal: journal)
        let result = await OnboardingFlow(steps: steps).reset(OnboardingContext(presenter: ScriptedPresenter()))
        #expect(journal.all == ["usage", "store", "settings", "credentials", "configuration"].map { "reset \($0)" })
        #expect(result.failures.map(\.step) == ["store", "configuration"])
        #expect(result.completed == ["usage", "settings", "credentials"])
    }

    @Test("sync without a restored store fails before any step runs")
    func syncNeedsRestore() async {
        let journal = RecordingStep.Journal()
        let result = await OnboardingFlow(steps: steps(journal)).sync(OnboardingContext(presenter: ScriptedPresenter()))
        #expect((result.failure?.error as? OnboardingError)?.code == .notOnboarded)
        #expect(journal.all.isEmpty)
    }

    @Test(
        "a custom step's value is kept in the store and restored after a restart of the flow; reset removes the store")
    func customStepAcrossRestarts() async throws {
        let folder = try StoreFolder()
        let flow = OnboardingFlow(steps: [StoreManagerStep(workFactor: 4, usesKeyring: false), TenantStep()])
        let onboarding = ScriptedPresenter(.init(newPasscodes: ["short", Self.passcode]))
        let onboarded = await flow.onboard(OnboardingContext(location: folder.location, presenter: onboarding))
        #expect(onboarded.succeeded, "\(String(describing: onboarded.failure))")
        #expect(
            onboarding.asked == ["new passcode 1", "new passcode 2"],
            "the passcode that breaks the policy is asked again")
        #expect(FileManager.default.fileExists(atPath: folder.location.path))

        // A new process: a new context, nothing in memory; the store step runs first, with a wrong passcode once.
        let restoring = ScriptedPresenter(.init(currentPasscodes: ["wrong passcode", Self.passcode]))
        let restored = await flow.restore(OnboardingContext(location: folder.location, presenter: restoring))
        #expect(restored.succeeded, "\(String(describing: restored.failure))")
        #expect(restored.context[TenantStep.tenant] == "acme")
        #expect(restoring.asked == ["passcode 1", "passcode 2"])
        #expect(restored.completed == ["StoreManagerStep", "TenantStep"])

        // Sync on the restored context changes the kept value in the file at once.
        var synced = restored.context
        try synced.keep("globex", forKey: TenantStep.key)
        let reopened = try #require(
            try SecureStore.open(
                at: folder.location, passcode: Passcode(Self.passcode), options: .init(useKeyring: false)))
        #expect(try reopened.value(String.self, forKey: TenantStep.key) == "globex")

        let reset = await flow.reset(restored.context)
        #expect(reset.succeeded)
        #expect(!FileManager.default.fileExists(atPath: folder.location.path))
        let again = await flow.restore(OnboardingContext(location: folder.location, presenter: ScriptedPresenter()))
        #expect((again.failure?.error as? OnboardingError)?.code == .notOnboarded)
        #expect(again.failure?.step == "StoreManagerStep")
    }

    @Test("onboarding over an existing store is refused unless replacing; no passcode given is no answer")
    func storeRefusals() async throws {
        let folder = try StoreFolder()
        let first = await OnboardingFlow(steps: [StoreManagerStep(workFactor: 4, usesKeyring: false)])
            .onboard(
                OnboardingContext(
                    location: folder.location, presenter: ScriptedPresenter(.init(newPasscodes: [Self.passcode]))))
        #expect(first.succeeded)
        let again = await OnboardingFlow(steps: [StoreManagerStep(workFactor: 4, usesKeyring: false)])
            .onboard(
                OnboardingContext(
                    location: folder.location, presenter: ScriptedPresenter(.init(newPasscodes: [Self.passcode]))))
        #expect((again.failure?.error as? OnboardingError)?.code == .alreadyOnboarded)
        let replaced = await OnboardingFlow(steps: [
            StoreManagerStep(workFactor: 4, replacing: true, usesKeyring: false)
        ])
        .onboard(OnboardingContext(location: folder.location, presenter: ScriptedPresenter()))
        #expect((replaced.failure?.error as? OnboardingError)?.code == .unanswered)
        #expect(
            try SecureStore.open(
                at: folder.location, passcode: Passcode(Self.passcode), options: .init(useKeyring: false)) != nil,
            "the declined replacement left the store as it was")

        // A file that is no store is never replaced, not even when replacing: refused before anything is asked.
        let notes = SecureStoreLocation(path: "\(folder.path)/notes.txt")
        #expect(FileManager.default.createFile(atPath: notes.path, contents: Data("my notes\n".utf8)))
        let presenter = ScriptedPresenter(.init(newPasscodes: [Self.passcode]))
        let overNotes = await OnboardingFlow(steps: [
            StoreManagerStep(workFactor: 4, replacing: true, usesKeyring: false)
        ])
        .onboard(OnboardingContext(location: notes, presenter: presenter))
        #expect((overNotes.failure?.error as? SecureStoreError)?.code == .notAStore)
        #expect(presenter.asked.isEmpty)
        #expect(FileManager.default.contents(atPath: notes.path) == Data("my notes\n".utf8))
    }
}
