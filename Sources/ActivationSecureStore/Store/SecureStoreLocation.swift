import ActivationConfiguration
import FileAccess
import Foundation

/// Where a secure store lies: its age file and the files beside it.
///
/// - `store.age`: the encrypted store (mode 0600);
/// - `store.age.state`: the counter of wrong passcodes and what must be known before the store is
///   open (``statePath``, mode 0600);
/// - `store.age.device-secret`: the device secret of a store without a passcode (mode 0600);
/// - `.store.age.lock`: the lock that serialises processes on the store (it stays);
/// - `.store.age.sign-in.lock`: the lock that serialises refreshes of the sign-in (it stays).
public struct SecureStoreLocation: Sendable, Hashable {
    /// The store file.
    public var path: String

    /// A store at `path` (by default ``defaultPath(environment:)``).
    public init(path: String = SecureStoreLocation.defaultPath()) {
        self.path = path
    }

    /// `$XDG_CONFIG_HOME/activate/store.age`, else `~/.config/activate/store.age`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        "\(Files.parentFolder(of: FileConfigurationStore.defaultPath(environment: environment)))/store.age"
    }

    /// The state file beside the store.
    public var statePath: String { "\(path).state" }
    /// The device secret beside a store without a passcode.
    public var deviceSecretPath: String { "\(path).device-secret" }
    /// The folder the store is in.
    public var folder: String { Files.parentFolder(of: path) }
    var lockPath: String { "\(folder)/.\(path.split(separator: "/").last.map(String.init) ?? "store").lock" }
    /// The lock that serialises refreshes of the store's sign-in, so that processes sharing the
    /// store never spend one single-use refresh token twice (it stays).
    public var signInLockPath: String {
        "\(folder)/.\(path.split(separator: "/").last.map(String.init) ?? "store").sign-in.lock"
    }

    /// A plaintext store (`FileConfigurationStore`, the form of earlier versions) to move into
    /// this store: the file at ``path`` itself when it holds one, or `configuration.json` beside a
    /// store at the default place when that holds one; `nil` when there is none. A file is taken
    /// for a plaintext store only when it has the stored form (`FileConfigurationStore.holdsStoredForm`),
    /// so that no other JSON file is ever moved or removed.
    public func plaintextStore(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> FileConfigurationStore?
    {
        let here = FileConfigurationStore(path: path)
        if here.holdsStoredForm { return here }
        let legacy = FileConfigurationStore(path: FileConfigurationStore.defaultPath(environment: environment))
        if path == Self.defaultPath(environment: environment) && legacy.holdsStoredForm { return legacy }
        return nil
    }

    /// Whether a secure store is at ``path``: a regular file that starts with the age header's
    /// whole version line and a passphrase (scrypt) recipient, as every store does, damaged or
    /// not. Only such a file is opened as a store or deleted as one.
    public var holdsSecureStore: Bool {
        guard FileIO.exists(path),
            let bytes = try? FileIO.read(path, limit: SecureStore.maxFileBytes, followLinks: false)
        else { return false }
        return AgeFormat.startsLikeScryptFile(bytes)
    }
}
