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
    /// Whether restore opens a store that the block-and-wipe policy blocks: only for a sync that
    /// follows at once, whose contact with the server unblocks it.
    public var allowsBlocked: Bool

    /// The store's step.
    public init(
        protection: Protection = .passcode, workFactor: Int = SecureStore.defaultWorkFactor, replacing: Bool = false,
        attempts: Int = 3, usesKeyring: Bool = true, allowsBlocked: Bool = false
    ) {
        self.protection = protection
        self.workFactor = workFactor
        self.replacing = replacing
        self.attempts = attempts
        self.usesKeyring = usesKeyring
        self.allowsBlocked = allowsBlocked
    }

    /// `true`: restore opens the store before any other step runs.
    public var opensStore: Bool { true }

    /// Refuses early to onboard over a store (unless ``replacing``), and over any other file at
    /// the store's path in any case. A plaintext store of an earlier version there is first moved
    /// into the secure store, so that nothing is lost and the next restore finds it there.
    ///
    /// - Throws: ``OnboardingError`` `alreadyOnboarded`; `SecureStoreError` `notAStore` for a
    ///   file that is no store.
    public func checkBeforeOnboarding(_ context: inout OnboardingContext) async throws {
        let location = context.location
        guard FileIO.exists(location.path) || location.plaintextStore() != nil else { return }
        if FileIO.exists(location.path) && !location.holdsSecureStore
            && location.plaintextStore()?.path != location.path
        {
            throw SecureStoreError(
                .notAStore, source: location.path,
                """
                is neither a secure store nor a plaintext configuration of an earlier version; \
                onboarding does not replace it
                """
            )
        }
        if replacing { return }
        if location.holdsSecureStore {
            throw OnboardingError(.alreadyOnboarded, "already onboarded (\(location.path))")
        }
        guard let moved = try await migratePlaintextStore(&context) else { return }
        let host = moved.contents.configuration?.document.host ?? "a server"
        throw OnboardingError(.alreadyOnboarded, "already onboarded to \(host) (moved into \(location.path))")
    }

    /// Creates the store from the context's pending contents and leaves it open in the context;
    /// then removes a plaintext store of an earlier version that the new store replaces.
    ///
    /// - Throws: ``OnboardingError`` `alreadyOnboarded` (a store is there and ``replacing`` is
    ///   off) or `unanswered` (no passcode was given); `SecureStoreError` `passcodeRejected` (a
    ///   device secret where the policy requires a passcode), `notAStore`; or a file error
    ///   (`ConfigurationError`).
    public func onboard(_ context: inout OnboardingContext) async throws {
        let location = context.location
        try await checkBeforeOnboarding(&context)
        let policy = context.pendingContents.clientPolicies.passcode
        let passcode = try await newPasscode(policy, context: context)
        let plaintext = location.plaintextStore()
        // The existence check before was early feedback; the one in create is atomic with the
        // write, so of two onboardings at once, the second is refused instead of replacing.
        context.store = try SecureStore.create(
            at: location, contents: context.pendingContents, passcode: passcode, workFactor: workFactor,
            replacing: replacing, now: context.now())
        if let plaintext, plaintext.path != location.path, try plaintext.remove() {
            context.presenter.show(
                OnboardingNote(
                    .info, step: name, "removed the plaintext configuration of an earlier version (\(plaintext.path))"))
        }
    }

    /// Moves a plaintext store of an earlier version into a new secure store, under the client
    /// policies gathered so far, with a new passcode; the new store, open, or `nil` when there is
    /// nothing to move (or a secure store is already there, beside which it stays until a reset).
    func migratePlaintextStore(_ context: inout OnboardingContext) async throws -> SecureStore? {
        let location = context.location
        guard let plaintext = location.plaintextStore(), try plaintext.load() != nil else { return nil }
        if location.holdsSecureStore {
            context.presenter.show(
                OnboardingNote(
                    .info, step: name,
                    """
                    A plaintext configuration of an earlier version is still at \(plaintext.path), \
                    beside the secure store; a reset removes both
                    """,
                    topic: .plaintextBesideStore))
            return nil
        }
        context.presenter.show(
            OnboardingNote(
                .info, step: name,
                """
                A plaintext configuration of an earlier version is at \(plaintext.path); \
                it moves into the secure store \(location.path).
                """
            ))
        let policies = context.pendingContents.clientPolicies
        let passcode = try await newPasscode(policies.passcode, context: context)
        let store = try SecureStore.migrate(
            plaintext, into: location, clientPolicies: policies, passcode: passcode, workFactor: workFactor)
        let removed = plaintext.path == location.path ? "" : "; the plaintext file is removed"
        context.presenter.show(
            OnboardingNote(
                .info, step: name,
                "moved: the configuration is now encrypted in \(location.path)\(removed)"
            ))
        context.store = store
        return store
    }

    /// The new store's passcode, or `nil` for a device secret.
    func newPasscode(_ policy: PasscodePolicy, context: OnboardingContext) async throws -> Passcode? {
        switch protection {
        case .deviceSecret:
            guard policy.allowsNoPasscode else {
                // A store without a passcode breaks the policy: refused, as a passcode that breaks it is.
                throw SecureStoreError(
                    .passcodeRejected, source: context.location.path,
                    "the passcode policy requires a passcode (passwordPolicyDefaultPasswordAllowed is not \"true\")")
            }
            return nil
        case .passcode where !policy.isEnabled:
            context.presenter.show(
                OnboardingNote(
                    .info, step: name, "The passcode policy asks for no passcode: a device secret protects the store."))
            return nil
        case .passcode:
            return try await NewPasscodeQuestion(policy: policy, purpose: .newStore, attempts: attempts).ask(
                context.presenter)
        }
    }

    /// Opens the store: with the key kept in the keyring or the device secret when it can, else
    /// with the current passcode, asked up to ``attempts`` times.
    ///
    /// - Throws: ``OnboardingError`` `notOnboarded` (no store); `SecureStoreError`
    ///   `wrongPasscode`, `passcodeRequired`, `passcodeExpired`, `storeBlocked`, `storeWiped`,
    ///   `storeDamaged`; or a file error (`ConfigurationError`).
    public func restore(_ context: inout OnboardingContext) async throws {
        if try await migratePlaintextStore(&context) != nil { return }
        let location = context.location
        let options = SecureStore.OpenOptions(useKeyring: usesKeyring, allowBlocked: allowsBlocked, now: context.now())
        context.store = try await open(location, options: options, presenter: context.presenter)
    }

    /// Opens the store with `options`: without a passcode when it can, else with the current
    /// passcode, asked up to ``attempts`` times.
    func open(_ location: SecureStoreLocation, options: SecureStore.OpenOptions, presenter: any OnboardingPresenter)
        async throws -> SecureStore
    {
        var opened: SecureStore?
        do {
            opened = try SecureStore.open(at: location, passcode: nil, options: options)
        } catch let error as SecureStoreError where error.code == .passcodeRequired {
            var rejection: (any Error)?
            for attempt in 1...max(1, attempts) {
                let request = PasscodeRequest(location: location, attempt: attempt, rejection: rejection)
                guard let passcode = try await presenter.currentPasscode(request) else { throw error }
                do {
                    opened = try SecureStore.open(at: location, passcode: passcode, options: options)
                    break
                } catch let wrong as SecureStoreError where wrong.code == .wrongPasscode && attempt < attempts {
                    rejection = wrong
                }
            }
        }
        guard let opened else {
            throw OnboardingError(.notOnboarded, "nothing is onboarded (no store at \(location.path))")
        }
        return opened
    }

    /// Changes the store's passcode (also an expired one, or gives a store without a passcode its
    /// first): the current passcode is asked (never taken from the keyring), then a new one under
    /// the stored policy, which must differ from it. The store's key is wrapped anew in one
    /// atomic step: interrupted at any moment, the store opens with the old or the new passcode.
    ///
    /// - Throws: ``OnboardingError`` `notOnboarded` or `unanswered`; `ConfigurationError`
    ///   `wrongPasscode`, `passcodeRejected`, `storeBlocked`, `storeWiped`, or a file error.
    public func changePasscode(_ context: inout OnboardingContext) async throws {
        let options = SecureStore.OpenOptions(useKeyring: false, allowExpiredPasscode: true, now: context.now())
        var store = try await open(context.location, options: options, presenter: context.presenter)
        let policy = store.contents.clientPolicies.passcode
        let passcode = try await NewPasscodeQuestion(policy: policy, purpose: .change, attempts: attempts).ask(
            context.presenter)
        try store.changePasscode(to: passcode, workFactor: workFactor, now: context.now())
        context.store = store
    }

    /// Forgets the store's key kept in the kernel keyring: the next restore asks for the
    /// passcode. `true` when a key was kept.
    @discardableResult
    public func lock(_ context: OnboardingContext) -> Bool {
        SecureStore.lock(at: context.location)
    }

    /// Deletes the store, its state, its device secret and its key in the keyring, and a
    /// plaintext store of an earlier version, and nothing else: a file at the store's path that
    /// is neither store is refused, before anything is removed.
    ///
    /// - Throws: `SecureStoreError` `notAStore` naming a file that is no store, or
    ///   `ConfigurationError` `fileUnwritable` naming one that cannot be removed.
    public func reset(_ context: inout OnboardingContext) async throws {
        let location = context.location
        // A plaintext store at the store's own path goes first, so that the secure store's
        // siblings then go with it.
        let plaintext = location.plaintextStore()
        var removed = try plaintext.map { $0.path == location.path ? try $0.remove() : false } ?? false
        removed = try SecureStore.delete(at: location) || removed
        if let plaintext, plaintext.path != location.path { removed = try plaintext.remove() || removed }
        context.store = nil
        context.presenter.show(
            OnboardingNote(
                .info, step: name,
                removed ? "removed the store \(location.path) and its state" : "nothing to remove (\(location.path))"))
    }
}

/// Asking for a new passcode until one meets the policy, up to a number of attempts.
struct NewPasscodeQuestion {
    var policy: PasscodePolicy
    var purpose: NewPasscodeRequest.Purpose
    var attempts: Int

    /// The accepted passcode.
    ///
    /// - Throws: ``OnboardingError`` `unanswered` when none is given; the policy's
    ///   `passcodeRejected` for the last refused one.
    func ask(_ presenter: any OnboardingPresenter) async throws -> Passcode {
        var rejection: (any Error)?
        for attempt in 1...max(1, attempts) {
            guard
                let passcode = try await presenter.newPasscode(
                    NewPasscodeRequest(policy: policy, purpose: purpose, attempt: attempt, rejection: rejection))
            else {
                throw OnboardingError(.unanswered, "no passcode was given")
            }
            do {
                try policy.check(passcode.text)
                return passcode
            } catch let error as ConfigurationError where attempt < attempts {
                rejection = error
            }
        }
        throw OnboardingError(.unanswered, "no acceptable passcode was given")
    }
}
