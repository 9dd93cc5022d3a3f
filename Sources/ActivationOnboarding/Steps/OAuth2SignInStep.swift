#if DiscoveryClient
    import ActivationConfiguration
    import ActivationSecureStore
    import Foundation

    /// The OAuth 2.0 sign-in step (SAP's `OAuth2AuthenticationStep`): for a configuration that signs
    /// in with `oauth2`, onboard signs the user in and keeps the session in the store, where the
    /// settings download and `SignInSession` find it.
    ///
    /// Which flow runs (``Flow``):
    /// - a loopback `redirectURL` (`http://127.0.0.1…`, `http://[::1]…`, `http://localhost…`): the
    ///   authorization code with PKCE, a listener on that address, the browser opened by the presenter;
    /// - any other `redirectURL` (SAP's https URL on the server, an app's scheme), or
    ///   ``Flow/pastedAddress``: the browser cannot hand the redirect back, so the user pastes the
    ///   address it ends on;
    /// - ``Flow/device``, or no browser could be started and a device endpoint is known: the device grant.
    ///
    /// Endpoints the document leaves out come from its issuer's metadata (`oauth2.issuer`).
    public struct OAuth2SignInStep: OnboardingStep {
        /// How the user signs in.
        public enum Flow: Sendable, Hashable {
            /// By the client's redirect URL, as above.
            case automatic
            /// The device grant.
            case device
            /// The browser, and the address it ends on pasted back.
            case pastedAddress
        }

        /// How the user signs in.
        public var flow: Flow
        /// Judges the endpoints the metadata adds and the addresses servers hand out; with
        /// `allowHTTP`, http to loopback test servers is accepted.
        public var policy: SecurityPolicy
        /// How long the browser sign-in waits for the redirect.
        public var timeout: Duration

        /// The step.
        public init(
            flow: Flow = .automatic, policy: SecurityPolicy = SecurityPolicy(), timeout: Duration = .seconds(180)
        ) {
            self.flow = flow
            self.policy = policy
            self.timeout = timeout
        }

        /// Signs in when the stored configuration signs in with OAuth 2.0, and keeps the session.
        ///
        /// - Throws: ``OnboardingError`` `missingValue` when no configuration step ran before it,
        ///   `signInFailed` or `serverUnavailable`; whatever the presenter throws.
        public func onboard(_ context: inout OnboardingContext) async throws {
            guard let document = context.contents.configuration?.document else {
                throw OnboardingError(
                    .missingValue, "no configuration to sign in with: the configuration step runs first")
            }
            guard case .oauth2(let settings)? = document.primaryAuth?.method else { return }
            let session = try await signIn(settings: settings, context: context)
            try context.updateContents { $0.signIn = session }
        }

        /// Nothing to do: the session is in the store.
        public func restore(_ context: inout OnboardingContext) async throws {}

        /// Signs in with `settings` and returns the session to keep (onboard, and a sign-in again
        /// on an open store).
        ///
        /// - Throws: as ``onboard(_:)``.
        public func signIn(settings: OAuth2Settings, context: OnboardingContext) async throws -> StoredSignIn {
            let presenter = context.presenter
            let name = self.name
            var endpoints = try OAuth2Endpoints(settings: settings)
            var client = OAuth2SignIn(endpoints: endpoints, policy: policy, timeout: timeout)
            if endpoints.issuer != nil, endpoints.deviceAuthorization == nil || endpoints.revocation == nil {
                let (metadata, problems) = await client.metadata()
                for problem in problems {
                    presenter.show(
                        OnboardingNote(.info, step: name, "issuer metadata: \(problem)", topic: .issuerMetadata))
                }
                if let metadata {
                    let (filled, warnings) = endpoints.filled(from: metadata, policy: policy)
                    for warning in warnings {
                        presenter.show(OnboardingNote(.warning, step: name, warning, topic: .issuerMetadata))
                    }
                    endpoints = filled
                    client.endpoints = filled
                }
            }
            let host =
                (try? CanonicalURL(parsing: endpoints.authorization))?.host.description ?? endpoints.authorization
            switch flow {
            case .device:
                return try await deviceGrant(client, presenter: presenter)
            case .pastedAddress:
                return try await pastedAddress(client, host: host, presenter: presenter)
            case .automatic where !endpoints.client.redirectsToLoopback:
                return try await pastedAddress(client, host: host, presenter: presenter)
            case .automatic:
                let hasDeviceGrant = endpoints.deviceAuthorization != nil
                let session = try await client.signInThroughLoopback { request in
                    let started = await presenter.openBrowser(
                        BrowserSignInRequest(url: request.url, host: host, returnsToListener: true))
                    // Without a browser the device grant takes over where there is one; else the
                    // address shown may still be opened by hand.
                    return started || !hasDeviceGrant
                }
                if let session { return session }
                presenter.show(
                    OnboardingNote(
                        .info, step: name,
                        "no browser could be started: signing in with a code on another device instead",
                        topic: .noBrowser))
                return try await deviceGrant(client, presenter: presenter)
            }
        }

        private func deviceGrant(_ client: OAuth2SignIn, presenter: any OnboardingPresenter) async throws
            -> StoredSignIn
        {
            let name = self.name
            return try await client.signInWithDeviceCode { authorization in
                await presenter.showDeviceCode(
                    DeviceCodePrompt(
                        userCode: authorization.userCode, verificationURI: authorization.verificationURI,
                        verificationURIComplete: authorization.verificationURIComplete,
                        expiresIn: authorization.expiresIn))
            } progress: { polling in
                presenter.show(
                    OnboardingNote(
                        .progress, step: name, "device grant: poll \(polling.polls), next in \(polling.interval) s",
                        topic: .devicePoll))
            }
        }

        private func pastedAddress(_ client: OAuth2SignIn, host: String, presenter: any OnboardingPresenter)
            async throws -> StoredSignIn
        {
            try await client.signInWithPastedAddress { request, attempt, rejection in
                if attempt == 1 {
                    _ = await presenter.openBrowser(
                        BrowserSignInRequest(url: request.url, host: host, returnsToListener: false))
                }
                return try await presenter.redirectedAddress(
                    PastedAddressRequest(redirectURL: request.redirectURI, attempt: attempt, rejection: rejection))
            }
        }
    }
#endif
