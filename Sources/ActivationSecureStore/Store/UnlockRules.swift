import ActivationConfiguration
import Foundation

/// What opening a store does at each point where its policies decide, as a pure function: what
/// the state file says, whether the header is one activate wrote, the time and what the last try
/// gave come in; the state to write, whether to delete the store and whether to go on come out.
///
/// ``SecureStore/open(at:passcode:options:)`` is the shell around it: it reads the files, asks the
/// keyring, derives keys and decrypts, and does what each ``Decision`` says, in order.
struct UnlockRules: Sendable {
    /// The state file as read (a default state when there is none).
    var state: StoreState
    /// Whether the store's header is one that activate wrote here: a failure with any other header
    /// proves nothing about the passcode (damage, a swapped file, `age -p`), so it is not counted.
    var headerKnown: Bool
    /// Where the store lies, for the errors.
    var source: String

    /// What the last try gave.
    enum Outcome: Sendable {
        /// Neither the keyring nor a device secret opened the store, and no passcode was given.
        case passcodeMissing
        /// The device secret beside the store did not open it.
        case deviceSecretFailed
        /// A passcode is about to be tried; its key derivation takes a while.
        case passcodeGiven
        /// The passcode tried does not open the store (the try was counted by `.passcodeGiven`).
        case passcodeWrong
        /// The passcode opened the store's key; the contents are not read yet.
        case passcodeRight
        /// The contents were read: with `header`, and the policies they hold.
        case opened(SecureStoreContents, header: AgeHeader)
    }

    /// What the shell does next.
    struct Decision: Sendable, Equatable {
        /// The state file to write first, when it changes.
        var newState: StoreState?
        /// Delete the store and everything beside it (then refuse).
        var deletesStore = false
        /// Refuse to open, with this error; `nil`: go on.
        var refusal: SecureStoreError?

        static let proceed = Decision()
    }

    /// The rules at one point of opening, judged at `now`.
    ///
    /// - Parameters:
    ///   - allowBlocked: open a store that the block-and-wipe policy blocks (to contact the server).
    ///   - allowExpiredPasscode: open a store whose passcode has expired (to change it).
    func decide(_ outcome: Outcome, now: Date, allowBlocked: Bool = false, allowExpiredPasscode: Bool = false)
        -> Decision
    {
        switch outcome {
        case .passcodeMissing:
            return Decision(
                refusal: error(
                    .passcodeRequired, "the store is locked; its passcode is needed\(headerKnown ? triesLeftNote : "")")
            )
        case .deviceSecretFailed:
            // A store being given its first passcode may still be the device-secret one after an
            // interruption, so a failing secret is damage only when the state says no passcode.
            guard state.protection == .deviceSecret else { return .proceed }
            return refuse(.storeDamaged, "the device secret beside it does not open the store")
        case .passcodeGiven:
            // Counted before the key is derived, so that killing the process during the
            // derivation does not give a free try; a right passcode clears the count.
            guard headerKnown else { return .proceed }
            var counted = state
            counted.failedAttempts = min(state.failedAttempts + 1, StoreState.maxFailedAttempts)
            return Decision(newState: counted)
        case .passcodeWrong:
            guard headerKnown else {
                return refuse(
                    .wrongPasscode,
                    """
                    the passcode does not open the store, and its header is not the one activate wrote: \
                    the passcode is wrong, or the file was damaged or replaced (this try is not counted)
                    """
                )
            }
            if state.triesLeft == 0 {
                return Decision(
                    deletesStore: true,
                    refusal: error(
                        .storeWiped,
                        """
                        wrong passcode \(state.failedAttempts) times in a row: \
                        the store and everything in it was deleted, as the passcode policy requires
                        """
                    ))
            }
            return refuse(.wrongPasscode, "wrong passcode\(triesLeftNote)")
        case .passcodeRight:
            // Whatever is wrong with the rest of the file is no wrong try.
            guard headerKnown, state.failedAttempts != 0 else { return .proceed }
            var cleared = state
            cleared.failedAttempts = 0
            return Decision(newState: cleared)
        case .opened(let contents, let header):
            // What must be known before the next unlock follows the policies inside; the count is
            // cleared, also when a policy below refuses the store.
            let synced = StoreState(
                policies: contents.clientPolicies, protection: contents.protection, headers: [header])
            var decision = Decision(newState: synced == state ? nil : synced)
            decision.refusal = policyRefusal(
                contents, now: now, allowBlocked: allowBlocked, allowExpiredPasscode: allowExpiredPasscode,
                deletes: &decision.deletesStore)
            return decision
        }
    }

    /// The expiry of the passcode, and the block and wipe periods since the last server contact.
    private func policyRefusal(
        _ contents: SecureStoreContents, now: Date, allowBlocked: Bool, allowExpiredPasscode: Bool,
        deletes: inout Bool
    ) -> SecureStoreError? {
        let policies = contents.clientPolicies
        if let lastContact = contents.lastServerContact {
            switch policies.blockWiping.verdict(lastContact: lastContact, now: now) {
            case .open: break
            case .block where allowBlocked: break
            case .block(let days):
                return error(
                    .storeBlocked,
                    """
                    no contact with the server for \(days) days: \
                    the block-and-wipe policy blocks the store after \(policies.blockWiping.blockAfterDays)
                    """
                )
            case .wipe(let days):
                deletes = true
                return error(
                    .storeWiped,
                    """
                    no contact with the server for \(days) days: the store and everything in it was deleted, \
                    as the block-and-wipe policy requires after \(policies.blockWiping.wipeAfterDays)
                    """
                )
            }
        }
        if contents.protection == .passcode, !allowExpiredPasscode, let days = contents.passcodeExpiredDays(now: now) {
            return error(
                .passcodeExpired,
                """
                the passcode was set \(days) days ago \
                and the passcode policy asks for a new one every \(policies.passcode.expiresInDays) days
                """
            )
        }
        return nil
    }

    /// The tries left, as the end of a sentence; empty without a limit.
    private var triesLeftNote: String {
        guard let left = state.triesLeft else { return "" }
        if left == 1 { return "; 1 try left: one more wrong passcode deletes the store" }
        return "; \(left) tries left"
    }

    private func error(_ code: SecureStoreError.Code, _ message: String) -> SecureStoreError {
        SecureStoreError(code, source: source, message)
    }

    private func refuse(_ code: SecureStoreError.Code, _ message: String) -> Decision {
        Decision(refusal: error(code, message))
    }
}
