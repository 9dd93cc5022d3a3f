import ActivationConfiguration
import Crypto
import FileAccess
import Foundation

/// The secure store: what onboarding keeps (the configuration, the credentials, the client
/// policies, the app's own values), encrypted at rest under a passcode that meets the server's
/// passcode policy, or under a device secret where the policy allows a store without one.
///
/// The file is an age v1 file with one scrypt recipient (docs/secure-store.md): a random
/// file key encrypts the contents and scrypt wraps that key under the passcode; a passcode change
/// seals the contents under a new key. Its owner can read it with `age -d` and the passcode.
///
/// ```swift
/// let location = SecureStoreLocation()
/// guard var store = try SecureStore.open(at: location, passcode: Passcode(typed)) else { return }
/// let configuration = store.contents.configuration
/// try store.setValue("dark", forKey: "theme")
/// try store.save()
/// ```
///
/// Every change to the files is atomic (a new file renamed into place) and serialised by a lock
/// file, so an interrupted write leaves the store as it was or as it was meant to be, never broken.
public struct SecureStore: Sendable {
    /// Where the store lies.
    public let location: SecureStoreLocation
    /// What the store holds; change it, then ``save()``.
    public var contents: SecureStoreContents
    /// How this store was opened.
    public let unlockedWith: Unlock
    var fileKey: SymmetricKey
    /// SHA-256 of the file as this value last read or wrote it: a write refuses to replace a
    /// file that another process changed since.
    var fileDigest: [UInt8]
    /// Whether the key may wait in the keyring (the opener asked for it).
    let usesKeyring: Bool

    /// How a store was opened.
    public enum Unlock: Sendable, Hashable {
        /// With the passcode.
        case passcode
        /// With the key kept in the kernel keyring since an earlier unlock (within the lock timeout).
        case cachedKey
        /// With the device secret (a store without a passcode).
        case deviceSecret
        /// Just made.
        case created
    }

    /// The scrypt work factor of a new passcode: 2^18, age's own, about half a second and 256 MiB
    /// on a current machine (benchmarks/README.md, "bench-store").
    public static let defaultWorkFactor = 18
    /// The highest work factor this store writes: 2^20 costs 1 GiB of memory and seconds per unlock.
    public static let maxWorkFactor = 20
    /// A device secret is 32 random bytes: no passphrase to guess, so the KDF need not be slow.
    static let deviceSecretWorkFactor = 10
    /// The largest store file read.
    public static let maxFileBytes =
        SecureStoreContents.maxPlaintextBytes + (SecureStoreContents.maxPlaintextBytes >> 12) + 4096

    init(
        location: SecureStoreLocation, contents: SecureStoreContents, unlockedWith: Unlock, fileKey: SymmetricKey,
        file: [UInt8], usesKeyring: Bool
    ) {
        self.location = location
        self.contents = contents
        self.unlockedWith = unlockedWith
        self.fileKey = fileKey
        self.fileDigest = Array(SHA256.hash(data: file))
        self.usesKeyring = usesKeyring
    }

    // MARK: Creating

