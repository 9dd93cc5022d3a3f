import Crypto
import CryptoExtras
import Foundation

// The cases are the JOSE names (RFC 7518, RFC 8037), as they appear in JWS headers.
// swift-format-ignore: AlwaysUseLowerCamelCase
/// Signature algorithms accepted for signed configuration codes, by their JOSE names. A JWS may use
/// any of them (`none` and everything else are refused); an `AC1:` code uses ``EdDSA`` or ``ES256``.
public enum SignatureAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS only).
    case RS256
    /// RSASSA-PKCS1-v1_5 with SHA-384 (JWS only).
    case RS384
    /// RSASSA-PKCS1-v1_5 with SHA-512 (JWS only).
    case RS512
    /// ECDSA on P-256 with SHA-256 (JWS, and COSE algorithm −7 in `AC1:` codes).
    case ES256
    /// ECDSA on P-384 with SHA-384 (JWS only).
    case ES384
    /// ECDSA on P-521 with SHA-512 (JWS only).
    case ES512
    /// Ed25519 (RFC 8037 for JWS, COSE algorithm −8).
    case EdDSA
}

/// A public key that verifies signed payloads: Ed25519, EC P-256/P-384/P-521 or RSA (2048 bits or
/// more), read from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) document.
public struct VerificationKey: Sendable, Hashable {
    enum Backing: Sendable {
        case ed25519(Curve25519.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    let backing: Backing
    /// The key's SubjectPublicKeyInfo DER bytes.
    public let derRepresentation: [UInt8]
    /// The key id as the 8 bytes an `AC1:` code carries (computed once: every signed code names it).
    public let keyIDBytes: [UInt8]

    init(_ backing: Backing) {
        self.backing = backing
        derRepresentation =
            switch backing {
            case .ed25519(let key): Array(key.derRepresentation)
            case .p256(let key): Array(key.derRepresentation)
            case .p384(let key): Array(key.derRepresentation)
            case .p521(let key): Array(key.derRepresentation)
            case .rsa(let key): Array(key.derRepresentation)
            }
        keyIDBytes = Array(SHA256.hash(data: derRepresentation).prefix(8))
    }

    /// Reads a PEM public key.
    ///
    /// - Parameters:
    ///   - pem: the PEM document of a public key.
    ///   - source: names the key file in errors.
    /// - Throws: ``ConfigurationError`` (`invalidKey`) saying what the file holds instead (a private
    ///   key, an RSA-1024 key, a certificate, …); the reason never contains key material.
    public init(pem: String, source: String = "public key") throws {
        // swift-crypto's Curve25519 reader does not check the algorithm: an X25519 key would pass.
        if PEMKeyKind(pem: pem).isEd25519, let key = try? Curve25519.Signing.PublicKey(pemRepresentation: pem) {
            self.init(.ed25519(key))
        } else if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self.init(.p256(key))
        } else if let key = try? P384.Signing.PublicKey(pemRepresentation: pem) {
            self.init(.p384(key))
        } else if let key = try? P521.Signing.PublicKey(pemRepresentation: pem) {
            self.init(.p521(key))
        } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) {
            self.init(.rsa(key))
        } else {
            let found = PEMKeyKind(pem: pem)
            throw ConfigurationError(
                .invalidKey, source: source, "\(found) is not a usable public key (accepted: \(PEMKeyKind.accepted))")
        }
    }

    /// Reads a public key from its SubjectPublicKeyInfo DER bytes.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidKey`).
    public init(derRepresentation: [UInt8], source: String = "public key") throws {
        try self.init(pem: PEMKeyKind.pem(label: "PUBLIC KEY", der: derRepresentation), source: source)
    }

    /// The key as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) document.
    public var pemRepresentation: String { PEMKeyKind.pem(label: "PUBLIC KEY", der: derRepresentation) }

    /// The algorithm this key verifies in an `AC1:` code, or `nil` when the format does not allow
    /// the key (only Ed25519 and P-256 keys sign `AC1:` codes).
    public var activationCodeAlgorithm: SignatureAlgorithm? {
        switch backing {
        case .ed25519: .EdDSA
        case .p256: .ES256
        default: nil
        }
    }

    /// What the key is, e.g. `Ed25519`, `EC P-256`, `RSA-3072`.
    public var kind: String {
        switch backing {
        case .ed25519: "Ed25519"
        case .p256: "EC P-256"
        case .p384: "EC P-384"
        case .p521: "EC P-521"
        case .rsa(let key): "RSA-\(key.keySizeInBits)"
        }
    }

    /// Whether this key can verify `algorithm`.
    public func supports(_ algorithm: SignatureAlgorithm) -> Bool {
        switch (backing, algorithm) {
        case (.ed25519, .EdDSA), (.p256, .ES256), (.p384, .ES384), (.p521, .ES512), (.rsa, .RS256), (.rsa, .RS384),
            (.rsa, .RS512):
            true
        default: false
        }
    }

