#if DiscoveryClient
    import ActivationConfiguration
    import ActivationDiscovery
    import ActivationSecureStore

    /// Asks a server for client policies over HTTP at SAP's `settingsExchange` path, signing in with
    /// the request's access token when there is one, else its credentials: basic when there are a
    /// user and a password, else the API key.
    /// Redirects are not followed, so the credentials go to the server named and nowhere else.
    public struct SettingsExchangeFetcher: ClientPoliciesFetcher {
        /// Accept plain http when the server's host is a loopback address (a local test server).
        public var allowInsecureLoopback: Bool
        /// The whole request, connection included, must finish within this.
        public var timeout: Duration

        /// A fetcher over https (http only to loopback when `allowInsecureLoopback`).
        public init(allowInsecureLoopback: Bool = false, timeout: Duration = .seconds(10)) {
            self.allowInsecureLoopback = allowInsecureLoopback
            self.timeout = timeout
        }

        /// The server's policies and the URL they came from.
        ///
        /// - Throws: what ``ClientPoliciesFetcher`` says, naming the URL, never the credentials.
        public func fetch(_ request: ClientPoliciesRequest) async throws -> (policies: ClientPolicies, url: String) {
            let client = SettingsExchangeClient(
                serverURL: request.serverURL, applicationID: request.applicationID,
                credentials: request.accessToken.map(SettingsExchangeClient.Credentials.bearer)
                    ?? request.credentials.flatMap(Self.credentials), timeout: timeout,
                allowInsecureLoopback: allowInsecureLoopback)
            do {
                return (try await client.fetch(), try client.url())
            } catch let error as DiscoveryClientError {
                switch error.code {
                case .unauthorized: throw OnboardingError(.credentialsRefused, error.reason)
                case .notFound: throw OnboardingError(.noClientPolicies, error.reason)
                default: throw OnboardingError(.serverUnavailable, error.reason)
                }
            } catch let error as ConfigurationError
                where [.insecureURL, .invalidURL, .invalidHost].contains(error.code)
            {
                throw OnboardingError(.noClientPolicies, error.reason)
            }
        }

        /// The stored credentials as the request sends them: basic when there are a user and a
        /// password, else the API key; `nil` when there are neither.
        static func credentials(_ stored: StoredCredentials) -> SettingsExchangeClient.Credentials? {
            if let user = stored.user, let password = stored.password { return .basic(user: user, password: password) }
            return stored.apiKey.map(SettingsExchangeClient.Credentials.apiKey)
        }
    }
#endif