    /// Makes a new store holding `contents`, protected by `passcode`, or by a device secret when
    /// `passcode` is `nil` and the contents' passcode policy allows that.
    ///
    /// - Parameters:
    ///   - location: where the store goes (its folder is made 0700 when missing).
    ///   - contents: what it holds; its client policies decide what passcode is acceptable.
    ///   - passcode: the passcode, or `nil` for a device secret where the policy allows it.
    ///   - workFactor: log2 of scrypt's N for the passcode (1 to 20).
    ///   - replacing: replace a store that is already there (its files are overwritten atomically).
    ///   - now: the time the passcode counts as set (for its expiry).
    /// - Throws: `SecureStoreError`: `passcodeRejected` (naming every rule the passcode breaks, or
    ///   none given where the policy requires one), `storeExists`, `invalidWorkFactor`; or a file
    ///   error (`ConfigurationError`).
    public static func create(
        at location: SecureStoreLocation, contents: SecureStoreContents, passcode: Passcode?,
        workFactor: Int = defaultWorkFactor, replacing: Bool = false, now: Date = Date()
    ) throws -> SecureStore {
        let policy = contents.clientPolicies.passcode
        var contents = contents
        let passphrase: [UInt8]
        let factor: Int
        if let passcode {
            try checkPolicy(policy, passcode, location)
            try checkWorkFactor(workFactor)
            passphrase = passcode.bytes
            factor = workFactor
            contents.protection = .passcode
            contents.passcodeChangedAt = now
        } else {
            guard policy.allowsNoPasscode else {
                throw SecureStoreError(
                    .passcodeRejected, source: location.path, "the passcode policy requires a passcode for this store")
            }
            passphrase = []
            factor = deviceSecretWorkFactor
            contents.protection = .deviceSecret
            contents.passcodeChangedAt = nil
        }
        try StoreFiles.prepareFolder(location)
        return try FileIO.withExclusiveLock(location.lockPath) {
            if !replacing && FileIO.exists(location.path) {
                throw SecureStoreError(.storeExists, source: location.path, "a store is already there")
            }
            let previous = replacing ? StoreFiles.currentDigests(location) : []
            var secret = passphrase
            if passcode == nil {
                // A device secret already there is kept: a store it protects stays openable
                // until the new one is in place.
                if let existing = try StoreFiles.deviceSecret(location) {
                    secret = existing
                } else {
                    secret = Array(Base64.encode(AgeFormat.randomBytes(32)).utf8)
                    try FileIO.write(secret + [0x0A], to: location.deviceSecretPath, replace: true, mode: 0o600)
                }
            }
            let fileKey = AgeFormat.makeFileKey()
            let header = try AgeFormat.makeHeader(fileKey: fileKey, passphrase: secret, workFactor: factor)
            let file = header.bytes + (try AgeFormat.encryptPayload(try sealable(contents, location), fileKey: fileKey))
            let state = StoreState(
                policies: contents.clientPolicies, protection: contents.protection, headers: [header])
            try StoreFiles.commit(
                file, header: header, state: state, alsoAccepting: previous, at: location, replace: replacing)
            if passcode != nil { try FileIO.remove(location.deviceSecretPath) }
            KeyringCache(storePath: location.path).forget()
            return SecureStore(
                location: location, contents: contents, unlockedWith: .created, fileKey: fileKey, file: file,
                usesKeyring: false)
        }
    }

    /// Moves a plaintext store of earlier versions (``SecureStoreLocation/plaintextStore(environment:)``)
    /// into a new secure store: its configuration is kept, the plaintext file is removed only once
    /// the encrypted store is written (or replaced by it, when both have the same path).
    ///
    /// - Throws: the plaintext store's errors (`ConfigurationError` `storeDamaged`, …),
    ///   `SecureStoreError` `nothingToMove`, then those of
    ///   ``create(at:contents:passcode:workFactor:replacing:now:)``.
    public static func migrate(
        _ plaintext: FileConfigurationStore, into location: SecureStoreLocation, clientPolicies: ClientPolicies,
        passcode: Passcode?, workFactor: Int = defaultWorkFactor
    ) throws -> SecureStore {
        guard let record = try plaintext.load() else {
            throw SecureStoreError(.nothingToMove, source: plaintext.path, "no plaintext configuration to move")
        }
        // The move is not a contact with the server, but the block-and-wipe clock cannot start
        // earlier: the plaintext store kept no record of one.
        let contents = SecureStoreContents(
            configuration: record, clientPolicies: clientPolicies, lastServerContact: Date())
        let samePath = plaintext.path == location.path
        let store = try create(
            at: location, contents: contents, passcode: passcode, workFactor: workFactor, replacing: samePath)
        if !samePath { try plaintext.remove() }
        return store
    }

    // MARK: Opening

