import ActivationConfiguration
import ActivationSecureStore
import Foundation

/// The user's answer to the usage policy: whether they consent to the collection of usage data,
/// when they said so, and the policy they answered; kept in the store.
public struct UsageConsent: Sendable, Hashable, Codable {
    /// Whether the user consented.
    public var granted: Bool
    /// When they answered.
    public var answeredAt: Date
    /// The policy they answered (`dataCollectionEnabled`, `uploadDataAfterDays`, `crashLogUploadEnabled`).
    public var dataCollectionEnabled: Bool
    /// The upload interval of the policy they answered.
    public var uploadDataAfterDays: Int
    /// Whether the policy they answered allowed crash logs.
    public var crashLogUploadEnabled: Bool

    /// An answer to `policy` at `answeredAt`.
    public init(granted: Bool, answeredAt: Date, policy: UsagePolicy) {
        self.granted = granted
        self.answeredAt = Date(timeIntervalSince1970: answeredAt.timeIntervalSince1970.rounded(.down))
        dataCollectionEnabled = policy.dataCollectionEnabled
        uploadDataAfterDays = policy.uploadDataAfterDays
        crashLogUploadEnabled = policy.crashLogUploadEnabled
    }

    /// Whether this answer was given to `policy` (and not to an earlier one).
    public func answers(_ policy: UsagePolicy) -> Bool {
        dataCollectionEnabled == policy.dataCollectionEnabled && uploadDataAfterDays == policy.uploadDataAfterDays
            && crashLogUploadEnabled == policy.crashLogUploadEnabled
    }
}

/// A question for the user's consent to the collection of usage data.
public struct ConsentRequest: Sendable, Hashable {
    /// The policy to consent to.
    public var policy: UsagePolicy
    /// The user's answer to an earlier policy, when the policy changed since.
    public var previous: UsageConsent?

    /// A question for consent to `policy`.
    public init(policy: UsagePolicy, previous: UsageConsent? = nil) {
        self.policy = policy
        self.previous = previous
    }
}

/// The usage policy's step: where the client policies allow data collection
/// (`dataCollectionEnabled`), the user is asked once for consent; the answer is kept in the store
/// with when it was given, and asked again only when the policy changes. Without the consent the
/// app collects nothing; ``UsagePolicyApplyStep/consent(in:)`` tells the app what holds.
public struct UsagePolicyApplyStep: PolicyApplyStep {
    /// Where the answer is kept among the store's values.
    public static let key = "com.sap.activate.usageConsent"

    /// The step.
    public init() {}

    /// Asks for consent where the policy allows collection and no answer to this very policy is
    /// kept, and keeps the answer with its time.
    ///
    /// - Throws: `ConfigurationError` when the store cannot be written.
    public func apply(_ context: inout OnboardingContext) async throws {
        let policy = context.clientPolicies.usage
        let kept = try context.kept(UsageConsent.self, forKey: Self.key)
        guard policy.dataCollectionEnabled else { return }
        if let kept, kept.answers(policy) { return }
        let granted = await context.presenter.consent(ConsentRequest(policy: policy, previous: kept))
        try context.keep(UsageConsent(granted: granted, answeredAt: context.now(), policy: policy), forKey: Self.key)
        context.presenter.show(
            OnboardingNote(
                .info, step: name,
                granted ? "Usage data may be collected (you consented)." : "No usage data is collected (you declined).")
        )
    }

    /// Whether usage data may be collected under the store's contents: the policy allows it and
    /// the user consented to that very policy.
    public static func consent(in contents: SecureStoreContents) -> (allowed: Bool, answer: UsageConsent?) {
        let answer = try? contents.value(UsageConsent.self, forKey: key)
        let policy = contents.clientPolicies.usage
        return (policy.dataCollectionEnabled && answer?.granted == true && answer?.answers(policy) == true, answer)
    }
}

extension OnboardingContext {
    /// What `activate onboard --json` and `restore --json` print of the open store: the
    /// configuration as the configuration step reported it, the store's protection, credentials
    /// (secrets hidden unless `showingSecrets`) and last server contact, the usage-data answer
    /// and the restricted features; `nil` before the store holds a configuration.
    public func restoreReport(showingSecrets: Bool = false) -> RestoreReport? {
        guard let activation = self[.activationReport],
            var report = contents.report(activation, showingSecrets: showingSecrets)
        else { return nil }
        let consent = UsagePolicyApplyStep.consent(in: contents)
        report.usageDataCollection =
            contents.clientPolicies.usage.dataCollectionEnabled ? (consent.allowed ? "consented" : "declined") : "off"
        report.restrictedFeatures = contents.clientPolicies.featureVector.restricted
        return report
    }
}
