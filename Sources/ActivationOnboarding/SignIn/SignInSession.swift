#if DiscoveryClient
    import ActivationConfiguration
    import ActivationSecureStore
    import FileAccess
    import Foundation

    /// The signed-in session kept in a secure store, for a program that calls the server: a fresh
    /// access token on demand, under the rules `activate token` follows.
    ///
    /// ```swift
    /// guard let store = try SecureStore.open(at: SecureStoreLocation(), passcode: nil) else { return }
    /// var session = SignInSession(store: store)
    /// let token = try await session.accessToken(minimumValidity: .seconds(60))
    /// request.headers.add(name: "Authorization", value: "Bearer \(token.accessToken)")
    /// ```
    ///
    /// A token with at least `minimumValidity` left is returned from the store, with no request.
    /// Otherwise the refresh runs under a lock beside the store, and the store is read again once
    /// the lock is held: of several processes sharing the store, one refreshes and the others find
    /// its tokens, so a single-use refresh token is never spent twice. A rotated refresh token is
    /// in the store before the new access token is returned.
    public struct SignInSession: Sendable {
        /// The open store.
        public private(set) var store: SecureStore
        /// Judges the token endpoint's scheme: http only to a loopback test server when it allows http.
        public var policy: SecurityPolicy
        /// Each request's deadline.
        public var requestTimeout: Duration
        /// How long to wait for another process's refresh.
        public var lockTimeout: Duration

        /// The session kept in `store`.
        public init(
            store: SecureStore, policy: SecurityPolicy = SecurityPolicy(), requestTimeout: Duration = .seconds(30),
            lockTimeout: Duration = .seconds(60)
        ) {
            self.store = store
            self.policy = policy
            self.requestTimeout = requestTimeout
            self.lockTimeout = lockTimeout
        }

        /// The kept sign-in with an access token valid for at least `minimumValidity`, refreshed
        /// first when needed.
        ///
        /// - Throws: ``OnboardingError`` `signInRequired` (not signed in, no refresh token, or the
        ///   server refused the refresh) or `serverUnavailable`; `SecureStoreError` or
        ///   `ConfigurationError` when the store cannot be read again or written.
        public mutating func accessToken(minimumValidity: Duration = .seconds(60)) async throws -> StoredSignIn {
            let now = Date()
            let kept = try Self.signIn(in: store)
            if kept.isValid(for: minimumValidity, at: now) { return kept }
            let (refreshed, latest) = try await FileIO.withExclusiveLockWhileAwaiting(
                store.location.signInLockPath, timeout: lockTimeout
            ) {
                () async throws -> (StoredSignIn, SecureStore) in
                let latest = try store.reloaded()
                let current = try Self.signIn(in: latest)
                // Another process may have refreshed while this one waited for the lock.
                if current.isValid(for: minimumValidity, at: Date()) { return (current, latest) }
                let fresh = try await client(for: current, in: latest).refresh(current)
                return (fresh, try Self.keeping(fresh, in: latest))
            }
            store = latest
            return refreshed
        }

        /// What signing out did.
        public struct SignOut: Sendable, Hashable {
            /// Whether a session was kept.
            public var wasSignedIn: Bool
            /// Whether the server revoked the token.
            public var revoked: Bool
            /// Why it was not revoked, when it was not (no endpoint, a failure), for people.
            public var revocationProblem: String?
        }

        /// Revokes the kept refresh token where a revocation endpoint is known, then deletes the
        /// tokens from the store, also when the revocation failed (the result says why).
        ///
        /// - Throws: `ConfigurationError` when the store cannot be written.
        public mutating func signOut() async throws -> SignOut {
            try await FileIO.withExclusiveLockWhileAwaiting(store.location.signInLockPath, timeout: lockTimeout) {
                let latest = try store.reloaded()
                guard let current = latest.contents.signIn else {
                    store = latest
                    return SignOut(wasSignedIn: false, revoked: false)
                }
                var problem: String?
                let client = client(for: current, in: latest)
                do {
                    // A server that wants the access token as a bearer token takes only a valid one:
                    // an expired one is refreshed first, and the refresh token it hands out revoked.
                    var revoking = current
                    if !current.isValid(for: .seconds(30)), current.refreshToken != nil,
                        let refreshed = try? await client.refresh(current)
                    {
                        revoking = refreshed
                    }
                    try await client.revoke(revoking)
                } catch {
                    problem = "\(error)"
                }
                store = try Self.keeping(nil, in: latest)
                return SignOut(wasSignedIn: true, revoked: problem == nil, revocationProblem: problem)
            }
        }

        /// `store` with `signIn` in it, saved. Another process may have written the store since it
        /// was read (new client policies): the store is then read again and the sign-in written into
        /// that, since a rotated refresh token the server has just handed out must not be lost.
        static func keeping(_ signIn: StoredSignIn?, in store: SecureStore) throws -> SecureStore {
            var latest = store
            latest.contents.signIn = signIn
            do {
                try latest.save()
            } catch let error as SecureStoreError where error.code == .storeChanged {
                latest = try store.reloaded()
                latest.contents.signIn = signIn
                try latest.save()
            }
            return latest
        }

        static func signIn(in store: SecureStore) throws -> StoredSignIn {
            guard let signIn = store.contents.signIn else {
                if let method = store.contents.configuration?.document.primaryAuth?.method, method.typeName != "oauth2"
                {
                    throw OnboardingError(
                        .signInRequired, "the configuration signs in with \(method.typeName), which has no access token"
                    )
                }
                throw OnboardingError(.signInRequired, "\(store.location.path) holds no sign-in")
            }
            return signIn
        }

        /// The OAuth client for `session`: its endpoints, and the stored configuration's client of
        /// the same id (a confidential client's secret is kept there).
        func client(for session: StoredSignIn, in store: SecureStore) -> OAuth2SignIn {
            var client = OAuth2Client(clientID: session.clientID, redirectURL: "")
            if case .oauth2(let settings)? = store.contents.configuration?.document.primaryAuth?.method,
                let configured = settings.clients.first(where: { $0.clientID == session.clientID })
            {
                client = configured
            }
            let endpoints = OAuth2Endpoints(
                authorization: "", token: session.tokenEndpoint, revocation: session.revocationEndpoint,
                issuer: session.issuer, client: client)
            return OAuth2SignIn(endpoints: endpoints, policy: policy, requestTimeout: requestTimeout)
        }
    }
#endif
