import ActivationConfiguration
import ActivationSecureStore
import Foundation

/// The passcode policy's step. The store's step makes a new passcode meet the policy; this step
/// tells the user, on every restore and sync, what the policy in force asks of the store they
/// have: a passcode that soon expires, or a passcode where the store has only a device secret.
public struct PasscodePolicyApplyStep: PolicyApplyStep {
    /// How many days before the passcode expires the user is told.
    public var warningDays: Int

    /// The step, telling the user `warningDays` days before the passcode expires.
    public init(warningDays: Int = 7) {
        self.warningDays = warningDays
    }

    /// Tells what the policy asks of the store (nothing yet while onboarding: the store's step
    /// applies the policy when it makes the passcode).
    public func apply(_ context: inout OnboardingContext) {
        for text in Self.notices(
            for: context.contents, unlockedWith: context.store?.unlockedWith, now: context.now(),
            warningDays: warningDays)
        {
            context.presenter.show(
                OnboardingNote(
                    .warning, step: name, text,
                    topic: text.hasPrefix("The passcode policy now") ? .passcodeRequired : .passcodeExpiring))
        }
    }

    /// What the policy asks of a store with `contents`: a pure function of its inputs.
    public static func notices(
        for contents: SecureStoreContents, unlockedWith: SecureStore.Unlock?, now: Date, warningDays: Int
    ) -> [String] {
        let policy = contents.clientPolicies.passcode
        var notices: [String] = []
        if contents.protection == .deviceSecret {
            if !policy.allowsNoPasscode {
                notices.append("The passcode policy now requires a passcode, and the store has none")
            }
            return notices
        }
        if policy.expiresInDays > 0, let changed = contents.passcodeChangedAt {
            let left = Double(policy.expiresInDays) - now.timeIntervalSince(changed) / 86_400
            if left > 0 && left <= Double(warningDays) {
                let days = Int(left.rounded(.up))
                notices.append(
                    """
                    The passcode expires in \(days) day\(days == 1 ? "" : "s") \
                    (the policy asks for a new one every \(policy.expiresInDays) days)
                    """
                )
            }
        }
        return notices
    }
}

/// The block-and-wipe policy's step. The store refuses to open when it is blocked and deletes
/// itself when it is to be wiped; this step tells the user, on every restore, how long the store
/// has until then without contact with the server, when that time runs short.
public struct BlockWipingPolicyApplyStep: PolicyApplyStep {
    /// How many days before the store is blocked (or wiped) the user is told.
    public var warningDays: Int

    /// The step, telling the user `warningDays` days ahead.
    public init(warningDays: Int = 3) {
        self.warningDays = warningDays
    }

    /// Tells how long the store has without contact, when it runs short (never while onboarding:
    /// the contact that onboarding makes is the first the policy counts from).
    public func apply(_ context: inout OnboardingContext) {
        if let text = Self.notice(for: context.contents, now: context.now(), warningDays: warningDays) {
            context.presenter.show(OnboardingNote(.warning, step: name, text, topic: .serverContactNeeded))
        }
    }

    /// What the policy says of a store with `contents` at `now`: a pure function of its inputs.
    public static func notice(for contents: SecureStoreContents, now: Date, warningDays: Int) -> String? {
        let policy = contents.clientPolicies.blockWiping
        guard policy.isEnabled, let contact = contents.lastServerContact else { return nil }
        let days = now.timeIntervalSince(contact) / 86_400
        for (limit, what) in [(policy.blockAfterDays, "blocked"), (policy.wipeAfterDays, "deleted")] where limit > 0 {
            let left = Double(limit) - days
            if left <= 0 {
                return
                    "No contact with the server for \(Int(days)) days: the store is \(what) until the server is reached"
            }
            if left <= Double(warningDays) {
                let shown = Int(left.rounded(.up))
                return "Without contact with the server the store is \(what) in \(shown) day\(shown == 1 ? "" : "s")"
            }
        }
        return nil
    }
}
