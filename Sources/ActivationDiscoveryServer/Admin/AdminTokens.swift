import ActivationConfiguration
import Crypto
import Foundation

/// The bearer tokens that open the admin API (`--admin-token-file`): one per line; empty lines and
/// lines starting with `#` are skipped. Only their SHA-256 digests are kept in memory, and a token
/// presented is compared with every one of them in constant time.
public struct AdminTokens: Sendable {
    private let digests: [SHA256Digest]

    /// The fewest characters a token may have: 128 bits as hex or base64 are longer.
    public static let minimumLength = 20
    /// The most bytes a token file may have.
    public static let maxFileBytes = 64 << 10

    /// Tokens as given (for tests and callers that hold them already).
    ///
    /// - Throws: ``DiscoveryServiceError`` (`invalidTokenFile`) for no token, or one shorter than
    ///   ``minimumLength`` or holding spaces or non-ASCII characters; `source` names where they came from.
    public init(tokens: [String], source: String = "tokens") throws {
        var digests: [SHA256Digest] = []
        for (index, token) in tokens.enumerated() {
            guard token.count >= Self.minimumLength,
                token.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline })
            else {
                throw DiscoveryServiceError(
                    .invalidTokenFile, source: source, keyPath: "line \(index + 1)",
                    "a token must be at least \(Self.minimumLength) printable ASCII characters without spaces")
            }
            digests.append(SHA256.hash(data: Array(token.utf8)))
        }
        guard !digests.isEmpty else {
            throw DiscoveryServiceError(.invalidTokenFile, source: source, "no token in the file")
        }
        self.digests = digests
    }

    /// Reads the token file at `path`, which only its owner may read (like an SSH key).
    ///
    /// - Throws: `ConfigurationError` naming the file when it is unreadable, readable by others or
    ///   too large; ``DiscoveryServiceError`` `invalidTokenFile` when it holds no valid token.
    public init(file path: String) throws {
        let text = String(
            decoding: try FileIO.readSecret(path, limit: Self.maxFileBytes, what: "the admin token file"), as: UTF8.self
        )
        var tokens: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let token = line.trimmingCharacters(in: .whitespaces)
            if token.isEmpty || token.hasPrefix("#") { continue }
            tokens.append(token)
        }
        try self.init(tokens: tokens, source: path)
    }

    /// Who presented `authorization` (an `Authorization` header), as the audit names them:
    /// `token:` and the first 8 bytes of the token's SHA-256 in hex; nil for a missing or unknown token.
    package func actor(authorization: String?) -> String? {
        guard let authorization, authorization.utf8.count < 1024,
            authorization.lowercased().hasPrefix("bearer ")
        else { return nil }
        let presented = SHA256.hash(data: Array(authorization.utf8.dropFirst(7)))
        var match = false
        for digest in digests {
            // Constant time: every byte of every digest is compared, whatever matches.
            var difference: UInt8 = 0
            for (a, b) in zip(digest, presented) { difference |= a ^ b }
            match = match || difference == 0
        }
        return match ? "token:" + Hex.encode(presented.prefix(8)) : nil
    }
}