    /// What ``open(at:passcode:options:)`` may do besides opening.
    public struct OpenOptions: Sendable {
        /// Use and refresh the key kept in the kernel keyring, and keep the key there after a
        /// passcode unlock, for the policy's lock timeout.
        public var useKeyring = true
        /// Open even when the passcode has expired (to change it).
        public var allowExpiredPasscode = false
        /// Open even when the block-and-wipe policy blocks the store, so that the caller can
        /// contact the server and ``SecureStore/recordServerContact(at:)``; until then
        /// ``SecureStore/isBlocked(now:)`` is true and the contents must not be used. The wipe
        /// period still applies.
        public var allowBlocked = false
        /// The time the policies are judged at.
        public var now = Date()

        /// The defaults: the keyring is used, an expired passcode is refused.
        public init(
            useKeyring: Bool = true, allowExpiredPasscode: Bool = false, allowBlocked: Bool = false, now: Date = Date()
        ) {
            self.useKeyring = useKeyring
            self.allowExpiredPasscode = allowExpiredPasscode
            self.allowBlocked = allowBlocked
            self.now = now
        }
    }

    /// Opens the store: with the key kept in the keyring when it is there and fits, else with the
    /// device secret of a store without a passcode, else with `passcode`. Returns `nil` when no
    /// store is there.
    ///
    /// A wrong passcode is counted in the state file; at the policy's retry limit the store and
    /// everything beside it is deleted. After opening, the policies stored inside are applied:
    /// an expired passcode, and the block and wipe periods since the last server contact.
    ///
    /// - Throws: `SecureStoreError`: `passcodeRequired`, `wrongPasscode` (the reason says how
    ///   many tries are left), `storeWiped`, `storeBlocked`, `passcodeExpired`, `storeDamaged`,
    ///   `notAStore`; or a file error (`ConfigurationError`).
    public static func open(at location: SecureStoreLocation, passcode: Passcode?, options: OpenOptions = OpenOptions())
        throws -> SecureStore?
    {
        guard FileIO.exists(location.path) else { return nil }
        try StoreFiles.checkFolder(location)
        let cache = KeyringCache(storePath: location.path)
        return try FileIO.withExclusiveLock(location.lockPath) {
            let file = try StoreFiles.readStoreFile(location)
            let header: AgeHeader
            do {
                header = try AgeFormat.header(of: file, source: location.path)
            } catch let error as SecureStoreError where !AgeFormat.startsLikeScryptFile(file) {
                // Not a store at all, so not a damaged one either: deleting it is not ours to offer.
                throw SecureStoreError(
                    .notAStore, source: location.path, "is not a secure store: \(error.message)")
            }
            // A header activate did not write here (the owner re-encrypted the store with
            // `age -p`, or the file was damaged or swapped) may still open with the passcode.
            let state = try StoreFiles.readState(location) ?? StoreState()
            var rules = UnlockRules(state: state, headerKnown: state.accepts(header), source: location.path)
            func follow(_ outcome: UnlockRules.Outcome) throws {
                let decision = rules.decide(
                    outcome, now: options.now, allowBlocked: options.allowBlocked,
                    allowExpiredPasscode: options.allowExpiredPasscode)
                if let newState = decision.newState {
                    try StoreFiles.writeState(newState, at: location)
                    rules.state = newState
                }
                if decision.deletesStore { try StoreFiles.removeFiles(location) }
                if let refusal = decision.refusal { throw refusal }
            }

            var unlock = Unlock.passcode
            var fileKey: SymmetricKey?
            if options.useKeyring, let cached = cache.recall(timeout: state.lockTimeout),
                AgeFormat.verify(header, fileKey: cached)
            {
                fileKey = cached
                unlock = .cachedKey
            } else if rules.headerKnown, let secret = try StoreFiles.deviceSecret(location) {
                // Tried whenever the secret is there, whatever the state says (UnlockRules).
                fileKey = try AgeFormat.unwrapFileKey(header, passphrase: secret)
                unlock = .deviceSecret
                if fileKey == nil { try follow(.deviceSecretFailed) }
            }
            if fileKey == nil {
                unlock = .passcode
                let given = passcode.flatMap { $0.text.isEmpty ? nil : $0 }
                // Without a passcode the rules refuse here; with one, the try is counted first.
                try follow(given == nil ? .passcodeMissing : .passcodeGiven)
                if let given {
                    fileKey = try AgeFormat.unwrapFileKey(header, passphrase: given.bytes)
                    try follow(fileKey == nil ? .passcodeWrong : .passcodeRight)
                }
            }
            guard let fileKey, AgeFormat.verify(header, fileKey: fileKey) else {
                throw SecureStoreError(
                    .storeDamaged, source: location.path, "the store is damaged: its header's MAC does not verify")
            }
            let plaintext = try AgeFormat.decryptPayload(
                of: file, header: header, fileKey: fileKey, source: location.path)
            let contents = try SecureStoreContents(plaintext: plaintext, source: location.path)
            try follow(.opened(contents, header: header))
            if options.useKeyring && unlock != .cachedKey {
                cache.remember(fileKey, timeout: contents.clientPolicies.passcode.lockTimeout)
            }
            return SecureStore(
                location: location, contents: contents, unlockedWith: unlock, fileKey: fileKey, file: file,
                usesKeyring: options.useKeyring)
        }
    }

