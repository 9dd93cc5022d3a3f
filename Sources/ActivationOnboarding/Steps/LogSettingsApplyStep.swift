import ActivationConfiguration
import Logging

/// The log settings' step: the level of the flow's logger (``OnboardingContext/logger``), which
/// the steps and the app log through, follows the client policies' `logSettings` on onboard,
/// restore and sync: nothing below `logLevel` when `logEnabled`, only critical messages otherwise.
public struct LogSettingsApplyStep: PolicyApplyStep {
    /// The step.
    public init() {}

    /// Sets the logger's level from the log settings.
    public func apply(_ context: inout OnboardingContext) {
        let level = Self.level(for: context.clientPolicies.logSettings)
        if context.logger.logLevel != level {
            context.logger.logLevel = level
            context.logger.info("log level \(level) from the client policies")
        }
    }

    /// swift-log's level for SAP's settings: SAP's `PATH` is `trace`, `FATAL` and `NONE` are
    /// `critical` (swift-log has no level that logs nothing), and so is logging turned off.
    public static func level(for settings: LogSettings) -> Logger.Level {
        switch settings.effectiveLevel {
        case .none, .fatal: .critical
        case .error: .error
        case .warn: .warning
        case .info: .info
        case .debug: .debug
        case .path: .trace
        }
    }
}

/// The feature restrictions' step: puts the client policies' `featureVectorPolicies` into the
/// context on onboard, restore and sync, where the app asks whether a feature may run
/// (``OnboardingContext/allows(feature:)``), and tells the user which features are turned off
/// when onboarding and when a sync changes them.
public struct FeatureVectorPolicyApplyStep: PolicyApplyStep {
    /// The step.
    public init() {}

    /// Puts the restrictions into the context.
    public func apply(_ context: inout OnboardingContext) {
        context[.featureVectorPolicy] = context.clientPolicies.featureVector
    }

    /// Applies the restrictions and names the features turned off.
    public func onboard(_ context: inout OnboardingContext) async throws {
        apply(&context)
        tell(context.clientPolicies.featureVector, &context)
    }

    /// Applies the restrictions, naming the features turned off when they changed.
    public func sync(_ context: inout OnboardingContext) async throws {
        let previous = context[.featureVectorPolicy]
        apply(&context)
        if previous != context.clientPolicies.featureVector { tell(context.clientPolicies.featureVector, &context) }
    }

    func tell(_ policy: FeatureVectorPolicy, _ context: inout OnboardingContext) {
        if !policy.restricted.isEmpty {
            context.presenter.show(
                OnboardingNote(
                    .info, step: name, "Turned off by your administrator: \(policy.restricted.joined(separator: ", "))")
            )
        }
    }
}

extension InfoKey where Value == FeatureVectorPolicy {
    /// The feature restrictions in force, as ``FeatureVectorPolicyApplyStep`` applied them.
    public static let featureVectorPolicy = InfoKey("com.sap.activate.featureVectorPolicy")
}

extension OnboardingContext {
    /// Whether the feature named `feature` may run under the restrictions that
    /// ``FeatureVectorPolicyApplyStep`` applied; every feature may when the step did not run.
    public func allows(feature: String) -> Bool {
        self[.featureVectorPolicy]?.allows(feature) ?? true
    }
}
