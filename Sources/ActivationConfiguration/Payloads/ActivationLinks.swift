import Foundation

/// Activation links that carry a configuration in their query, mapped to a document.
///
/// - MDK: `<scheme>://?AppId=…&ClientId=…&ServerUrl=…&AuthorizationEndpointUrl=…&RedirectUrl=…&TokenUrl=…`;
///   MDK and Work Zone onboarding links may name the server `SapCloudPlatformEndpoint` instead of
///   `ServerUrl` (both at once must agree)
/// - SAP Mobile Cards: `com.sap.content2go://configure?serverURL=…&oauthClientId=…&oauthEndpoint=…`
///
/// Decisions where the public record is silent: parameter names match ignoring case; a Mobile
/// Cards link gets the app id `com.sap.content2go`, authorize and token endpoints
/// `<oauthEndpoint>/authorize` and `<oauthEndpoint>/token`, and its server URL as redirect URL.
public enum ActivationLink {
    /// The link styles recognised.
    public enum Style: String, Sendable, Hashable {
        /// A Mobile Development Kit onboarding link.
        case mdk = "mdk-link"
        /// A Mobile Cards onboarding link.
        case mobileCards = "mobile-cards-link"
    }

    /// The style of `text`, or `nil` when it is no activation link.
    public static func style(of text: String) -> Style? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme != "http", scheme != "https"
        else { return nil }
        let names = Set((components.queryItems ?? []).map { $0.name.lowercased() })
        if scheme == "com.sap.content2go" || (names.contains("serverurl") && names.contains("oauthclientid")) {
            return .mobileCards
        }
        if names.contains("serverurl") || names.contains("sapcloudplatformendpoint"),
            names.contains("clientid") || names.contains("appid")
        {
            return .mdk
        }
        return nil
    }

    /// Maps a link to a configuration value (then read like any document).
    ///
    /// - Throws: ``ConfigurationError`` naming the missing or empty parameter.
    public static func document(from text: String, style: Style, source: String) throws -> ConfigurationValue {
        let items = URLComponents(string: text)?.queryItems ?? []
        func parameter(_ name: String) throws -> String {
            guard let value = items.first(where: { $0.name.lowercased() == name.lowercased() })?.value, !value.isEmpty
            else {
                throw ConfigurationError(.missingKey, source: source, "link parameter \(name): missing")
            }
            return value
        }
        let server: String
        let appID: String
        let clientID: String
        let authorize: String
        let token: String
        let redirect: String
        switch style {
        case .mdk:
            let named = try ["ServerUrl", "SapCloudPlatformEndpoint"].compactMap { name in
                items.contains { $0.name.lowercased() == name.lowercased() } ? try parameter(name) : nil
            }
            guard let first = named.first else {
                throw ConfigurationError(.missingKey, source: source, "link parameter ServerUrl: missing")
            }
            guard Set(named).count == 1 else {
                throw ConfigurationError(
                    .invalidValue, source: source,
                    "link parameters ServerUrl and SapCloudPlatformEndpoint name different servers")
            }
            server = first
            appID = try parameter("AppId")
            clientID = try parameter("ClientId")
            authorize = try parameter("AuthorizationEndpointUrl")
            token = try parameter("TokenUrl")
            redirect = try parameter("RedirectUrl")
        case .mobileCards:
            server = try parameter("serverURL")
            appID = "com.sap.content2go"
            clientID = try parameter("oauthClientId")
            var endpoint = try parameter("oauthEndpoint")
            while endpoint.hasSuffix("/") { endpoint.removeLast() }
            authorize = endpoint + "/authorize"
            token = endpoint + "/token"
            redirect = server
        }
        let client: ConfigurationObject = [
            "clientID": .string(clientID), "redirectURL": .string(redirect), "grantType": .string("authorization_code"),
        ]
        let config: ConfigurationObject = [
            "oauth2.authorizationEndpoint": .string(authorize), "oauth2.tokenEndpoint": .string(token),
            "oauth2.clients": .array([.object(client)]),
        ]
        return .object([
            "serviceURL": .string(server), "appID": .string(appID),
            "auth": .array([
                .object(["type": .string("oauth2"), "requireOtp": .bool(false), "config": .object(config)])
            ]),
        ])
    }
}
