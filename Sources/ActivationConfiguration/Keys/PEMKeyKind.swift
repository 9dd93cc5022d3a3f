import CryptoExtras
import Foundation

/// What a PEM file holds, told well enough for an error message to say what was found instead of
/// the key that was needed ("an RSA-1024 private key", "an Ed25519 public key", "a certificate").
/// Only for messages: keys are parsed by swift-crypto, never by this type.
enum PEMKeyKind: Equatable, CustomStringConvertible {
    case key(algorithm: String, isPrivate: Bool)
    case certificate
    case encryptedPrivateKey
    case openSSHPrivateKey
    case unknownPEM(label: String)
    case none

    /// The kinds a signing or verification key may be, for messages.
    static let accepted = "Ed25519, EC P-256/384/521, or RSA of 2048 bits or more"

    init(pem: String) {
        guard let begin = pem.range(of: "-----BEGIN "), let labelEnd = pem[begin.upperBound...].range(of: "-----")
        else {
            self = .none
            return
        }
        let label = String(pem[begin.upperBound..<labelEnd.lowerBound])
        let body = pem[labelEnd.upperBound...].prefix { $0 != "-" }.filter { !$0.isWhitespace }
        let der = Base64.decode(body) ?? []
        switch label {
        case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE": self = .certificate
        case "ENCRYPTED PRIVATE KEY": self = .encryptedPrivateKey
        case "OPENSSH PRIVATE KEY": self = .openSSHPrivateKey
        case "RSA PRIVATE KEY", "RSA PUBLIC KEY":
            self = .key(
                algorithm: Self.rsaName(pem: pem, isPrivate: label.contains("PRIVATE")),
                isPrivate: label.contains("PRIVATE"))
        case "EC PRIVATE KEY":
            self = .key(algorithm: Self.algorithm(in: der, pem: pem, isPrivate: true) ?? "EC", isPrivate: true)
        case "PRIVATE KEY", "PUBLIC KEY":
            let isPrivate = label == "PRIVATE KEY"
            self = .key(
                algorithm: Self.algorithm(in: der, pem: pem, isPrivate: isPrivate) ?? "unrecognised",
                isPrivate: isPrivate)
        default: self = .unknownPEM(label: String(label.prefix(40)))
        }
    }

    /// Whether the document is an Ed25519 key (by its algorithm identifier).
    var isEd25519: Bool {
        if case .key("Ed25519", _) = self { true } else { false }
    }

    var isPrivate: Bool {
        switch self {
        case .key(_, let isPrivate): isPrivate
        case .encryptedPrivateKey, .openSSHPrivateKey: true
        default: false
        }
    }

    var description: String {
        switch self {
        case .key(let algorithm, let isPrivate):
            // "an RSA", "an X25519", "an EC", "an unrecognised"; "a DSA".
            let article = algorithm.first.map { "AEFHILMNORSXaeiou".contains($0) } == true ? "an" : "a"
            return "\(article) \(algorithm) \(isPrivate ? "private" : "public") key"
        case .certificate: return "a certificate (give its public key: openssl x509 -pubkey -noout)"
        case .encryptedPrivateKey:
            return "a password-protected private key (decrypt it: openssl pkey -in KEY.pem -out plain.pem)"
        case .openSSHPrivateKey: return "an OpenSSH private key (convert it: ssh-keygen -p -m PKCS8 -f KEY)"
        case .unknownPEM(let label): return "a PEM \"\(label)\" document"
        case .none: return "no PEM key (no -----BEGIN line)"
        }
    }

    /// The algorithm OIDs in a key's DER (as encoded, tag and length included).
    private static let oids: [(name: String, bytes: [UInt8])] = [
        ("Ed25519", [0x06, 0x03, 0x2B, 0x65, 0x70]),
        ("Ed448", [0x06, 0x03, 0x2B, 0x65, 0x71]),
        ("X25519 (key agreement, not signing)", [0x06, 0x03, 0x2B, 0x65, 0x6E]),
        ("X448 (key agreement, not signing)", [0x06, 0x03, 0x2B, 0x65, 0x6F]),
        ("EC P-256", [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]),
        ("EC P-384", [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]),
        ("EC P-521", [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]),
        ("EC secp256k1", [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x0A]),
        ("RSA-PSS", [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]),
        ("RSA", [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]),
        ("DSA", [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x01]),
        ("EC", [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]),
    ]

    private static func algorithm(in der: [UInt8], pem: String, isPrivate: Bool) -> String? {
        guard let name = oids.first(where: { contains(der, $0.bytes) })?.name else { return nil }
        return name == "RSA" ? rsaName(pem: pem, isPrivate: isPrivate) : name
    }

    /// `RSA-1024` and the like: swift-crypto reads short RSA keys only through its `unsafe` initialisers.
    private static func rsaName(pem: String, isPrivate: Bool) -> String {
        let bits =
            isPrivate
            ? (try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem))?.keySizeInBits
            : (try? _RSA.Signing.PublicKey(unsafePEMRepresentation: pem))?.keySizeInBits
        return bits.map { "RSA-\($0)" } ?? "RSA"
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    /// A PEM document: the label, the DER in 64-character base64 lines.
    static func pem(label: String, der: [UInt8]) -> String {
        let base64 = Base64.encodeLines(der)
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
