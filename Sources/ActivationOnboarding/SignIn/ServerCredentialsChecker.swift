#if DiscoveryClient
    import ActivationConfiguration
    import ActivationDiscovery
    import ActivationSecureStore

    /// Checks credentials with one request to the configuration's application endpoint
    /// (`{base URL}/{app id}`, the base URL itself without an app id): basic authentication for a
    /// user and password, SAP's `X-API-Key` header for an API key. No redirect is followed, so the
    /// credentials go to that server and nowhere else.
    public struct ServerCredentialsChecker: CredentialsChecker {
        /// Accept plain http to a loopback host (local test servers).
        public var allowsInsecureLoopback: Bool
        /// The request's deadline.
        public var timeout: Duration

        /// A checker over https (http only to loopback when `allowsInsecureLoopback`).
        public init(allowsInsecureLoopback: Bool = false, timeout: Duration = .seconds(30)) {
            self.allowsInsecureLoopback = allowsInsecureLoopback
            self.timeout = timeout
        }

        /// The validation request's URL.
        public static func url(for document: ConfigurationDocument) -> String {
            document.baseURL + "/" + (document.appID.map(FormEncoding.escape) ?? "")
        }

        /// The headers that carry `credentials`: as the settings download sends them.
        public static func headers(for credentials: StoredCredentials) -> [(String, String)] {
            SettingsExchangeFetcher.credentials(credentials).map { [($0.header.name, $0.header.value)] } ?? []
        }

        /// Sends one GET with `credentials` to ``url(for:)``: 2xx accepts them, 401 and 403 refuse
        /// them, a redirect says the server expects another method.
        ///
        /// - Throws: ``OnboardingError`` `serverUnavailable` when the server cannot be reached or
        ///   answers anything else.
        public func check(_ credentials: StoredCredentials, for document: ConfigurationDocument) async throws
            -> CredentialsVerdict
        {
            let url = Self.url(for: document)
            let answer = try await SignInHTTP(timeout: timeout, allowsInsecureLoopback: allowsInsecureLoopback).get(
                url, headers: Self.headers(for: credentials))
            switch answer.status {
            case 200..<300:
                return .accepted
            case 401, 403:
                return .refused(
                    OnboardingError(
                        .credentialsRefused, "\(SignInHTTP.shown(url)) refused the credentials (HTTP \(answer.status))")
                )
            case 300..<400:
                let target = answer.location.map { " to \(SignInHTTP.shown($0))" } ?? ""
                return .otherMethod(
                    OnboardingError(
                        .credentialsRefused,
                        """
                        \(SignInHTTP.shown(url)) answered with a redirect\(target), which is not followed: \
                        the server expects another sign-in method
                        """
                    ))
            default:
                throw OnboardingError(
                    .serverUnavailable, "\(SignInHTTP.shown(url)) answered the credentials check with \(answer.shown)")
            }
        }
    }
#endif
