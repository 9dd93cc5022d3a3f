/// One step of onboarding: it gathers something on the first start, keeps it in the secure store,
/// takes it back on every later start, refreshes it while the app runs, and forgets it on reset.
///
/// Steps pass what they learn to the steps after them through the ``OnboardingContext``: typed
/// values under `InfoKey`s, the store once it is open, the client policies in force. What a
/// step must find again after a restart it keeps in the store
/// (``OnboardingContext/keep(_:forKey:)``), never in memory only.
///
/// An ``OnboardingFlow`` runs the steps an app composes: the predefined ones of this library
/// and the app's own.
///
/// ```swift
/// struct TenantStep: OnboardingStep {
///     func onboard(_ context: inout OnboardingContext) async throws {
///         try context.keep("acme", forKey: "com.example.tenant")
///     }
///     func restore(_ context: inout OnboardingContext) async throws {
///         guard try context.kept(String.self, forKey: "com.example.tenant") != nil else {
///             throw OnboardingError(.notOnboarded, "no tenant was kept")
///         }
///     }
/// }
/// ```
public protocol OnboardingStep: Sendable {
    /// The step's name in a flow's result and in progress notes; by default its type's name.
    var name: String { get }

    /// Whether the restore flow runs this step before all others: the step that opens the store
    /// does, so that every other step finds what it kept (as the reference SDK orders a restore).
    var opensStore: Bool { get }

    /// Before any step onboards: refuse early what would make onboarding fail at the end (a store
    /// already there), so that the user is not asked for everything first. By default, nothing.
    func checkBeforeOnboarding(_ context: inout OnboardingContext) async throws

    /// First start: gather what the step is for and keep it.
    func onboard(_ context: inout OnboardingContext) async throws

    /// A later start: take back what ``onboard(_:)`` kept, from the store.
    func restore(_ context: inout OnboardingContext) async throws

    /// While restored: bring what the step keeps up to date (settings from the server again, the
    /// policies applied again). By default, nothing.
    func sync(_ context: inout OnboardingContext) async throws

    /// Forget what the step keeps. A reset flow calls it on every step, in reverse order, even
    /// after another step's reset failed. By default, nothing.
    func reset(_ context: inout OnboardingContext) async throws
}

extension OnboardingStep {
    /// The step type's name.
    public var name: String { String(describing: Self.self) }

    /// `false`: only the store's own step opens it.
    public var opensStore: Bool { false }

    /// Nothing to check.
    public func checkBeforeOnboarding(_ context: inout OnboardingContext) async throws {}

    /// Nothing to bring up to date.
    public func sync(_ context: inout OnboardingContext) async throws {}

    /// Nothing to forget.
    public func reset(_ context: inout OnboardingContext) async throws {}
}

/// A step that applies a client policy the same way whenever it runs: on onboard (to the
/// policies gathered for the store), on restore (to those in the store) and on sync (to those the
/// server may just have changed).
public protocol PolicyApplyStep: OnboardingStep {
    /// Applies the policy in ``OnboardingContext/clientPolicies``.
    func apply(_ context: inout OnboardingContext) async throws
}

extension PolicyApplyStep {
    /// Applies the policies gathered for the store.
    public func onboard(_ context: inout OnboardingContext) async throws { try await apply(&context) }
    /// Applies the policies in the store.
    public func restore(_ context: inout OnboardingContext) async throws { try await apply(&context) }
    /// Applies the policies, perhaps new, in the store.
    public func sync(_ context: inout OnboardingContext) async throws { try await apply(&context) }
}
