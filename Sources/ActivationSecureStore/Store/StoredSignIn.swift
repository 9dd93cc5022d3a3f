import ActivationConfiguration
import Foundation

/// The OAuth 2.0 session a sign-in left in the store: the tokens, when the access token expires,
/// and where and for which client to refresh and revoke them. Kept only inside the store, never
/// anywhere else; ``description`` never shows a token.
public struct StoredSignIn: Sendable, Hashable, CustomStringConvertible {
    /// The grant the tokens were first obtained with: `authorization_code`, or
    /// `urn:ietf:params:oauth:grant-type:device_code`.
    public var grant: String
    /// The access token.
    public var accessToken: String
    /// The token type, `Bearer` for every server we know.
    public var tokenType: String
    /// When the access token expires, counted from when its request was sent; `nil` when the
    /// server did not say.
    public var expiresAt: Date?
    /// The refresh token, when the server issued one; replaced by each rotation.
    public var refreshToken: String?
    /// The scope the server granted (or, when it did not say, the one asked for).
    public var scope: String?
    /// Where tokens are refreshed.
    public var tokenEndpoint: String
    /// Where tokens are revoked on sign-out, when known.
    public var revocationEndpoint: String?
    /// The client the tokens were issued to.
    public var clientID: String
    /// The authorization server's issuer identifier, when known.
    public var issuer: String?
    /// Who signed in, where the server said so (the ID token's `preferred_username`, `email` or `sub`).
    public var subject: String?
    /// When the user signed in.
    public var signedInAt: Date
    /// When the tokens were last refreshed.
    public var refreshedAt: Date?

    /// A session; everything but the tokens, the endpoint and the client is optional.
    public init(
        grant: String, accessToken: String, tokenType: String = "Bearer", expiresAt: Date? = nil,
        refreshToken: String? = nil,
        scope: String? = nil, tokenEndpoint: String, revocationEndpoint: String? = nil, clientID: String,
        issuer: String? = nil,
        subject: String? = nil, signedInAt: Date = Date(), refreshedAt: Date? = nil
    ) {
        self.grant = grant
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.scope = scope
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.clientID = clientID
        self.issuer = issuer
        self.subject = subject
        self.signedInAt = signedInAt
        self.refreshedAt = refreshedAt
    }

    /// Whether the access token is still valid for at least `margin` at `now` (a token without
    /// an expiry counts as valid).
    public func isValid(for margin: Duration = .zero, at now: Date = Date()) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) >= Double(margin.components.seconds) + Double(
            margin.components.attoseconds) / 1e18
    }

    /// Never a token: `client app, expires 2026-11-27T10:00:00Z, refresh token kept`.
    public var description: String {
        var parts = ["client \(clientID)"]
        if let subject { parts.append("subject \(subject)") }
        if let expiresAt { parts.append("expires \(expiresAt.formatted(.iso8601))") }
        parts.append(refreshToken == nil ? "no refresh token" : "refresh token kept")
        return parts.joined(separator: ", ")
    }

    var value: ConfigurationValue {
        var object: ConfigurationObject = [
            "grant": .string(grant), "accessToken": .string(accessToken), "tokenType": .string(tokenType),
            "tokenEndpoint": .string(tokenEndpoint), "clientID": .string(clientID),
            "signedInAt": .string(signedInAt.formatted(.iso8601)),
        ]
        if let expiresAt { object["expiresAt"] = .string(expiresAt.formatted(.iso8601)) }
        if let refreshToken { object["refreshToken"] = .string(refreshToken) }
        if let scope { object["scope"] = .string(scope) }
        if let revocationEndpoint { object["revocationEndpoint"] = .string(revocationEndpoint) }
        if let issuer { object["issuer"] = .string(issuer) }
        if let subject { object["subject"] = .string(subject) }
        if let refreshedAt { object["refreshedAt"] = .string(refreshedAt.formatted(.iso8601)) }
        return .object(object)
    }

    init(from value: ConfigurationValue, _ read: ContentsReader) throws {
        let object = try read.object(value, "signIn")
        func required(_ key: String) throws -> String {
            guard let text = try read.string(object, key, in: "signIn") else {
                throw read.damaged("signIn.\(key)", "is missing")
            }
            return text
        }
        grant = try required("grant")
        accessToken = try required("accessToken")
        tokenType = try read.string(object, "tokenType", in: "signIn") ?? "Bearer"
        tokenEndpoint = try required("tokenEndpoint")
        clientID = try required("clientID")
        refreshToken = try read.string(object, "refreshToken", in: "signIn")
        scope = try read.string(object, "scope", in: "signIn")
        revocationEndpoint = try read.string(object, "revocationEndpoint", in: "signIn")
        issuer = try read.string(object, "issuer", in: "signIn")
        subject = try read.string(object, "subject", in: "signIn")
        expiresAt = try read.date(object, "expiresAt", in: "signIn")
        refreshedAt = try read.date(object, "refreshedAt", in: "signIn")
        guard let signedIn = try read.date(object, "signedInAt", in: "signIn") else {
            throw read.damaged("signIn.signedInAt", "is missing")
        }
        signedInAt = signedIn
    }
}
