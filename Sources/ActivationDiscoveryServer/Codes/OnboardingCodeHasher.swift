import ActivationConfiguration
import Crypto
import Foundation

/// How a discovery service keeps onboarding codes: only as HMAC-SHA-256 under a server secret, so
/// that a copy of its database holds no usable code (`discovery-service.md`, "Storage").
///
/// The secret lives in a file of its own (`--secret-file`), made with 32 random bytes and mode
/// 0600 at first start, and read only while no one but its owner can read or change it.
public struct OnboardingCodeHasher: Sendable {
    private let key: SymmetricKey

    /// The fewest secret bytes accepted: HMAC-SHA-256's block of security.
    public static let minimumSecretBytes = 32

    /// A hasher keyed with `secret` (at least ``minimumSecretBytes`` bytes).
    ///
    /// - Throws: ``DiscoveryServiceError`` (`invalidSecret`) for a shorter secret.
    public init(secret: [UInt8], source: String = "secret") throws {
        guard secret.count >= Self.minimumSecretBytes else {
            throw DiscoveryServiceError(
                .invalidSecret, source: source,
                "the secret holds \(secret.count) bytes; at least \(Self.minimumSecretBytes) are needed")
        }
        key = SymmetricKey(data: secret)
    }

    /// The stored form of `code`: HMAC-SHA-256 of its canonical form.
    public func hash(_ code: OnboardingCode) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(code.canonical.utf8), using: key))
    }

    /// The hasher of the secret in `path`, which is made (32 random bytes, base64, mode 0600) when
    /// there is no file. Two instances starting at once read the same secret: the file appears
    /// whole or not at all, and the one that finds it made reads it.
    ///
    /// - Throws: `ConfigurationError` `fileUnreadable` when the file is a link, belongs to another
    ///   user, or may be read or changed by others; ``DiscoveryServiceError`` `invalidSecret` when
    ///   it holds no base64 secret of 32 bytes or more.
    public static func loadOrCreate(secretFile path: String) throws -> OnboardingCodeHasher {
        if !FileIO.exists(path) {
            let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            do {
                try FileIO.write(Array((Base64.encode(secret) + "\n").utf8), to: path, replace: false, mode: 0o600)
            } catch let error as ConfigurationError where error.code == .fileExists {
                // Another instance made it first: use theirs.
            }
        }
        let text = String(decoding: try FileIO.readSecret(path, limit: 4096, what: "the code secret"), as: UTF8.self)
        guard let secret = Base64.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw DiscoveryServiceError(.invalidSecret, source: path, "the code secret is not base64")
        }
        return try OnboardingCodeHasher(secret: secret, source: path)
    }
}
