import ActivationConfiguration
import Foundation

/// The token endpoint's answer to a code, a device code or a refresh token (RFC 6749 §5.1).
/// The tokens are printable ASCII or refused: they go to a terminal and into headers as they are.
public struct TokenAnswer: Sendable, Hashable, CustomStringConvertible {
    /// `access_token`.
    public var accessToken: String
    /// `token_type`, `Bearer` (the only type accepted).
    public var tokenType: String
    /// `expires_in`, in seconds.
    public var expiresIn: Int?
    /// `refresh_token`, when issued (or rotated).
    public var refreshToken: String?
    /// `scope`, when the server says what it granted.
    public var scope: String?
    /// `id_token`, when the scope held `openid`.
    public var idToken: String?

    /// The largest answer read.
    public static let maxBytes = 64 << 10
    /// The longest token accepted.
    public static let maxTokenBytes = 16 << 10

    /// Reads a 2xx answer's body.
    ///
    /// - Throws: ``OnboardingError`` `serverUnavailable` naming `source` and the key, never a token.
    public init(json bytes: [UInt8], source: String) throws {
        let object = try AnswerReader.object(bytes, source: source, maxBytes: Self.maxBytes)
        let read = AnswerReader(object: object, source: source)
        accessToken = try read.token("access_token", required: true) ?? ""
        let type = try read.string("token_type", required: true) ?? ""
        guard type.lowercased() == "bearer" else {
            throw read.fail(
                "token_type", "is \(UntrustedText.escaped(type, maxCharacters: 40)); only Bearer tokens are used")
        }
        tokenType = "Bearer"
        expiresIn = try read.seconds("expires_in")
        refreshToken = try read.token("refresh_token")
        scope = try read.string("scope")
        idToken = try read.token("id_token")
    }

    /// Never a token.
    public var description: String {
        """
        TokenAnswer(Bearer, expires_in: \(expiresIn.map(String.init) ?? "unknown"), \
        refresh token: \(refreshToken == nil ? "none" : "issued"))
        """
    }
}

/// An OAuth error answer (RFC 6749 §5.2): `error`, and `error_description` where given. Read
/// leniently: servers answer a refused refresh with JSON, an empty body or HTML.
public struct ErrorAnswer: Sendable, Hashable {
    /// `error`, e.g. `invalid_grant`.
    public var error: String
    /// `error_description`.
    public var errorDescription: String?

    /// The error of a body, or `nil` when the body is no such JSON object.
    public init?(json bytes: [UInt8]) {
        guard bytes.count <= TokenAnswer.maxBytes,
            let value = try? JSONReader(maxBytes: TokenAnswer.maxBytes, maxDepth: 8).parse(bytes, source: "answer"),
            let object = value.objectValue, let error = object["error"]?.stringValue
        else { return nil }
        self.error = error
        self.errorDescription = object["error_description"]?.stringValue
    }

    /// `error: description`, escaped for a terminal and shortened.
    public var shown: String {
        UntrustedText.escaped(error, maxCharacters: 80)
            + (errorDescription.map { ": " + UntrustedText.escaped($0, maxCharacters: 300) } ?? "")
    }
}

/// The device authorization endpoint's answer (RFC 8628 §3.2): the code the user types at the
/// verification address, and how long and how often to ask for the tokens.
public struct DeviceAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// `device_code`: a secret, redeemed at the token endpoint.
    public var deviceCode: String
    /// `user_code`: what the user types.
    public var userCode: String
    /// `verification_uri` (or Google's `verification_url`).
    public var verificationURI: String
    /// `verification_uri_complete`, with the user code in it, when given.
    public var verificationURIComplete: String?
    /// `expires_in`, in seconds.
    public var expiresIn: Int
    /// `interval`: the seconds to wait between polls (5 when not given).
    public var interval: Int

    /// Reads a 2xx answer's body; the addresses must pass `policy` (https, allowed hosts).
    ///
    /// - Throws: ``OnboardingError`` `serverUnavailable` naming `source` and the key.
    public init(json bytes: [UInt8], source: String, policy: SecurityPolicy) throws {
        let object = try AnswerReader.object(bytes, source: source, maxBytes: TokenAnswer.maxBytes)
        let read = AnswerReader(object: object, source: source)
        deviceCode = try read.token("device_code", required: true) ?? ""
        let user = try read.string("user_code", required: true) ?? ""
        guard (1...64).contains(user.count), UntrustedText.isPlain(user) else {
            throw read.fail("user_code", "is not 1 to 64 plain characters")
        }
        userCode = user
        let uri = try read.string("verification_uri") ?? read.string("verification_url")
        guard let uri else { throw read.fail("verification_uri", "is missing") }
        verificationURI = try read.url(uri, "verification_uri", policy: policy)
        verificationURIComplete = try read.string("verification_uri_complete").map {
            try read.url($0, "verification_uri_complete", policy: policy)
        }
        guard let expires = try read.seconds("expires_in"), expires > 0 else {
            throw read.fail("expires_in", "is missing or not positive")
        }
        expiresIn = expires
        interval = max(1, try read.seconds("interval") ?? 5)
    }

    /// Never the device code.
    public var description: String {
        """
        DeviceAuthorization(user code \(userCode) at \(verificationURI), \
        expires_in: \(expiresIn), interval: \(interval))
        """
    }
}

