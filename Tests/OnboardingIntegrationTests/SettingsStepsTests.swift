import ActivationConfiguration
import ActivationSecureStore
import Foundation
import Logging
import OnboardingTestSupport
import TestSupport
import Testing

@testable import ActivationOnboarding

/// The predefined steps composed as `activate onboard` composes them, run in-process with a
/// scripted presenter, real files and real local HTTP servers (the settings server, Python).
@Suite(
    "Onboarding steps against settings servers: credentials, client policies from each source, consent, logging",
    .serialized)
final class SettingsStepsTests {
    static let appID = "com.example.app"
    static let passcode = "Corr3ct-horse-battery"
    let folder: StoreFolder

    init() throws { folder = try StoreFolder() }

    func file(_ name: String, _ text: String) throws -> String {
        let path = "\(folder.path)/\(name)"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        return path
    }

    /// A configuration of the server at `url` (http on localhost), signing in with `auth`.
    func configuration(_ url: String, auth: String = "basic.default") throws -> String {
        let port = url.split(separator: ":").last.map(String.init) ?? "0"
        return try file(
            "configuration.json",
            #"""
            {"host": "localhost", "port": \#(port), "protocol": "http", "appID": "\#(Self.appID)", "auth": [{"type": \#
            "\#(auth)", "config": {}}]}
            """#
        )
    }

    /// The steps of `activate onboard`, over the configuration file `path`.
    func steps(
        _ path: String, settings: SettingsDownloadStep.Source,
        store: StoreManagerStep = StoreManagerStep(workFactor: 4, usesKeyring: false)
    )
        -> [any OnboardingStep]
    {
        let policy = SecurityPolicy(allowHTTP: true)
        return OnboardingFlow.standard(
            configuration: ConfigurationStep(
                providers: [FileConfigurationProvider(path: path, recognizer: PayloadRecognizer(policy: policy))],
                policy: policy,
                confirms: false),
            settings: SettingsDownloadStep(
                source: settings, fetcher: SettingsExchangeFetcher(allowInsecureLoopback: true)), store: store
        ).steps
    }

    func context(_ presenter: ScriptedPresenter) -> OnboardingContext {
        OnboardingContext(location: folder.location, presenter: presenter)
    }

    @Test("the discovery service is asked first and never sees the credentials; the configuration's server gets them")
    func credentialRule() async throws {
        let policies = try file("policies.json", #"{"passwordPolicy": {"passwordPolicyMinLength": "12"}}"#)
        let discovery = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "none", log: "\(folder.path)/discovery.log")
        let server = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "basic:alice:pa55-word", log: "\(folder.path)/server.log")
        let configuration = try configuration(server.url)
        let alice = StoredCredentials(user: "alice", password: "pa55-word")

        // The discovery service has the policies: it alone is asked, without credentials.
        let presenter = ScriptedPresenter(.init(newPasscodes: [Self.passcode], credentials: alice))
        let first = await OnboardingFlow(steps: steps(configuration, settings: .servers(discovery: discovery.url)))
            .onboard(context(presenter))
        #expect(first.succeeded, "\(String(describing: first.failure))")
        #expect(try discovery.requests().map { $0["authorization"] as? Bool } == [false])
        #expect(try discovery.requests().allSatisfy { $0["apiKey"] as? Bool == false })
        #expect(try server.requests().isEmpty)
        #expect(first.context.contents.clientPolicies.passcode.minLength == 12)
        #expect(first.context.contents.clientPoliciesSource == discovery.url)
        #expect(first.context.contents.credentials == alice)

        // A discovery service that keeps none for the app: then the configuration's server, with them.
        let empty = try SettingsServer(
            appID: "com.example.other", policies: policies, auth: "none", log: "\(folder.path)/empty.log")
        let replacing = StoreManagerStep(workFactor: 4, replacing: true, usesKeyring: false)
        let second = await OnboardingFlow(
            steps: steps(configuration, settings: .servers(discovery: empty.url), store: replacing)
        )
        .onboard(context(ScriptedPresenter(.init(newPasscodes: [Self.passcode], credentials: alice))))
        #expect(second.succeeded, "\(String(describing: second.failure))")
        #expect(
            try empty.requests().map { [$0["authorization"] as? Bool, $0["status"] as? Int == 404] } == [[false, true]])
        #expect(
            try server.requests().map { [$0["authorization"] as? Bool, $0["status"] as? Int == 200] } == [[true, true]])
        #expect(second.context.contents.clientPoliciesSource == server.url, "the configuration's base URL is recorded")

        // Sync asks the recorded server again, with the credentials, and records the contact.
        let restored = await OnboardingFlow(steps: steps(configuration, settings: .servers(discovery: empty.url)))
            .restore(context(ScriptedPresenter(.init(currentPasscodes: [Self.passcode]))))
        #expect(restored.succeeded, "\(String(describing: restored.failure))")
        _ = try file("policies.json", #"{"passwordPolicy": {"passwordPolicyMinLength": "14"}}"#)
        var later = restored.context
        later.now = { Date().addingTimeInterval(3600) }
        let synced = await OnboardingFlow(steps: steps(configuration, settings: .servers(discovery: empty.url))).sync(
            later)
        #expect(synced.succeeded, "\(String(describing: synced.failure))")
        #expect(synced.context.contents.clientPolicies.passcode.minLength == 14)
        #expect(
            try server.requests().count == 2 && server.requests().allSatisfy { $0["authorization"] as? Bool == true })
        #expect(try empty.requests().count == 1, "sync asks only the server the policies came from")
        let reopened = try #require(
            try SecureStore.open(
                at: folder.location, passcode: Passcode(Self.passcode), options: .init(useKeyring: false)))
        #expect(reopened.contents.clientPolicies.passcode.minLength == 14, "the new policies are in the file")
        #expect(
            abs((reopened.contents.lastServerContact ?? .distantPast).timeIntervalSinceNow - 3600) < 60,
            "the contact is recorded")
    }

    @Test("policies from each source: given, SAP's defaults, a server, none reachable (defaults, said)")
    func policySources() async throws {
        let given = try ClientPolicies(
            json: Array(#"{"passwordPolicy": {"passwordPolicyMinLength": "20"}}"#.utf8), source: "given.json")
        let configuration = try configuration("http://localhost:9")
        for (source, minLength, recorded) in [
            (SettingsDownloadStep.Source.given(given), 20, false), (.defaults, 8, false),
            (.servers(discovery: nil), 8, false),
        ] {
            let presenter = ScriptedPresenter(
                .init(
                    newPasscodes: [String(repeating: "p", count: 20)],
                    credentials: StoredCredentials(user: "u", password: "p")))
            let store = StoreManagerStep(workFactor: 4, replacing: true, usesKeyring: false)
            let result = await OnboardingFlow(steps: steps(configuration, settings: source, store: store)).onboard(
                context(presenter))
            #expect(result.succeeded, "\(source): \(String(describing: result.failure))")
            #expect(result.context.contents.clientPolicies.passcode.minLength == minLength)
            #expect((result.context.contents.clientPoliciesSource != nil) == recorded)
            if case .servers = source {
                // Nothing listens on port 9: the reason is told, then SAP's defaults, said with their topic.
                #expect(
                    presenter.notes.contains {
                        $0.text.hasPrefix("No client policies: http://localhost:9/mobileservices/")
                    })
                #expect(presenter.notes.contains { $0.topic == .defaultClientPolicies })
            }
        }
        // Sync has no server to ask for given policies.
        let restored = await OnboardingFlow(steps: steps(configuration, settings: .defaults)).restore(
            context(ScriptedPresenter(.init(currentPasscodes: [String(repeating: "p", count: 20)]))))
        let synced = await OnboardingFlow(steps: steps(configuration, settings: .defaults)).sync(restored.context)
        #expect(synced.failure?.step == "SettingsDownloadStep")
        #expect((synced.failure?.error as? OnboardingError)?.code == .forbidden)
    }

    @Test(
        """
        consent is asked once where data collection is allowed, kept with its time, and asked again when the policy \
        changes
        """
    )
    func consent() async throws {
        let policies = try file(
            "policies.json",
            #"""
            {"usagePolicy": {"dataCollectionEnabled": "true", "uploadDataAfterDays": "7"}, "logSettings": \#
            {"logEnabled": "true", "logLevel": "DEBUG"}, "featureVectorPolicies": {"featureVectorPolicyAllEnabled": \#
            "false", "restrictedPolicies": ["offline-sync", "camera"]}}
            """#
        )
        let server = try SettingsServer(
            appID: Self.appID, policies: policies, auth: "none", log: "\(folder.path)/server.log")
        let configuration = try configuration(server.url, auth: "saml2.web.post")
        let flow = OnboardingFlow(steps: steps(configuration, settings: .servers(discovery: nil)))
        let onboarding = ScriptedPresenter(.init(newPasscodes: [Self.passcode], consents: [true]))
        let before = Date().addingTimeInterval(-1)
        let onboarded = await flow.onboard(context(onboarding))
        #expect(onboarded.succeeded, "\(String(describing: onboarded.failure))")
        #expect(onboarding.asked.filter { $0 == "consent" }.count == 1)
        #expect(!onboarding.asked.contains { $0.hasPrefix("credentials") }, "SAML keeps no credentials here")
        #expect(onboarded.context.logger.logLevel == .debug, "the library's log level follows logSettings")
        #expect(!onboarded.context.allows(feature: "camera") && onboarded.context.allows(feature: "maps"))

        // Restarted: the answer is in the store, with its time; nothing is asked again.
        let restoring = ScriptedPresenter(.init(currentPasscodes: [Self.passcode]))
        let restored = await flow.restore(context(restoring))
        #expect(restored.succeeded, "\(String(describing: restored.failure))")
        #expect(!restoring.asked.contains("consent"))
        let (allowed, answer) = UsagePolicyApplyStep.consent(in: restored.context.contents)
        #expect(allowed && answer?.granted == true)
        #expect((answer?.answeredAt ?? .distantPast) >= before && (answer?.answeredAt ?? .distantFuture) <= Date())
        #expect(restored.context[.featureVectorPolicy]?.restricted == ["offline-sync", "camera"])

        // The policy changes on the server: sync asks again; a decline is kept.
        _ = try file(
            "policies.json", #"{"usagePolicy": {"dataCollectionEnabled": "true", "uploadDataAfterDays": "1"}}"#)
        let syncing = ScriptedPresenter(.init(consents: [false]))
        var context = restored.context
        context.presenter = syncing
        let synced = await flow.sync(context)
        #expect(synced.succeeded, "\(String(describing: synced.failure))")
        #expect(syncing.asked == ["consent"])
        #expect(UsagePolicyApplyStep.consent(in: synced.context.contents).allowed == false)
        #expect(synced.context.logger.logLevel == .critical, "logging is off again under the new policies")
        #expect(synced.context.allows(feature: "camera"))
    }
}