    // MARK: Changing

    /// Writes ``contents`` back to the store (a new payload under the same key; the passcode is
    /// unchanged). The state beside it follows the client policies in ``contents``.
    ///
    /// - Throws: `SecureStoreError`: `storeChanged` when another process wrote or deleted the
    ///   store since this value read it, `contentsTooLarge` when the contents would make a store
    ///   larger than can be read back; or a file error (`ConfigurationError`).
    public mutating func save() throws {
        try FileIO.withExclusiveLock(location.lockPath) {
            let header = try unchangedHeader()
            let file =
                header.bytes + (try AgeFormat.encryptPayload(try Self.sealable(contents, location), fileKey: fileKey))
            try FileIO.write(file, to: location.path, replace: true, mode: 0o600)
            fileDigest = Array(SHA256.hash(data: file))
            // The retry limit and lock timeout are read before the store opens: new policies must be there too.
            let current = try StoreFiles.readState(location)
            var synced = StoreState(
                policies: contents.clientPolicies, protection: contents.protection, headers: [header])
            synced.failedAttempts = current?.failedAttempts ?? 0
            if current != synced { try StoreFiles.writeState(synced, at: location) }
        }
    }

    /// Whether the block-and-wipe policy blocks the store at `now` (opened with
    /// `OpenOptions.allowBlocked`): the server must be contacted first.
    public func isBlocked(now: Date = Date()) -> Bool {
        guard let lastContact = contents.lastServerContact,
            case .block = contents.clientPolicies.blockWiping.verdict(lastContact: lastContact, now: now)
        else { return false }
        return true
    }

    /// The store as it is on disk now, read with the key this value holds: what another process
    /// wrote since is seen, and no passcode is asked again.
    ///
    /// - Throws: `SecureStoreError`: `storeChanged` when the store was deleted or sealed under
    ///   another key since (its passcode changed), `storeDamaged`; or a file error
    ///   (`ConfigurationError`).
    public func reloaded() throws -> SecureStore {
        try FileIO.withExclusiveLock(location.lockPath) {
            guard FileIO.exists(location.path) else {
                throw SecureStoreError(
                    .storeChanged, source: location.path, "the store was deleted since it was opened")
            }
            let file = try StoreFiles.readStoreFile(location)
            if Array(SHA256.hash(data: file)) == fileDigest { return self }
            let header = try AgeFormat.header(of: file, source: location.path)
            guard AgeFormat.verify(header, fileKey: fileKey) else {
                throw SecureStoreError(
                    .storeChanged, source: location.path,
                    "the store was sealed under another key since it was opened")
            }
            let plaintext = try AgeFormat.decryptPayload(
                of: file, header: header, fileKey: fileKey, source: location.path)
            let contents = try SecureStoreContents(plaintext: plaintext, source: location.path)
            return SecureStore(
                location: location, contents: contents, unlockedWith: unlockedWith, fileKey: fileKey, file: file,
                usesKeyring: usesKeyring)
        }
    }

