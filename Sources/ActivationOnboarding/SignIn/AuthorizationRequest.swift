import ActivationConfiguration

/// One authorization-code sign-in's request (RFC 6749 §4.1.1 with PKCE, RFC 7636): the address
/// the browser opens, and the secrets the redirect is checked against and the code redeemed
/// with. A new request for every sign-in; nothing of it outlives the sign-in.
public struct AuthorizationRequest: Sendable, CustomStringConvertible {
    /// The `state`: 256 random bits, compared in constant time with the redirect's.
    public let state: String
    /// The `nonce`, sent when the scope holds `openid`; the ID token must carry it back.
    public let nonce: String?
    /// The PKCE proof key; its verifier redeems the code.
    public let proofKey: ProofKey
    /// The `redirect_uri` sent: the client's, with the port the listener took.
    public let redirectURI: String
    /// The scope asked for.
    public let scope: String?
    /// The address the browser opens.
    public let url: String

    /// A fresh request to `endpoints`' authorization endpoint, redirecting to `redirectURI`.
    public init(endpoints: OAuth2Endpoints, redirectURI: String) {
        state = RandomToken.make()
        proofKey = ProofKey()
        scope = endpoints.client.scope
        nonce = Self.asksForOpenID(scope) ? RandomToken.make() : nil
        self.redirectURI = redirectURI
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", endpoints.client.clientID), ("redirect_uri", redirectURI),
        ]
        if let scope { fields.append(("scope", scope)) }
        fields += [
            ("state", state), ("code_challenge", proofKey.challenge), ("code_challenge_method", ProofKey.method),
        ]
        if let nonce { fields.append(("nonce", nonce)) }
        let separator = endpoints.authorization.contains("?") ? "&" : "?"
        url = endpoints.authorization + separator + FormEncoding.encode(fields)
    }

    /// Whether `scope` holds `openid`, so that an ID token comes back and a nonce goes out.
    static func asksForOpenID(_ scope: String?) -> Bool {
        scope?.split(separator: " ").contains("openid") ?? false
    }

    /// The address only up to the query: the secrets stay out of logs.
    public var description: String {
        "AuthorizationRequest(\(url.prefix { $0 != "?" }), redirect_uri: \(redirectURI))"
    }
}

/// What the redirect back from the authorization server carries (RFC 6749 §4.1.2), read from the
/// listener's request or from the address the user pastes.
public struct AuthorizationCallback: Sendable, Hashable, CustomStringConvertible {
    /// The authorization code, when the user allowed the sign-in.
    public var code: String?
    /// `state`.
    public var state: String?
    /// `error`, when the server refused (`access_denied`, …).
    public var error: String?
    /// `error_description`.
    public var errorDescription: String?
    /// `iss` (RFC 9207), when the server sends it.
    public var issuer: String?

    /// The longest query read.
    public static let maxQueryBytes = 8192
    /// The most parameters read.
    public static let maxFields = 32

    /// Reads a redirect's query (without `?`). A parameter given twice is refused (RFC 6749 §3.1).
    ///
    /// - Throws: ``OnboardingError`` `signInFailed` naming what is wrong, never a value.
    public init(query: Substring) throws {
        guard query.utf8.count <= Self.maxQueryBytes else {
            throw OnboardingError(.signInFailed, "the redirect's query is longer than \(Self.maxQueryBytes) bytes")
        }
        let fields: [(name: String, value: String)]
        do {
            fields = try FormEncoding.decode(query, maxFields: Self.maxFields)
        } catch {
            throw OnboardingError(.signInFailed, "the redirect's query is malformed: \(error.why)")
        }
        var seen = Set<String>()
        for field in fields where ["code", "state", "error", "error_description", "iss"].contains(field.name) {
            guard seen.insert(field.name).inserted else {
                throw OnboardingError(.signInFailed, "the redirect carries \(field.name) more than once")
            }
            switch field.name {
            case "code": code = field.value
            case "state": state = field.value
            case "error": error = field.value
            case "error_description": errorDescription = field.value
            default: issuer = field.value
            }
        }
        if code == nil && error == nil {
            throw OnboardingError(.signInFailed, "the redirect carries neither a code nor an error")
        }
    }

    /// Reads the address the browser ended on, pasted by the user: it must start with
    /// `redirectURI` (up to its query) and carry the redirect's parameters in its query.
    ///
    /// - Throws: ``OnboardingError`` `signInFailed` naming what is wrong.
    public init(address: String, redirectURI: String) throws {
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= CanonicalURL.maxLength + Self.maxQueryBytes else {
            throw OnboardingError(.signInFailed, "the pasted address is too long")
        }
        let expected = redirectURI.prefix { $0 != "?" && $0 != "#" }
        // The fragment is cut off: the code comes in the query of the authorization-code flow.
        let withoutFragment = trimmed.prefix { $0 != "#" }
        guard let mark = withoutFragment.firstIndex(of: "?"), withoutFragment[..<mark] == expected else {
            let shown = UntrustedText.escaped(expected, maxCharacters: 200)
            throw OnboardingError(
                .signInFailed,
                "the pasted address does not start with the redirect address \(shown)"
            )
        }
        try self.init(query: withoutFragment[withoutFragment.index(after: mark)...])
    }

    /// What to do with this callback for `request`.
    ///
    /// - Parameters:
    ///   - request: the sign-in's request, whose state the callback must carry.
    ///   - expectedIssuer: the issuer the sign-in expects, when known.
    public func verdict(for request: AuthorizationRequest, issuer expectedIssuer: String?) -> Verdict {
        // Without the right state a callback proves nothing, an error included: a stale tab or
        // another local process must not be able to end the sign-in.
        guard let state, RandomToken.equal(state, request.state) else { return .wrongState }
        if let issuer, let expectedIssuer, issuer != expectedIssuer {
            let shown = UntrustedText.escaped(issuer, maxCharacters: 200)
            return .failed(
                OnboardingError(
                    .signInFailed,
                    "the redirect names the issuer \(shown), not \(expectedIssuer): the code came from another server"
                ))
        }
        if let error {
            let reason = errorDescription.map { ": \(UntrustedText.escaped($0, maxCharacters: 300))" } ?? ""
            return .failed(
                OnboardingError(
                    .signInFailed,
                    "the server ended the sign-in with \(UntrustedText.escaped(error, maxCharacters: 80))\(reason)"))
        }
        guard let code, !code.isEmpty else {
            return .failed(OnboardingError(.signInFailed, "the redirect carries an empty code"))
        }
        return .code(code)
    }

    /// Never the code: `AuthorizationCallback(code: (set), error: access_denied)`.
    public var description: String {
        """
        AuthorizationCallback(code: \(code == nil ? "none" : "(set)"), \
        error: \(error.map { UntrustedText.escaped($0, maxCharacters: 80) } ?? "none"))
        """
    }

    /// What a callback means for the sign-in.
    public enum Verdict: Sendable, Hashable {
        /// The code to redeem.
        case code(String)
        /// A missing or wrong `state`: answered 400; the sign-in goes on waiting.
        case wrongState
        /// The sign-in ends with this error.
        case failed(OnboardingError)
    }
}
