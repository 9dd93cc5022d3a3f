import ActivationConfiguration
import Crypto

/// A PKCE proof key (RFC 7636) with the S256 method: a fresh random verifier that stays on this
/// device, and its SHA-256 challenge that goes with the authorization request. Sent whatever
/// the server says it supports: servers ignore parameters they do not know.
public struct ProofKey: Sendable, Hashable, CustomStringConvertible {
    /// The verifier: 43 characters, 256 random bits in URL-safe base64. A secret until the code
    /// is redeemed; ``description`` hides it.
    public let verifier: String

    /// The only method sent.
    public static let method = "S256"

    /// A fresh proof key.
    public init() {
        verifier = RandomToken.make()
    }

    /// A proof key with a given verifier (RFC 7636 appendix B checks the challenge with one).
    ///
    /// - Throws: ``OnboardingError`` `signInFailed` for a verifier that is not 43 to 128 unreserved characters.
    public init(verifier: String) throws {
        guard (43...128).contains(verifier.utf8.count),
            verifier.utf8.allSatisfy({
                (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
                    || [0x2D, 0x2E, 0x5F, 0x7E].contains($0)
            })
        else {
            throw OnboardingError(.signInFailed, "a PKCE verifier is 43 to 128 unreserved characters (RFC 7636 §4.1)")
        }
        self.verifier = verifier
    }

    /// `BASE64URL(SHA256(verifier))`.
    public var challenge: String { Base64.encodeURL(SHA256.hash(data: Array(verifier.utf8))) }

    /// Never the verifier.
    public var description: String { "ProofKey(S256, challenge: \(challenge))" }
}

/// Unguessable values: `state`, `nonce`, PKCE verifiers.
enum RandomToken {
    /// `bytes` random bytes (256 bits by default, at least the 128 the contract asks for) in
    /// URL-safe base64.
    static func make(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encodeURL((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Compares two secrets in time that depends only on their lengths.
    static func equal(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