    /// Records a successful contact with the server now (for the block-and-wipe policy) and saves.
    public mutating func recordServerContact(at date: Date = Date()) throws {
        contents.lastServerContact = date
        try save()
    }

    /// Changes the passcode (or gives a store without one its first passcode): the contents are
    /// sealed under a new file key wrapped by `newPasscode`, atomically, so that an interruption
    /// leaves either the old or the new passcode working, never neither. A key the keyring kept
    /// is replaced by the new one.
    ///
    /// - Throws: `SecureStoreError`: `passcodeRejected` when `newPasscode` breaks the policy
    ///   or is the current passcode, `storeChanged`, `contentsTooLarge`, `invalidWorkFactor`; or a
    ///   file error (`ConfigurationError`).
    public mutating func changePasscode(
        to newPasscode: Passcode, workFactor: Int = defaultWorkFactor, now: Date = Date()
    ) throws {
        try Self.checkPolicy(contents.clientPolicies.passcode, newPasscode, location)
        try Self.checkWorkFactor(workFactor)
        var changed = contents
        changed.protection = .passcode
        changed.passcodeChangedAt = now
        let newKey = AgeFormat.makeFileKey()
        try FileIO.withExclusiveLock(location.lockPath) {
            let current = try unchangedHeader()
            if contents.protection == .passcode,
                try AgeFormat.unwrapFileKey(current, passphrase: newPasscode.bytes) != nil
            {
                throw SecureStoreError(
                    .passcodeRejected, source: location.path, "the new passcode is the current one")
            }
            let header = try AgeFormat.makeHeader(
                fileKey: newKey, passphrase: newPasscode.bytes, workFactor: workFactor)
            let file =
                header.bytes + (try AgeFormat.encryptPayload(try Self.sealable(changed, location), fileKey: newKey))
            let state = StoreState(policies: changed.clientPolicies, protection: .passcode, headers: [header])
            try StoreFiles.commit(
                file, header: header, state: state, alsoAccepting: [StoreState.digest(current)], at: location,
                replace: true)
            try FileIO.remove(location.deviceSecretPath)
            fileDigest = Array(SHA256.hash(data: file))
        }
        contents = changed
        fileKey = newKey
        let cache = KeyringCache(storePath: location.path)
        cache.forget()
        if usesKeyring { cache.remember(newKey, timeout: changed.clientPolicies.passcode.lockTimeout) }
    }

    /// The passcode policy's verdict on `passcode`, as this library's error.
    static func checkPolicy(_ policy: PasscodePolicy, _ passcode: Passcode, _ location: SecureStoreLocation) throws {
        do {
            try policy.check(passcode.text, source: location.path)
        } catch let error as ConfigurationError where error.code == .passcodeRejected {
            throw SecureStoreError(.passcodeRejected, source: location.path, error.message)
        }
    }

    static func checkWorkFactor(_ workFactor: Int) throws {
        guard (1...maxWorkFactor).contains(workFactor) else {
            throw SecureStoreError(
                .invalidWorkFactor, "the scrypt work factor must be from 1 to \(maxWorkFactor), not \(workFactor)")
        }
    }

    /// The store's header, when the file on disk is still the one this value read or wrote.
    private func unchangedHeader() throws -> AgeHeader {
        guard FileIO.exists(location.path) else {
            throw SecureStoreError(.storeChanged, source: location.path, "the store was deleted since it was opened")
        }
        let file = try StoreFiles.readStoreFile(location)
        guard Array(SHA256.hash(data: file)) == fileDigest else {
            throw SecureStoreError(
                .storeChanged, source: location.path,
                "another process changed the store since it was opened")
        }
        return try AgeFormat.header(of: file, source: location.path)
    }

