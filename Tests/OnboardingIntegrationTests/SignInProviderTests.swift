import ActivationConfiguration
import ActivationSecureStore
import Foundation
import OnboardingTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ActivationOnboarding

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The sign-in flows against real identity providers, each started by the test on a free
/// loopback port with SQLite and stopped after, the user played through the provider's own
/// login by a scripted browser.
@Suite("Sign-in against glewlwyd and django-oauth-toolkit", .serialized)
final class SignInProviderTests {
    static let passcode = "Corr3ct-horse-battery"
    /// http to the local providers; IP addresses too, since django-oauth-toolkit names itself by one.
    static let policy = SecurityPolicy(allowHTTP: true, allowIPLiterals: true)
    let folder: StoreFolder

    init() throws { folder = try StoreFolder() }

    /// A configuration whose sign-in is `idp`'s: the endpoints by host name, the client, and the
    /// extensions asked for (the device and revocation endpoints, or only the issuer).
    func configuration(
        _ idp: IdentityProvider, clientID: String? = nil, redirect: String, scope: String? = nil,
        endpoints: Bool = true, issuer: Bool = false
    ) throws -> String {
        var config: [String: Any] = [
            "oauth2.authorizationEndpoint": idp.byName(idp.authorizationEndpoint),
            "oauth2.tokenEndpoint": idp.byName(idp.tokenEndpoint),
            "oauth2.clients": [
                ["clientID": clientID ?? idp.clientID, "redirectURL": redirect, "scope": scope ?? idp.scope]
            ],
        ]
        if endpoints {
            config["oauth2.deviceAuthorizationEndpoint"] = idp.byName(idp.deviceEndpoint)
            config["oauth2.revocationEndpoint"] = idp.byName(idp.revocationEndpoint)
        }
        if issuer { config["oauth2.issuer"] = idp.issuer }
        let document: [String: Any] = [
            "host": "localhost", "port": 8443, "appID": "com.example.app",
            "auth": [["type": "oauth2", "config": config]],
        ]
        let path = "\(folder.path)/configuration.json"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Onboards from the configuration at `path`, signing in with `flow`.
    func onboard(_ path: String, _ presenter: ScriptedPresenter, flow: OAuth2SignInStep.Flow = .automatic) async
        -> OnboardingResult
    {
        let flow = OnboardingFlow.standard(
            configuration: ConfigurationStep(
                providers: [FileConfigurationProvider(path: path, recognizer: PayloadRecognizer(policy: Self.policy))],
                policy: Self.policy, confirms: false),
            signIn: OAuth2SignInStep(flow: flow, policy: Self.policy, timeout: .seconds(60)),
            settings: SettingsDownloadStep(
                source: .defaults, fetcher: SettingsExchangeFetcher(allowInsecureLoopback: true)),
            store: StoreManagerStep(workFactor: 4, usesKeyring: false))
        return await flow.onboard(OnboardingContext(location: folder.location, presenter: presenter))
    }

    /// A user who signs in at the browser, after a stale tab called the listener with another state.
    static func browser(_ idp: IdentityProvider, stale: Bool = true) -> @Sendable (BrowserSignInRequest) async -> Bool {
        { request in
            if stale, let redirect = Self.parameter("redirect_uri", in: request.url) {
                let status = try? await Self.get(
                    redirect.replacingOccurrences(of: "localhost", with: "127.0.0.1") + "?code=stolen&state=stale")
                #expect(status == 400, "a wrong state is answered 400")
            }
            let (status, output) = await idp.browse(request.url)
            #expect(status == 0, "the browser: \(output)")
            return true
        }
    }

    static func parameter(_ name: String, in url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    static func get(_ url: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test(
        """
        glewlwyd: loopback sign-in with PKCE on the exact registered port, a stray callback waited past, the issuer's \
        metadata used; refresh rotates, the old token is refused
        """
    )
    func glewlwydLoopback() async throws {
        let port = try freeLoopbackPort()
        let redirect = "http://127.0.0.1:\(port)/callback"
        let idp = try IdentityProvider(.glewlwyd, options: ["--redirect-uri", redirect])
        defer { idp.stop() }
        let presenter = ScriptedPresenter(.init(newPasscodes: [Self.passcode], browser: Self.browser(idp)))
        let result = await onboard(
            try configuration(idp, redirect: redirect, endpoints: false, issuer: true), presenter)
        let context = try result.get()
        let store = try #require(context.store)
        let session = try #require(store.contents.signIn)
        #expect(session.subject != nil && session.refreshToken != nil && session.issuer == idp.issuer, "\(session)")
        #expect(session.revocationEndpoint == idp.revocationEndpoint, "taken from the issuer's metadata")
        #expect((session.expiresAt?.timeIntervalSinceNow ?? 0) > 3000)
        #expect(presenter.asked.contains("browser localhost"))

        // A refresh rotates the refresh token; the provider then refuses the old one.
        var signIn = SignInSession(store: store, policy: Self.policy)
        let fresh = try await signIn.accessToken(minimumValidity: .seconds(30 * 86_400))
        #expect(
            fresh.accessToken != session.accessToken && fresh.refreshToken != session.refreshToken
                && fresh.refreshedAt != nil)
        let kept = try #require(
            try SecureStore.open(at: folder.location, passcode: Passcode(Self.passcode))?.contents.signIn)
        #expect(
            kept.accessToken == fresh.accessToken && kept.refreshToken == fresh.refreshToken,
            "in the store before it is returned")
        let old = try await idp.post(
            idp.byName(idp.tokenEndpoint),
            form: [
                "grant_type": "refresh_token", "refresh_token": try #require(session.refreshToken),
                "client_id": idp.clientID,
            ])
        #expect(old.status == 400 && old.body.isEmpty, "glewlwyd refuses a spent refresh token: 400 with an empty body")
        // glewlwyd ends the whole chain on such a reuse: the next refresh is refused, and says so.
        await #expect {
            try await signIn.accessToken(minimumValidity: .seconds(30 * 86_400))
        } throws: { error in
            (error as? OnboardingError).map {
                $0.code == .signInRequired && $0.reason.contains("HTTP 400 with an empty body")
            } ?? false
        }
    }

    @Test(
        """
        glewlwyd: paste-back where the redirect cannot come back; an address of another sign-in is refused and asked \
        again; sign-out revokes
        """
    )
    func glewlwydPasteBackAndSignOut() async throws {
        let redirect = "https://app.example.com/oauth/callback"
        let idp = try IdentityProvider(.glewlwyd, options: ["--redirect-uri", redirect])
        defer { idp.stop() }
        let landed = Mutex<String?>(nil)
        let presenter = ScriptedPresenter(
            .init(
                newPasscodes: [Self.passcode],
                browser: { request in
                    let (status, output) = await idp.browse(request.url, printRedirect: true)
                    #expect(status == 0, "\(output)")
                    landed.withLock { $0 = output }
                    return true
                },
                pastedAddress: { request in
                    guard let address = landed.withLock({ $0 }), let state = Self.parameter("state", in: address) else {
                        return nil
                    }
                    // First an address of another sign-in, then the right one.
                    return request.attempt == 1
                        ? address.replacingOccurrences(of: state, with: "another-state") : address
                }))
        let result = await onboard(try configuration(idp, redirect: redirect), presenter)
        let store = try #require(try result.get().store)
        #expect(presenter.asked.filter { $0.hasPrefix("pasted address") } == ["pasted address 1", "pasted address 2"])
        let session = try #require(store.contents.signIn)

        var signIn = SignInSession(store: store, policy: Self.policy)
        let signedOut = try await signIn.signOut()
        #expect(signedOut.wasSignedIn && signedOut.revoked, "\(signedOut.revocationProblem ?? "")")
        #expect(signIn.store.contents.signIn == nil)
        #expect(try await idp.acceptsRefresh(try #require(session.refreshToken)) == false, "revoked")
    }

    @Test(
        "glewlwyd: the device grant polls while the user has not confirmed, then signs in; an unconfirmed code expires")
    func glewlwydDevice() async throws {
        // A minute for the user to confirm, however busy the machine.
        let idp = try IdentityProvider(.glewlwyd, options: ["--device-interval", "1", "--device-expiration", "60"])
        defer { idp.stop() }
        let presenter = ScriptedPresenter(
            .init(
                newPasscodes: [Self.passcode],
                deviceCode: { prompt in
                    #expect(prompt.verificationURIComplete?.contains(prompt.userCode) == true)
                    Task {
                        // The user confirms a little later: the polls meanwhile are answered authorization_pending.
                        try await Task.sleep(for: .seconds(2))
                        let (status, output) = await idp.browse(prompt.userCode, device: true)
                        #expect(status == 0, "\(output)")
                    }
                }))
        let result = await onboard(
            try configuration(idp, redirect: "http://127.0.0.1/callback"), presenter, flow: .device)
        let session = try #require(try result.get().store?.contents.signIn)
        #expect(session.grant == OAuth2SignIn.deviceCodeGrant && session.refreshToken != nil)
        let polls = presenter.notes.filter { $0.topic == .devicePoll }
        #expect(polls.count >= 2, "at least one authorization_pending before the tokens: \(polls.map(\.text))")

        // Nobody confirms a code that lives 3 s: it expires, and the sign-in says so.
        let brief = try IdentityProvider(.glewlwyd, options: ["--device-interval", "1", "--device-expiration", "3"])
        defer { brief.stop() }
        let nobody = ScriptedPresenter(.init(newPasscodes: [Self.passcode]))
        let other = try StoreFolder()
        let flow = OnboardingFlow(steps: [
            ConfigurationStep(
                providers: [
                    FileConfigurationProvider(
                        path: try configuration(brief, redirect: "http://127.0.0.1/callback"),
                        recognizer: PayloadRecognizer(policy: Self.policy))
                ], policy: Self.policy, confirms: false),
            OAuth2SignInStep(flow: .device, policy: Self.policy),
        ])
        let expired = await flow.onboard(OnboardingContext(location: other.location, presenter: nobody))
        let error = try #require(expired.failure?.error as? OnboardingError)
        #expect(error.code == .signInFailed && error.reason.contains("expired"), "\(error)")
    }

    @Test(
        """
        django-oauth-toolkit: a loopback redirect without a port takes any free port; refresh rotates; revocation with \
        client_id
        """
    )
    func djangoAnyPort() async throws {
        let idp = try IdentityProvider(.djangoOAuthToolkit, options: ["--device-interval", "1"])
        defer { idp.stop() }
        let presenter = ScriptedPresenter(.init(newPasscodes: [Self.passcode], browser: Self.browser(idp)))
        let result = await onboard(try configuration(idp, redirect: "http://127.0.0.1/callback"), presenter)
        let store = try #require(try result.get().store)
        let session = try #require(store.contents.signIn)
        #expect(session.refreshToken != nil && session.scope == idp.scope)

        var signIn = SignInSession(store: store, policy: Self.policy)
        let fresh = try await signIn.accessToken(minimumValidity: .seconds(30 * 86_400))
        #expect(fresh.refreshToken != session.refreshToken)
        let old = try await idp.post(
            idp.byName(idp.tokenEndpoint),
            form: [
                "grant_type": "refresh_token", "refresh_token": try #require(session.refreshToken),
                "client_id": idp.clientID,
            ])
        #expect(old.status == 400 && old.body.contains("invalid_grant"), "\(old)")

        // A new sign-in, then sign-out: DOT takes the public client's id, and refuses the token after.
        let again = ScriptedPresenter(.init(browser: Self.browser(idp, stale: false)))
        var context = OnboardingContext(location: folder.location, presenter: again)
        context.store = signIn.store
        guard case .oauth2(let settings)? = signIn.store.contents.configuration?.document.primaryAuth?.method else {
            Issue.record("no OAuth")
            return
        }
        let second = try await OAuth2SignInStep(policy: Self.policy).signIn(settings: settings, context: context)
        try context.updateContents { $0.signIn = second }
        var latest = SignInSession(store: try #require(context.store), policy: Self.policy)
        let signedOut = try await latest.signOut()
        #expect(signedOut.revoked, "\(signedOut.revocationProblem ?? "")")
        #expect(try await idp.acceptsRefresh(try #require(second.refreshToken)) == false)
    }

    @Test("django-oauth-toolkit: the device grant denied at the verification page ends with access_denied")
    func djangoDeviceDenied() async throws {
        let idp = try IdentityProvider(.djangoOAuthToolkit, options: ["--device-interval", "1"])
        defer { idp.stop() }
        let presenter = ScriptedPresenter(
            .init(
                newPasscodes: [Self.passcode],
                deviceCode: { prompt in
                    Task {
                        let (status, output) = await idp.browse(prompt.userCode, deny: true, device: true)
                        #expect(status == 0, "\(output)")
                    }
                }))
        let result = await onboard(
            try configuration(idp, clientID: idp.deviceClientID, redirect: "http://127.0.0.1/callback"), presenter,
            flow: .device)
        let error = try #require(result.failure?.error as? OnboardingError, "\(String(describing: result.failure))")
        #expect(error.code == .signInFailed && error.reason.contains("access_denied"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: folder.location.path), "nothing stored")
    }
}
