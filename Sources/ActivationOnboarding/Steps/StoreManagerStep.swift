import ActivationConfiguration
import ActivationSecureStore

/// The secure store's step: onboard creates the store with what the steps before it gathered,
/// under a passcode that meets the client policies' passcode policy; restore opens it (first, so
/// that every other step finds what it kept); reset deletes it, and only it.
///
/// Put it after the steps that decide the passcode policy (the settings download and the
/// passcode policy's step) and before the steps that keep values once the store is open.
public struct StoreManagerStep: OnboardingStep {
    /// How a new store is protected.
    public enum Protection: Sendable, Hashable {
        /// By a passcode the user chooses, unless the passcode policy asks for none.
        case passcode
        /// By a device secret only, which the passcode policy must allow.
        case deviceSecret
    }

    /// How a new store is protected.
    public var protection: Protection
    /// log2 of scrypt's N for a new passcode.
    public var workFactor: Int
    /// Whether onboarding replaces a store that is already there.
    public var replacing: Bool
    /// How often a passcode is asked before the step gives up: a new one that breaks the policy,
    /// or a current one that is wrong (each wrong one counts against the store's retry limit).
    public var attempts: Int
    /// Whether an unlocked store's key may wait in the kernel keyring for the lock timeout, and
    /// open the store without the passcode within it.
    public var usesKeyring: Bool

    /// The store's step.
    public init(protection: Protection = .passcode, workFactor: Int = SecureStore.defaultWorkFactor, replacing: Bool = false,
                attempts: Int = 3, usesKeyring: Bool = true) {
        self.protection = protection
        self.workFactor = workFactor
        self.replacing = replacing
        self.attempts = attempts
        self.usesKeyring = usesKeyring
    }

    /// `true`: restore opens the store before any other step runs.
    public var opensStore: Bool { true }

    /// Creates the store from the context's pending contents and leaves it open in the context.
    ///
    /// - Throws: ``OnboardingError`` `alreadyOnboarded` (a store is there and ``replacing`` is
    ///   off) or `declined` (no passcode was given); `ConfigurationError` `passcodeRequired`
    ///   (a device secret where the policy requires a passcode), `passcodeRejected`, or a file error.
    public func onboard(_ context: inout OnboardingContext) async throws {
        let location = context.location
        if !replacing && FileIO.exists(location.path) {
            throw OnboardingError(.alreadyOnboarded, "a store is already at \(location.path)")
        }
        let policy = context.pendingContents.clientPolicies.passcode
        let passcode = try await newPasscode(policy, context: context)
        context.store = try SecureStore.create(at: location, contents: context.pendingContents, passcode: passcode, workFactor: workFactor,
                                               replacing: replacing, now: context.now())
    }

    /// The new store's passcode, or `nil` for a device secret.
    func newPasscode(_ policy: PasscodePolicy, context: OnboardingContext) async throws -> Passcode? {
        switch protection {
        case .deviceSecret:
            guard policy.allowsNoPasscode else {
                throw ConfigurationError(.passcodeRequired, source: context.location.path,
                                         "the passcode policy requires a passcode (passwordPolicyDefaultPasswordAllowed is not \"true\")")
            }
            return nil
        case .passcode where !policy.isEnabled:
            context.presenter.show(OnboardingNote(.info, step: name, "The passcode policy asks for no passcode: a device secret protects the store."))
            return nil
        case .passcode:
            return try await NewPasscodeQuestion(policy: policy, purpose: .newStore, attempts: attempts).ask(context.presenter)
        }
    }

    /// Opens the store: with the key kept in the keyring or the device secret when it can, else
    /// with the current passcode, asked up to ``attempts`` times.
    ///
    /// - Throws: ``OnboardingError`` `notOnboarded` (no store); `ConfigurationError`
    ///   `wrongPasscode`, `passcodeRequired`, `passcodeExpired`, `storeBlocked`, `storeWiped`,
    ///   `storeDamaged`, or a file error.
    public func restore(_ context: inout OnboardingContext) async throws {
        let location = context.location
        let options = SecureStore.OpenOptions(useKeyring: usesKeyring, now: context.now())
        var opened: SecureStore?
        do {
            opened = try SecureStore.open(at: location, passcode: nil, options: options)
        } catch let error as ConfigurationError where error.code == .passcodeRequired {
            var rejection: (any Error)?
            for attempt in 1...max(1, attempts) {
                let request = PasscodeRequest(location: location, attempt: attempt, rejection: rejection)
                guard let passcode = try await context.presenter.currentPasscode(request) else { throw error }
                do {
                    opened = try SecureStore.open(at: location, passcode: passcode, options: options)
                    break
                } catch let wrong as ConfigurationError where wrong.code == .wrongPasscode && attempt < attempts {
                    rejection = wrong
                }
            }
        }
        guard let opened else { throw OnboardingError(.notOnboarded, "nothing is onboarded: there is no store at \(location.path)") }
        context.store = opened
    }

    /// Deletes the store, its state, its device secret and its key in the keyring, and a
    /// plaintext store of an earlier version, and nothing else: a file at the store's path that
    /// is neither store is refused, before anything is removed.
    ///
    /// - Throws: `ConfigurationError` `fileUnwritable` naming a file that is no store, or one
    ///   that cannot be removed.
    public func reset(_ context: inout OnboardingContext) async throws {
        let location = context.location
        // A plaintext store at the store's own path goes first, so that the secure store's
        // siblings then go with it.
        let plaintext = location.plaintextStore()
        var removed = try plaintext.map { $0.path == location.path ? try $0.remove() : false } ?? false
        removed = try SecureStore.delete(at: location) || removed
        if let plaintext, plaintext.path != location.path { removed = try plaintext.remove() || removed }
        context.store = nil
        context.presenter.show(OnboardingNote(.info, step: name, removed ? "removed the store \(location.path) and its state" : "nothing to remove (\(location.path))"))
    }
}

/// Asking for a new passcode until one meets the policy, up to a number of attempts.
struct NewPasscodeQuestion {
    var policy: PasscodePolicy
    var purpose: NewPasscodeRequest.Purpose
    var attempts: Int

    /// The accepted passcode.
    ///
    /// - Throws: ``OnboardingError`` `declined` when none is given; the policy's
    ///   `passcodeRejected` for the last refused one.
    func ask(_ presenter: any OnboardingPresenter) async throws -> Passcode {
        var rejection: (any Error)?
        for attempt in 1...max(1, attempts) {
            guard let passcode = try await presenter.newPasscode(NewPasscodeRequest(policy: policy, purpose: purpose, attempt: attempt, rejection: rejection)) else {
                throw OnboardingError(.declined, "no passcode was given")
            }
            do {
                try policy.check(passcode.text)
                return passcode
            } catch let error as ConfigurationError where attempt < attempts {
                rejection = error
            }
        }
        throw OnboardingError(.declined, "no acceptable passcode was given")
    }
}