    /// The plaintext of `contents`, refused when it would make a store that cannot be read back.
    static func sealable(_ contents: SecureStoreContents, _ location: SecureStoreLocation) throws -> [UInt8] {
        let plaintext = contents.plaintext
        guard plaintext.count <= SecureStoreContents.maxPlaintextBytes else {
            throw SecureStoreError(
                .contentsTooLarge, source: location.path,
                """
                the store's contents would be \(plaintext.count) bytes, \
                more than the \(SecureStoreContents.maxPlaintextBytes) a store may hold; nothing was written
                """
            )
        }
        do {
            _ = try SecureStoreContents(plaintext: plaintext, source: location.path)
        } catch let error as SecureStoreError {
            throw SecureStoreError(
                .contentsTooLarge, source: location.path,
                "the store's contents could not be read back (\(error.message)); nothing was written")
        }
        return plaintext
    }

    // MARK: Values

    /// The app's value for `key`, decoded as `type`; `nil` when there is none.
    ///
    /// - Throws: a `DecodingError` when the value is not a `type`.
    public func value<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        try contents.value(type, forKey: key)
    }

    /// Sets the app's value for `key` (`nil` removes it); ``save()`` writes it.
    ///
    /// - Throws: an `EncodingError`, or `ConfigurationError` when the encoded value is not JSON this store keeps.
    public mutating func setValue<Value: Encodable>(_ value: Value?, forKey key: String) throws {
        try contents.setValue(value, forKey: key)
    }

    // MARK: Locking and deleting

    /// Forgets the key kept in the kernel keyring: the next open needs the passcode. `true` when a key was kept.
    @discardableResult
    public static func lock(at location: SecureStoreLocation) -> Bool {
        KeyringCache(storePath: location.path).forget()
    }

    /// Deletes the store, its state file, its device secret and its cached key. `false` when there was no store.
    ///
    /// - Throws: `SecureStoreError` `notAStore` when the file is not a secure store (nothing is
    ///   removed), or `ConfigurationError` when a file cannot be removed.
    @discardableResult
    public static func delete(at location: SecureStoreLocation) throws -> Bool {
        guard FileIO.exists(location.folder) else {
            lock(at: location)
            return false
        }
        // Only a store is deleted, damaged or not, and a store is known by its age header line:
        // a mistyped path removes nothing else, even where an earlier command left a lock beside it.
        if FileIO.exists(location.path) && !location.holdsSecureStore {
            throw SecureStoreError(
                .notAStore, source: location.path,
                """
                is not a secure store (it does not start with an age header and a passphrase recipient); \
                nothing was removed
                """
            )
        }
        return try FileIO.withExclusiveLock(location.lockPath) { try StoreFiles.removeFiles(location) }
    }

    /// What can be known of a store without opening it, or `nil` when there is none.
    public struct Status: Sendable, Hashable {
        /// How it is protected.
        public var protection: StoreProtection
        /// Wrong passcodes in a row so far.
        public var failedAttempts: Int
        /// Tries left before it is deleted; `nil` without a limit.
        public var triesLeft: Int?
        /// Whether its key is kept in the kernel keyring (it opens without the passcode).
        public var isUnlocked: Bool
    }

    /// The store's status without opening it; `nil` when there is no store.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` when the state file is damaged, or
    ///   `ConfigurationError` when it is unreadable.
    public static func status(at location: SecureStoreLocation) throws -> Status? {
        guard FileIO.exists(location.path) else { return nil }
        let state = try StoreFiles.readState(location) ?? StoreState()
        let cached = KeyringCache(storePath: location.path).recall(timeout: 0) != nil
        return Status(
            protection: state.protection, failedAttempts: state.failedAttempts, triesLeft: state.triesLeft,
            isUnlocked: cached)
    }
}
