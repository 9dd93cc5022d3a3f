import ActivationConfiguration
import ActivationDiscovery
import ActivationSecureStore

/// Client policies from a server, at SAP's `settingsExchange` path: from the discovery service,
/// or from the configuration's own server with the user's credentials.
enum ServerPolicies {
    /// A server to ask, and whether it gets the user's credentials: only the configuration's own
    /// server does, never the discovery service.
    struct Source: Equatable {
        var baseURL: String
        var sendsCredentials: Bool
    }

    /// Where onboarding asks, in order: the discovery service when one is given, then the
    /// configuration's server.
    static func sources(discovery: String?, document: ConfigurationDocument) -> [Source] {
        var sources: [Source] = []
        if let discovery { sources.append(Source(baseURL: discovery, sendsCredentials: false)) }
        sources.append(Source(baseURL: document.baseURL, sendsCredentials: true))
        return sources
    }

    /// The server a store's policies came from, asked again on refresh: with the credentials
    /// only when it is the configuration's server.
    static func source(recorded baseURL: String, document: ConfigurationDocument?) -> Source {
        Source(baseURL: baseURL, sendsCredentials: baseURL == document?.baseURL)
    }

    /// Asks each source in turn and returns the first policies found with the base URL they came
    /// from; nil when no server could give any, each reason told on standard error.
    ///
    /// - Throws: `ConfigurationError` when a server answers with policies that cannot be read:
    ///   that is the server's mistake, and onboarding must not guess around it.
    static func fetch(from sources: [Source], appID: String?, credentials: StoredCredentials) async throws -> (policies: ClientPolicies, source: String)? {
        guard let appID else {
            Console.note("No server was asked for client policies: the configuration names no application id (give --app-id).")
            return nil
        }
        for source in sources {
            let client = SettingsExchangeClient(serverURL: source.baseURL, applicationID: appID,
                                                credentials: source.sendsCredentials ? Self.credentials(credentials) : nil,
                                                allowInsecureLoopback: true)
            do {
                let policies = try await client.fetch()
                Console.note("Client policies from \(try client.url()).")
                return (policies, source.baseURL)
            } catch let error as ConfigurationError where unreachable.contains(error.code) {
                Console.note("No client policies: \(error.reason).")
            }
        }
        return nil
    }

    /// What a server not answering with policies comes to: it was not asked, had none, or
    /// refused the credentials.
    static let unreachable: Set<ConfigurationError.Code> = [.serviceUnavailable, .notFound, .invalidKey, .insecureURL, .invalidURL]

    /// The stored credentials as the request sends them: basic when there are a user and a
    /// password, else the API key.
    static func credentials(_ stored: StoredCredentials) -> SettingsExchangeClient.Credentials? {
        if let user = stored.user, let password = stored.password { return .basic(user: user, password: password) }
        return stored.apiKey.map(SettingsExchangeClient.Credentials.apiKey)
    }
}
