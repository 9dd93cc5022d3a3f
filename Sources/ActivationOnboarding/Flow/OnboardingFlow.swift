/// Runs an app's onboarding steps: onboard on the first start, restore on every later one, sync
/// while restored, reset to start over.
///
/// ```swift
/// let flow = OnboardingFlow(steps: [configuration, credentials, settings, passcodePolicy, store, TenantStep()])
/// let context = OnboardingContext(location: SecureStoreLocation(), presenter: presenter)
/// var result = await flow.restore(context)
/// if (result.failure?.error as? OnboardingError)?.code == .notOnboarded {
///     result = await flow.onboard(OnboardingContext(location: context.location, presenter: presenter))
/// }
/// if let failure = result.failure { print("\(failure.step): \(failure.error)") }
/// ```
///
/// Onboard, restore and sync stop at the first step that fails, and the result names it; reset
/// runs every step, so that one step's failure leaves nothing of the others behind.
public struct OnboardingFlow: Sendable {
    /// Which of the four runs.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The first start: each step's ``OnboardingStep/checkBeforeOnboarding(_:)``, then each
        /// step's ``OnboardingStep/onboard(_:)``, in order.
        case onboard
        /// A later start: the store's step first, then the others, in order.
        case restore
        /// While restored: each step's ``OnboardingStep/sync(_:)``, in order.
        case sync
        /// Starting over: each step's ``OnboardingStep/reset(_:)``, in reverse order, all of them.
        case reset
    }

    /// The steps, in the order onboarding runs them.
    public var steps: [any OnboardingStep]

    /// A flow of `steps`, in the order onboarding runs them.
    public init(steps: [any OnboardingStep]) {
        self.steps = steps
    }

    /// The steps in the order `kind` runs them: as given for onboard and sync; the steps that
    /// open the store first for restore (otherwise as given); reversed for reset.
    public func order(for kind: Kind) -> [any OnboardingStep] {
        switch kind {
        case .onboard, .sync: steps
        case .restore: steps.filter(\.opensStore) + steps.filter { !$0.opensStore }
        case .reset: steps.reversed()
        }
    }

    /// Runs each step's check before onboarding, then each step's onboard, in order, stopping at
    /// the first that fails.
    public func onboard(_ context: OnboardingContext) async -> OnboardingResult {
        var context = context
        for step in steps {
            do {
                try await step.checkBeforeOnboarding(&context)
            } catch {
                return OnboardingResult(
                    kind: .onboard, context: context, completed: [],
                    failures: [StepFailure(step: step.name, error: error)])
            }
        }
        return await run(.onboard, context) { step, context in try await step.onboard(&context) }
    }

    /// Runs the store's step's restore, then every other step's, stopping at the first that fails.
    public func restore(_ context: OnboardingContext) async -> OnboardingResult {
        await run(.restore, context) { step, context in try await step.restore(&context) }
    }

    /// Runs each step's sync, in order, stopping at the first that fails; `context` must be one
    /// that a restore returned (its store open).
    public func sync(_ context: OnboardingContext) async -> OnboardingResult {
        guard context.store != nil else {
            let error = OnboardingError(.notOnboarded, "nothing is restored to sync: run the restore flow first")
            return OnboardingResult(
                kind: .sync, context: context, completed: [], failures: [StepFailure(step: "sync", error: error)])
        }
        return await run(.sync, context) { step, context in try await step.sync(&context) }
    }

    /// Runs each step's reset, in reverse order, every one of them whatever the others do; the
    /// result lists every step that failed.
    public func reset(_ context: OnboardingContext) async -> OnboardingResult {
        var context = context
        var completed: [String] = []
        var failures: [StepFailure] = []
        for step in order(for: .reset) {
            do {
                try await step.reset(&context)
                completed.append(step.name)
            } catch {
                failures.append(StepFailure(step: step.name, error: error))
            }
        }
        return OnboardingResult(kind: .reset, context: context, completed: completed, failures: failures)
    }

    private func run(
        _ kind: Kind, _ context: OnboardingContext,
        _ body: (any OnboardingStep, inout OnboardingContext) async throws -> Void
    ) async -> OnboardingResult {
        var context = context
        var completed: [String] = []
        for step in order(for: kind) {
            context.presenter.show(OnboardingNote(.progress, step: step.name, "\(kind.rawValue): \(step.name)"))
            do {
                try await body(step, &context)
            } catch {
                return OnboardingResult(
                    kind: kind, context: context, completed: completed,
                    failures: [StepFailure(step: step.name, error: error)])
            }
            completed.append(step.name)
        }
        return OnboardingResult(kind: kind, context: context, completed: completed, failures: [])
    }
}

/// What a flow did: the steps that ran to their end, the one that failed, and the context as
/// the steps left it.
public struct OnboardingResult: Sendable {
    /// Which run this was.
    public var kind: OnboardingFlow.Kind
    /// The context as the last step left it: the store open after a successful onboard or restore.
    public var context: OnboardingContext
    /// The names of the steps that ran to their end, in the order they ran.
    public var completed: [String]
    /// The steps that failed: at most one for onboard, restore and sync (the flow stops there),
    /// every one that failed for reset.
    public var failures: [StepFailure]

    /// The first step that failed, and why.
    public var failure: StepFailure? { failures.first }
    /// Whether every step ran to its end.
    public var succeeded: Bool { failures.isEmpty }

    /// The context the flow ends with.
    ///
    /// - Throws: the first failing step's error, as it threw it.
    public func get() throws -> OnboardingContext {
        if let failure { throw failure.error }
        return context
    }
}

/// A step that failed, and its error.
public struct StepFailure: Error, CustomStringConvertible {
    /// The step's name.
    public var step: String
    /// What it threw.
    public var error: any Error

    /// The failure of `step` with `error`.
    public init(step: String, error: any Error) {
        self.step = step
        self.error = error
    }

    /// `step: error`.
    public var description: String { "\(step): \(error)" }
}

extension OnboardingFlow {
    /// The predefined steps in the order the reference SDK runs them: the configuration, the
    /// sign-in (credentials checked by the server, or OAuth 2.0), the client policies and the
    /// steps that apply them, the store, then the app's own steps (which find the store open).
    ///
    /// - Parameters:
    ///   - configuration: where the configuration comes from and how it is checked.
    ///   - credentials: how basic and API-key credentials are asked for and checked.
    ///   - signIn: the OAuth 2.0 sign-in (`OAuth2SignInStep`, with the HTTP client's trait);
    ///     `nil`: an OAuth configuration is stored without signing in.
    ///   - settings: where the client policies come from.
    ///   - store: how the store is created and opened.
    ///   - appSteps: the app's own steps, run after the store's.
    public static func standard(
        configuration: ConfigurationStep, credentials: CredentialsStep = CredentialsStep(),
        signIn: (any OnboardingStep)? = nil,
        settings: SettingsDownloadStep, store: StoreManagerStep, appSteps: [any OnboardingStep] = []
    ) -> OnboardingFlow {
        OnboardingFlow(
            steps: [configuration, credentials] + (signIn.map { [$0] } ?? []) + [
                settings,
                PasscodePolicyApplyStep(), BlockWipingPolicyApplyStep(), LogSettingsApplyStep(),
                store, UsagePolicyApplyStep(), FeatureVectorPolicyApplyStep(),
            ] + appSteps)
    }
}
