#if DiscoveryClient
    import ActivationConfiguration
    import ActivationSecureStore
    import Foundation

    /// An OAuth 2.0 client for one configuration's authorization server: the sign-in flows
    /// (authorization code with PKCE through a loopback listener or a pasted address, the device
    /// grant), the refresh and the revocation. It keeps nothing: each flow returns the session to
    /// keep in the store (`StoredSignIn`), and the store is the only place tokens live.
    public struct OAuth2SignIn: Sendable {
        /// The server's endpoints and the client.
        public var endpoints: OAuth2Endpoints
        /// Judges the addresses servers hand out (the device grant's verification page).
        public var policy: SecurityPolicy
        /// How long a sign-in waits for the user (the redirect, the device confirmation cap).
        public var timeout: Duration
        var http: SignInHTTP

        /// A client for `endpoints`; http only to loopback test servers when `policy` allows http.
        ///
        /// - Parameters:
        ///   - endpoints: the server's endpoints and the client.
        ///   - policy: judges the addresses servers hand out; with `allowHTTP`, http to loopback test
        ///     servers is accepted.
        ///   - timeout: how long the browser sign-in waits for the redirect (default 180 s).
        ///   - requestTimeout: each request's deadline.
        public init(
            endpoints: OAuth2Endpoints, policy: SecurityPolicy, timeout: Duration = .seconds(180),
            requestTimeout: Duration = .seconds(30)
        ) {
            self.endpoints = endpoints
            self.policy = policy
            self.timeout = timeout
            http = SignInHTTP(timeout: requestTimeout, allowsInsecureLoopback: policy.allowHTTP)
        }

        /// The grant type of the device flow.
        public static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

        // MARK: Metadata

        /// The issuer's metadata (OpenID Connect Discovery, then RFC 8414); `nil` with the reasons
        /// when none could be read. The endpoints the document leaves out come from it.
        public func metadata() async -> (metadata: AuthorizationServerMetadata?, problems: [String]) {
            guard let issuer = endpoints.issuer else { return (nil, []) }
            var problems: [String] = []
            for location in AuthorizationServerMetadata.locations(issuer: issuer) {
                do {
                    let answer = try await http.get(location)
                    guard answer.status == 200 else {
                        problems.append("\(SignInHTTP.shown(location)): \(answer.shown)")
                        continue
                    }
                    return (
                        try AuthorizationServerMetadata(json: answer.body, source: SignInHTTP.shown(location)), problems
                    )
                } catch {
                    problems.append("\(error)")
                }
            }
            return (nil, problems)
        }

        // MARK: Authorization code

        /// Signs in through the browser with the redirect to a loopback listener: the listener
        /// starts first, then `open` is given the request (to open its address in a browser), then
        /// the code that comes back is redeemed. `open` returns whether to wait for the redirect:
        /// `false` (no browser, another flow takes over) ends the sign-in at once with `nil`.
        ///
        /// - Throws: ``OnboardingError`` `signInFailed` (an `error` redirect, a failed check, the
        ///   timeout) or `serverUnavailable`.
        public func signInThroughLoopback(open: @Sendable (AuthorizationRequest) async -> Bool) async throws
            -> StoredSignIn?
        {
            let listener = try await LoopbackListener.start(redirectURL: endpoints.client.redirectURL)
            let request = AuthorizationRequest(endpoints: endpoints, redirectURI: listener.redirectURI)
            listener.expect(request, issuer: endpoints.issuer)
            guard await open(request) else {
                await listener.close()
                return nil
            }
            let code = try await listener.code(timeout: timeout)
            return try await redeem(code: code, request: request, grant: "authorization_code")
        }

        /// Signs in through the browser where the redirect cannot come back to this process: `ask`
        /// is given the request (whose address the browser opens) and returns the address the
        /// browser ended on, which must start with the client's redirect URL and carry the right
        /// state; `ask` is asked again (up to `attempts` times) after one that does not.
        ///
        /// - Throws: ``OnboardingError`` `signInFailed` (no address, an `error` redirect, failed
        ///   checks) or `serverUnavailable`.
        public func signInWithPastedAddress(
            attempts: Int = 3,
            ask: @Sendable (AuthorizationRequest, _ attempt: Int, _ rejection: OnboardingError?) async throws -> String?
        ) async throws -> StoredSignIn {
            let request = AuthorizationRequest(endpoints: endpoints, redirectURI: endpoints.client.redirectURL)
            var rejection: OnboardingError?
            for attempt in 1...max(1, attempts) {
                guard let address = try await ask(request, attempt, rejection), !address.isEmpty else {
                    throw OnboardingError(.signInFailed, "no address was pasted")
                }
                let verdict: AuthorizationCallback.Verdict
                do {
                    verdict = try AuthorizationCallback(address: address, redirectURI: request.redirectURI).verdict(
                        for: request, issuer: endpoints.issuer)
                } catch let error as OnboardingError {
                    rejection = error
                    continue
                }
                switch verdict {
                case .code(let code): return try await redeem(code: code, request: request, grant: "authorization_code")
                case .wrongState:
                    rejection = OnboardingError(
                        .signInFailed, "the pasted address belongs to another sign-in (its state is not this one's)")
                case .failed(let error): throw error
                }
            }
            throw rejection ?? OnboardingError(.signInFailed, "no address was pasted")
        }

        /// Redeems an authorization code with the proof key's verifier.
        func redeem(code: String, request: AuthorizationRequest, grant: String) async throws -> StoredSignIn {
            var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI)]
            form.append(("code_verifier", request.proofKey.verifier))
            let sent = Date()
            let answer = try await http.post(endpoints.token, form: form + clientFields, headers: clientHeaders)
            guard (200..<300).contains(answer.status) else {
                throw OnboardingError(
                    .signInFailed, "the token endpoint refused the authorization code: \(answer.shown)")
            }
            let tokens = try TokenAnswer(json: answer.body, source: SignInHTTP.shown(endpoints.token))
            return try session(tokens, sent: sent, grant: grant, nonce: request.nonce, askedScope: request.scope)
        }

        // MARK: Device grant

        /// Signs in with the device grant (RFC 8628): `show` is given the user code and the
        /// verification address, then the token endpoint is polled as ``DeviceGrantPolling`` says;
        /// `progress` hears every poll.
        ///
        /// - Throws: ``OnboardingError`` `signInFailed` (no device endpoint, `access_denied`,
        ///   `expired_token`) or `serverUnavailable`.
        public func signInWithDeviceCode(
            show: @Sendable (DeviceAuthorization) async -> Void,
            progress: @Sendable (DeviceGrantPolling) -> Void = { _ in }
        ) async throws -> StoredSignIn {
            guard let deviceEndpoint = endpoints.deviceAuthorization else {
                throw OnboardingError(
                    .signInFailed,
                    """
                    the configuration names no device authorization endpoint \
                    (oauth2.deviceAuthorizationEndpoint), and its issuer's metadata none
                    """
                )
            }
            var form = [(String, String)]()
            if let scope = endpoints.client.scope { form.append(("scope", scope)) }
            let started = try await http.post(deviceEndpoint, form: form + clientFields, headers: clientHeaders)
            guard (200..<300).contains(started.status) else {
                throw OnboardingError(
                    .signInFailed, "the device authorization endpoint refused the request: \(started.shown)")
            }
            let authorization = try DeviceAuthorization(
                json: started.body, source: SignInHTTP.shown(deviceEndpoint), policy: policy)
            await show(authorization)
            var polling = DeviceGrantPolling(authorization)
            var next = polling.first
            while true {
                switch next {
                case .done:
                    throw OnboardingError(.serverUnavailable, "the device grant ended without tokens")
                case .fail(let error):
                    throw error
                case .wait(let seconds):
                    try await Task.sleep(for: .seconds(seconds))
                    let sent = Date()
                    let answer = try await http.post(
                        endpoints.token,
                        form: [("grant_type", Self.deviceCodeGrant), ("device_code", authorization.deviceCode)]
                            + clientFields,
                        headers: clientHeaders)
                    if (200..<300).contains(answer.status) {
                        _ = polling.next(after: .tokens, waited: seconds)
                        progress(polling)
                        let tokens = try TokenAnswer(json: answer.body, source: SignInHTTP.shown(endpoints.token))
                        return try session(
                            tokens, sent: sent, grant: Self.deviceCodeGrant, nonce: nil,
                            askedScope: endpoints.client.scope)
                    }
                    next = polling.next(
                        after: ErrorAnswer(json: answer.body).map { .error($0.error) } ?? .unexpected(answer.shown),
                        waited: seconds)
                    progress(polling)
                }
            }
        }

        // MARK: Refresh and revocation

        /// Refreshes `session` with its refresh token. Any refusal (any non-2xx answer, JSON or
        /// not) means the user must sign in again.
        ///
        /// - Throws: ``OnboardingError`` `signInRequired` (no refresh token, or refused, with the
        ///   server's escaped reason), `serverUnavailable` (not reached, or a 2xx answer that is no
        ///   token answer).
        public func refresh(_ session: StoredSignIn) async throws -> StoredSignIn {
            guard let refreshToken = session.refreshToken else {
                throw OnboardingError(.signInRequired, "the access token has expired and no refresh token is kept")
            }
            let sent = Date()
            let answer = try await http.post(
                session.tokenEndpoint,
                form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken)] + clientFields,
                headers: clientHeaders)
            guard (200..<300).contains(answer.status) else {
                throw OnboardingError(.signInRequired, "the server refused to refresh the sign-in (\(answer.shown))")
            }
            let tokens = try TokenAnswer(json: answer.body, source: SignInHTTP.shown(session.tokenEndpoint))
            var refreshed = session
            refreshed.accessToken = tokens.accessToken
            refreshed.tokenType = tokens.tokenType
            refreshed.expiresAt = tokens.expiresIn.map { sent.addingTimeInterval(Double($0)) }
            // A server that rotates refresh tokens sends a new one; one that does not keeps the old.
            refreshed.refreshToken = tokens.refreshToken ?? refreshToken
            refreshed.scope = tokens.scope ?? session.scope
            refreshed.refreshedAt = sent
            return refreshed
        }

        /// Revokes `session`'s refresh token (its access token when it has none) at the
        /// revocation endpoint (RFC 7009): as a public client with `client_id`, and, when the server
        /// asks for a bearer token instead (401 or 403), once more with the access token.
        ///
        /// - Throws: ``OnboardingError`` `serverUnavailable` when there is no revocation endpoint,
        ///   it cannot be reached, or it refuses.
        public func revoke(_ session: StoredSignIn) async throws {
            guard let endpoint = session.revocationEndpoint ?? endpoints.revocation else {
                throw OnboardingError(
                    .serverUnavailable,
                    "no revocation endpoint is known (oauth2.revocationEndpoint, or the issuer's metadata)")
            }
            let form: [(String, String)] =
                session.refreshToken.map { [("token", $0), ("token_type_hint", "refresh_token")] }
                ?? [("token", session.accessToken), ("token_type_hint", "access_token")]
            var answer = try await http.post(endpoint, form: form + clientFields, headers: clientHeaders)
            if answer.status == 401 || answer.status == 403 {
                answer = try await http.post(
                    endpoint, form: form + clientFields, headers: [("Authorization", "Bearer \(session.accessToken)")])
            }
            guard (200..<300).contains(answer.status) else {
                throw OnboardingError(.serverUnavailable, "the revocation endpoint answered \(answer.shown)")
            }
        }

        // MARK: Parts

        /// `client_id` for a public client; a confidential one authenticates with HTTP basic instead.
        var clientFields: [(String, String)] {
            endpoints.client.clientSecret == nil ? [("client_id", endpoints.client.clientID)] : []
        }

        /// HTTP basic with the client id and secret (RFC 6749 §2.3.1) for a confidential client.
        var clientHeaders: [(String, String)] {
            guard let secret = endpoints.client.clientSecret else { return [] }
            let pair = FormEncoding.escape(endpoints.client.clientID) + ":" + FormEncoding.escape(secret)
            return [("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))]
        }

        /// The session to keep from a token answer; the ID token's nonce must be the one sent.
        func session(_ tokens: TokenAnswer, sent: Date, grant: String, nonce: String?, askedScope: String?) throws
            -> StoredSignIn
        {
            var subject: String?
            if let idToken = tokens.idToken {
                let claims = IDTokenClaims(idToken)
                if let nonce, !RandomToken.equal(claims?.nonce ?? "", nonce) {
                    throw OnboardingError(.signInFailed, "the ID token does not carry the nonce of this sign-in")
                }
                subject = claims?.subject
            }
            return StoredSignIn(
                grant: grant, accessToken: tokens.accessToken, tokenType: tokens.tokenType,
                expiresAt: tokens.expiresIn.map { sent.addingTimeInterval(Double($0)) },
                refreshToken: tokens.refreshToken,
                scope: tokens.scope ?? askedScope, tokenEndpoint: endpoints.token,
                revocationEndpoint: endpoints.revocation,
                clientID: endpoints.client.clientID, issuer: endpoints.issuer, subject: subject, signedInAt: sent)
        }
    }
#endif