    /// The key id: the first 8 bytes of SHA-256 over the SubjectPublicKeyInfo DER, as 16
    /// lower-case hex digits. It names the key in trust lists, `AC1:` codes (`kid`) and logs.
    public var keyID: String { Hex.encode(keyIDBytes) }

    /// The same as ``keyID``: a short, safe name for logs.
    public var fingerprint: String { keyID }

    /// Verifies a signature (raw `r‖s` for EC, PKCS #1 v1.5 for RSA, RFC 8032 for Ed25519) over
    /// `message`.
    func verify(_ signature: [UInt8], for message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        switch (backing, algorithm) {
        case (.ed25519(let key), .EdDSA):
            return key.isValidSignature(signature, for: message)
        case (.p256(let key), .ES256):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA256.hash(data: message))
        case (.p384(let key), .ES384):
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA384.hash(data: message))
        case (.p521(let key), .ES512):
            guard let parsed = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: SHA512.hash(data: message))
        case (.rsa(let key), .RS256):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message),
                padding: .insecurePKCS1v1_5)
        case (.rsa(let key), .RS384):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA384.hash(data: message),
                padding: .insecurePKCS1v1_5)
        case (.rsa(let key), .RS512):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA512.hash(data: message),
                padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    public static func == (lhs: VerificationKey, rhs: VerificationKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
}

/// A private key that signs configuration codes: Ed25519 (EdDSA), EC P-256/P-384/P-521
/// (ES256/384/512) or RSA of 2048 bits or more (RS256), from a PEM file (PKCS #8, SEC 1 or
/// PKCS #1). Its description never shows key material.
public struct SigningKey: Sendable, CustomStringConvertible {
    enum Backing: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let backing: Backing
    /// The matching public key (made once: every signed code names its key id).
    public let verificationKey: VerificationKey

    /// The kinds of key `activate keys create` makes.
    public enum Kind: String, Sendable, CaseIterable {
        /// Ed25519: the smallest signatures and keys; the default.
        case ed25519
        /// EC P-256 (ES256), for signers that need a NIST curve.
        case p256
    }

    /// Makes a new random key.
    public init(generating kind: Kind) {
        switch kind {
        case .ed25519: backing = .ed25519(Curve25519.Signing.PrivateKey())
        case .p256: backing = .p256(P256.Signing.PrivateKey())
        }
        verificationKey = Self.publicKey(of: backing)
    }

    /// Reads a PEM private key.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidKey`) saying what the file holds instead (a public
    ///   key, an RSA-1024 key, an encrypted key, …); the reason never contains key material.
    public init(pem: String, source: String = "private key") throws {
        if PEMKeyKind(pem: pem).isEd25519, let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .ed25519(key)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p256(key)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p384(key)
        } else if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p521(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .rsa(key)
        } else {
            let found = PEMKeyKind(pem: pem)
            throw ConfigurationError(
                .invalidKey, source: source, "\(found) is not a usable private key (accepted: \(PEMKeyKind.accepted))")
        }
        verificationKey = Self.publicKey(of: backing)
    }

    /// The JWS algorithm this key signs with.
    public var algorithm: SignatureAlgorithm {
        switch backing {
        case .ed25519: .EdDSA
        case .p256: .ES256
        case .p384: .ES384
        case .p521: .ES512
        case .rsa: .RS256
        }
    }

    private static func publicKey(of backing: Backing) -> VerificationKey {
        switch backing {
        case .ed25519(let key): VerificationKey(.ed25519(key.publicKey))
        case .p256(let key): VerificationKey(.p256(key.publicKey))
        case .p384(let key): VerificationKey(.p384(key.publicKey))
        case .p521(let key): VerificationKey(.p521(key.publicKey))
        case .rsa(let key): VerificationKey(.rsa(key.publicKey))
        }
    }

    /// The key id of the public key (``VerificationKey/keyID``).
    public var keyID: String { verificationKey.keyID }

    /// The key as a PKCS #8 PEM `PRIVATE KEY` document. Secret: write it only to a private file.
    public var pemRepresentation: String {
        switch backing {
        case .ed25519(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        case .p384(let key): key.pemRepresentation
        case .p521(let key): key.pemRepresentation
        case .rsa(let key): key.pemRepresentation
        }
    }

    /// Signs `message` (raw `r‖s` for EC, PKCS #1 v1.5 for RSA, RFC 8032 for Ed25519).
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch backing {
        case .ed25519(let key): return Array(try key.signature(for: message))
        case .p256(let key): return Array(try key.signature(for: SHA256.hash(data: message)).rawRepresentation)
        case .p384(let key): return Array(try key.signature(for: SHA384.hash(data: message)).rawRepresentation)
        case .p521(let key): return Array(try key.signature(for: SHA512.hash(data: message)).rawRepresentation)
        case .rsa(let key):
            return Array(
                try key.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    public var description: String { "SigningKey(\(algorithm.rawValue), \(keyID))" }
}
