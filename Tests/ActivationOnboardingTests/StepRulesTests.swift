import ActivationConfiguration
import ActivationSecureStore
import Foundation
import Logging
import Testing

@testable import ActivationOnboarding

/// The rules of the predefined steps that need no server: policy notices, which servers are
/// asked, log levels, settings values.
@Suite("Onboarding steps: the policy's notices, the servers asked, log levels, settings values")
struct StepRulesTests {
    @Test(
        "the passcode and block-wipe steps tell what the policy asks, ahead of time",
        arguments: [
            (3, 10, 9.5, ["The passcode expires in 1 day (the policy asks for a new one every 10 days)"]),
            (3, 10, 2.0, []),
        ])
    func policyNotices(warning: Int, expires: Int, ageDays: Double, expected: [String]) throws {
        var contents = SecureStoreContents(
            clientPolicies: try ClientPolicies(
                json: Array(
                    #"""
                    {"passwordPolicy": {"passwordPolicyExpiresInNDays": "\#(expires)"}, "blockWipingPolicy": \#
                    {"blockWipeEnabled": "true", "blockDisconnectedPeriod": "5", "wipeDisconnectedPeriod": "30"}}
                    """#
                    .utf8), source: "p"))
        let now = Date()
        contents.passcodeChangedAt = now.addingTimeInterval(-ageDays * 86_400)
        #expect(
            PasscodePolicyApplyStep.notices(for: contents, unlockedWith: .passcode, now: now, warningDays: warning)
                == expected)
        contents.lastServerContact = now.addingTimeInterval(-3 * 86_400)
        #expect(
            BlockWipingPolicyApplyStep.notice(for: contents, now: now, warningDays: warning)
                == "Without contact with the server the store is blocked in 2 days")
        contents.lastServerContact = now
        #expect(BlockWipingPolicyApplyStep.notice(for: contents, now: now, warningDays: warning) == nil)
        contents.protection = .deviceSecret
        #expect(
            PasscodePolicyApplyStep.notices(for: contents, unlockedWith: .deviceSecret, now: now, warningDays: warning)
                == ["The passcode policy now requires a passcode, and the store has none"])
    }

    @Test("which servers are asked, in which order, and which get the credentials: a decision apart from I/O")
    func serverDecision() throws {
        let document = try ConfigurationDocument(
            from: try JSONReader().parse(
                Array(#"{"host": "mobile.example.com", "appID": "a", "auth": [{"type": "basic.default"}]}"#.utf8),
                source: "d"),
            source: "d")
        let both = SettingsDownloadStep.servers(discovery: "https://discovery.example.com", document: document)
        #expect(both.map(\.baseURL) == ["https://discovery.example.com", "https://mobile.example.com"])
        #expect(both.map(\.sendsCredentials) == [false, true])
        #expect(SettingsDownloadStep.servers(discovery: nil, document: document).map(\.sendsCredentials) == [true])
        #expect(
            SettingsDownloadStep.server(recorded: "https://mobile.example.com", document: document).sendsCredentials)
        #expect(
            !SettingsDownloadStep.server(recorded: "https://discovery.example.com", document: document).sendsCredentials
        )
        #expect(!SettingsDownloadStep.server(recorded: "https://mobile.example.com", document: nil).sendsCredentials)
    }

    @Test(
        "log levels follow SAP's settings",
        arguments: [
            (#"{"logEnabled": "true", "logLevel": "PATH"}"#, Logger.Level.trace),
            (#"{"logEnabled": "true", "logLevel": "warn"}"#, .warning),
            (#"{"logEnabled": "false", "logLevel": "DEBUG"}"#, .critical),
            (#"{"logEnabled": "true", "logLevel": "NONE"}"#, .critical),
        ])
    func logLevels(settings: String, level: Logger.Level) throws {
        let policies = try ClientPolicies(json: Array(#"{"logSettings": \#(settings)}"#.utf8), source: "p")
        #expect(LogSettingsApplyStep.level(for: policies.logSettings) == level)
    }

    @Test("settings values that mean nothing are refused with their key path")
    func invalidSettings() {
        for (document, reason) in [
            (
                #"{"logSettings": {"logLevel": "LOUD"}}"#,
                "p: logSettings.logLevel: not one of NONE, FATAL, ERROR, WARN, INFO, DEBUG, PATH"
            ),
            (
                #"{"featureVectorPolicies": {"restrictedPolicies": [1]}}"#,
                "p: featureVectorPolicies.restrictedPolicies[0]: not a feature name"
            ),
            (
                #"{"usagePolicy": {"dataCollectionEnabled": "yes"}}"#,
                "p: usagePolicy.dataCollectionEnabled: not \"true\" or \"false\""
            ),
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try ClientPolicies(json: Array(document.utf8), source: "p")
            }
            #expect(error?.reason.hasPrefix(reason) == true, "\(error?.reason ?? "")")
        }
    }
}
