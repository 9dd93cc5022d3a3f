import Crypto
import CryptoExtras
import Foundation

/// JWS signature algorithms accepted for signed configuration codes. `none` and everything else
/// are refused.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    case RS256, RS384, RS512, ES256, ES384, ES512
}

/// A public key that verifies signed payloads: EC P-256/P-384/P-521 or RSA (2048 bits or more),
/// read from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) document.
public struct VerificationKey: Sendable, Hashable {
    enum Backing: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    let backing: Backing
    /// The key's SubjectPublicKeyInfo DER bytes.
    public let derRepresentation: [UInt8]

    /// Reads a PEM public key.
    ///
    /// - Parameter source: names the key file in errors.
    /// - Throws: ``ConfigurationError`` (`invalidKey`); the reason never contains key material.
    public init(pem: String, source: String = "public key") throws {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            backing = .p256(key)
            derRepresentation = Array(key.derRepresentation)
        } else if let key = try? P384.Signing.PublicKey(pemRepresentation: pem) {
            backing = .p384(key)
            derRepresentation = Array(key.derRepresentation)
        } else if let key = try? P521.Signing.PublicKey(pemRepresentation: pem) {
            backing = .p521(key)
            derRepresentation = Array(key.derRepresentation)
        } else if let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) {
            backing = .rsa(key)
            derRepresentation = Array(key.derRepresentation)
        } else if pem.contains("PRIVATE KEY") {
            throw ConfigurationError(.invalidKey, "\(source): is a private key; give the public key (openssl pkey -pubout)")
        } else {
            throw ConfigurationError(.invalidKey, "\(source): not a PEM public key (EC P-256/384/521 or RSA of 2048 bits or more)")
        }
    }

    /// Reads a public key from its SubjectPublicKeyInfo DER bytes.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidKey`).
    public init(derRepresentation: [UInt8], source: String = "public key") throws {
        let base64 = Data(derRepresentation).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        try self.init(pem: "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n", source: source)
    }

    /// Whether this key can verify `algorithm`.
    public func supports(_ algorithm: JWSAlgorithm) -> Bool {
        switch (backing, algorithm) {
        case (.p256, .ES256), (.p384, .ES384), (.p521, .ES512), (.rsa, .RS256), (.rsa, .RS384), (.rsa, .RS512): true
        default: false
        }
    }

    /// The first 16 hex digits of SHA-256 over the key's DER bytes: a short, safe name for logs.
    public var fingerprint: String {
        SHA256.hash(data: derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Verifies a JWS signature (raw `r||s` for EC, PKCS #1 v1.5 for RSA) over `message`.
    func verify(_ signature: [UInt8], for message: [UInt8], algorithm: JWSAlgorithm) -> Bool {
        switch (backing, algorithm) {
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
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        case (.rsa(let key), .RS384):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5)
        case (.rsa(let key), .RS512):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA512.hash(data: message), padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    public static func == (lhs: VerificationKey, rhs: VerificationKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
}

/// A private key that signs configuration codes: EC P-256/P-384/P-521 (ES256/384/512) or RSA
/// (RS256), from a PEM file (PKCS #8, SEC 1 or PKCS #1). Its description never shows key material.
public struct SigningKey: Sendable, CustomStringConvertible {
    enum Backing: Sendable {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let backing: Backing

    /// Reads a PEM private key.
    ///
    /// - Throws: ``ConfigurationError`` (`invalidKey`); the reason never contains key material.
    public init(pem: String, source: String = "private key") throws {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p256(key)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p384(key)
        } else if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .p521(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            backing = .rsa(key)
        } else {
            throw ConfigurationError(.invalidKey, "\(source): not a PEM private key (EC P-256/384/521 or RSA of 2048 bits or more)")
        }
    }

    /// The JWS algorithm this key signs with.
    public var algorithm: JWSAlgorithm {
        switch backing {
        case .p256: .ES256
        case .p384: .ES384
        case .p521: .ES512
        case .rsa: .RS256
        }
    }

    /// The matching public key.
    public var verificationKey: VerificationKey {
        let pem: String
        switch backing {
        case .p256(let key): pem = key.publicKey.pemRepresentation
        case .p384(let key): pem = key.publicKey.pemRepresentation
        case .p521(let key): pem = key.publicKey.pemRepresentation
        case .rsa(let key): pem = key.publicKey.pemRepresentation
        }
        // A public key this type just derived always parses.
        return try! VerificationKey(pem: pem)
    }

    func sign(_ message: [UInt8]) throws -> [UInt8] {
        switch backing {
        case .p256(let key): return Array(try key.signature(for: SHA256.hash(data: message)).rawRepresentation)
        case .p384(let key): return Array(try key.signature(for: SHA384.hash(data: message)).rawRepresentation)
        case .p521(let key): return Array(try key.signature(for: SHA512.hash(data: message)).rawRepresentation)
        case .rsa(let key): return Array(try key.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    public var description: String { "SigningKey(\(algorithm.rawValue))" }
}