/// An authorization server's metadata (RFC 8414, OpenID Connect Discovery): the endpoints a
/// configuration may leave out.
public struct AuthorizationServerMetadata: Sendable, Hashable {
    /// `issuer`: must be the issuer asked for, or the metadata is ignored.
    public var issuer: String
    /// `authorization_endpoint`.
    public var authorizationEndpoint: String?
    /// `token_endpoint`.
    public var tokenEndpoint: String?
    /// `device_authorization_endpoint`.
    public var deviceAuthorizationEndpoint: String?
    /// `revocation_endpoint`.
    public var revocationEndpoint: String?
    /// `code_challenge_methods_supported`.
    public var codeChallengeMethods: [String]

    /// The largest metadata document read.
    public static let maxBytes = 256 << 10

    /// Reads a metadata document; URLs are kept in canonical form, unknown members ignored.
    ///
    /// - Throws: ``OnboardingError`` `serverUnavailable` naming `source` and the member.
    public init(json bytes: [UInt8], source: String) throws {
        let object = try AnswerReader.object(bytes, source: source, maxBytes: Self.maxBytes)
        let read = AnswerReader(object: object, source: source)
        func url(_ key: String) throws -> String? {
            guard let text = try read.string(key) else { return nil }
            do {
                return try CanonicalURL(parsing: text).description
            } catch let error as ConfigurationError {
                throw read.fail(key, error.message)
            }
        }
        guard let issuer = try url("issuer") else { throw read.fail("issuer", "is missing") }
        self.issuer = issuer
        authorizationEndpoint = try url("authorization_endpoint")
        tokenEndpoint = try url("token_endpoint")
        deviceAuthorizationEndpoint = try url("device_authorization_endpoint")
        revocationEndpoint = try url("revocation_endpoint")
        switch object["code_challenge_methods_supported"] {
        case .array(let items)?: codeChallengeMethods = items.compactMap(\.stringValue)
        default: codeChallengeMethods = []
        }
    }

    /// Where an issuer's metadata is asked for, in order: OpenID Connect Discovery
    /// (`{issuer}/.well-known/openid-configuration`), then RFC 8414
    /// (`{origin}/.well-known/oauth-authorization-server{path}`).
    public static func locations(issuer: String) -> [String] {
        guard let url = try? CanonicalURL(parsing: issuer) else { return [] }
        let path = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
        let origin = "\(url.scheme)://\(url.host)\(url.port.map { ":\($0)" } ?? "")"
        return [
            origin + path + "/.well-known/openid-configuration",
            origin + "/.well-known/oauth-authorization-server" + path,
        ]
    }
}

/// The few claims of an ID token a sign-in reads: who signed in, for the store's sign-in state,
/// and the nonce, checked against the one sent. The token comes straight from the token endpoint
/// over TLS, which OpenID Connect Core §3.1.3.7 accepts in place of checking its signature;
/// nothing here is trusted for more than display and the nonce check.
struct IDTokenClaims: Sendable, Hashable {
    var subject: String?
    var nonce: String?

    /// The claims of a compact JWT's payload; `nil` when it is none.
    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decodeURL(parts[1]),
            let value = try? JSONReader(maxBytes: TokenAnswer.maxTokenBytes, maxDepth: 8).parse(
                payload, source: "id_token"),
            let object = value.objectValue
        else { return nil }
        let shown = [object["preferred_username"], object["email"], object["sub"]].lazy.compactMap { $0?.stringValue }
            .first
        subject = shown.map { UntrustedText.escaped($0, maxCharacters: 200) }
        nonce = object["nonce"]?.stringValue
    }
}

/// Reads the members of a server's JSON answer, naming the source and the member in errors.
struct AnswerReader {
    let object: ConfigurationObject
    let source: String

    static func object(_ bytes: [UInt8], source: String, maxBytes: Int) throws -> ConfigurationObject {
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: maxBytes, maxDepth: 16).parse(bytes, source: source)
        } catch let error as ConfigurationError {
            throw OnboardingError(.serverUnavailable, "\(source): the answer is not JSON (\(error.message))")
        }
        guard let object = value.objectValue else {
            throw OnboardingError(
                .serverUnavailable, "\(source): the answer is \(value.kindDescription), not a JSON object")
        }
        return object
    }

    func fail(_ key: String, _ message: String) -> OnboardingError {
        OnboardingError(.serverUnavailable, "\(source): \(key) \(message)")
    }

    func string(_ key: String, required: Bool = false) throws -> String? {
        switch object[key] {
        case nil, .null?:
            if required { throw fail(key, "is missing") }
            return nil
        case .string(let text)?: return text
        case let other?: throw fail(key, "is \(other.kindDescription), not a string")
        }
    }

    /// A token: 1 to ``TokenAnswer/maxTokenBytes`` visible ASCII characters.
    func token(_ key: String, required: Bool = false) throws -> String? {
        guard let text = try string(key, required: required) else { return nil }
        guard (1...TokenAnswer.maxTokenBytes).contains(text.utf8.count),
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw fail(key, "is not 1 to \(TokenAnswer.maxTokenBytes) visible ASCII characters")
        }
        return text
    }

    /// Whole seconds, 0 to ten years: a number, or a string of digits as some servers send.
    func seconds(_ key: String) throws -> Int? {
        let number: Int?
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: number = value
        case .string(let text)?
        where !text.isEmpty && text.count <= 12 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber):
            number = Int(text)
        case .number(let value)? where value.isFinite && value >= 0 && value < 1e10: number = Int(value)
        default: number = nil
        }
        guard let number, (0...315_360_000).contains(number) else { throw fail(key, "is not a number of seconds") }
        return number
    }

    func url(_ text: String, _ key: String, policy: SecurityPolicy) throws -> String {
        do {
            try policy.check(url: text, source: source, path: key)
            return try CanonicalURL(parsing: text).description
        } catch let error as ConfigurationError {
            throw fail(key, error.message)
        }
    }
}
