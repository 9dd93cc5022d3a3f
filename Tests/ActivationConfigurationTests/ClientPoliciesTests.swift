import Foundation
import Testing

@testable import ActivationConfiguration

@Suite("Client policies: SAP's settingsExchange, the passcode policy's rules, malformed policies")
struct ClientPoliciesTests {
    /// A settingsExchange document as SAP sends it: every value a string.
    static func settings(_ passcode: [String: String], blockWiping: [String: String] = [:], extra: String = "")
        -> [UInt8]
    {
        func object(_ fields: [String: String]) -> String {
            "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
                + "}"
        }
        return Array(
            #"{"passwordPolicy": \#(object(passcode)), "blockWipingPolicy": \#(object(blockWiping))\#(extra)}"#.utf8)
    }

    static func policy(_ fields: [String: String]) throws -> PasscodePolicy {
        try ClientPolicies(json: settings(fields), source: "settings.json").passcode
    }

    @Test("SAP's defaults when a key is missing")
    func defaults() throws {
        let policies = try ClientPolicies(json: Array("{}".utf8), source: "settings.json")
        #expect(policies.passcode == PasscodePolicy())
        #expect(policies.passcode.isEnabled && policies.passcode.minLength == 8 && policies.passcode.retryLimit == 10)
        #expect(
            policies.passcode.lockTimeout == 300 && policies.passcode.expiresInDays == 0
                && !policies.passcode.allowsNoPasscode)
        #expect(policies.blockWiping == BlockWipingPolicy())
        #expect(ClientPolicies.default.passcode == PasscodePolicy())
    }

    @Test("every field by SAP's name, as strings; unknown keys and other policies kept")
    func fields() throws {
        let bytes = Self.settings(
            [
                "passwordPolicyEnabled": "true", "passwordPolicyMinLength": "12", "passwordPolicyDigitRequired": "true",
                "passwordPolicyLowerRequired": "TRUE", "passwordPolicyUpperRequired": "false",
                "passwordPolicySpecialRequired": "true",
                "passwordPolicyMinUniqueChars": "5", "passwordPolicyRetryLimit": "3", "passwordPolicyLockTimeout": "60",
                "passwordPolicyExpiresInNDays": "90", "passwordPolicyDefaultPasswordAllowed": "true",
                "passwordPolicyFingerprintEnabled": "true",
                "passwordPolicyIsDigitsOnly": "false", "passwordPolicyFutureField": "x",
            ],
            blockWiping: ["blockWipeEnabled": "true", "blockDisconnectedPeriod": "7", "wipeDisconnectedPeriod": "30"],
            extra:
                #"""
                , "logSettings": {"logEnabled": "true", "logLevel": "DEBUG"}, "usagePolicy": \#
                {"dataCollectionEnabled": "false"}
                """#
        )
        let policies = try ClientPolicies(json: bytes, source: "settings.json")
        var expected = PasscodePolicy()
        expected.minLength = 12
        expected.digitRequired = true
        expected.lowerRequired = true
        expected.specialRequired = true
        expected.minUniqueCharacters = 5
        expected.retryLimit = 3
        expected.lockTimeout = 60
        expected.expiresInDays = 90
        expected.defaultPasswordAllowed = true
        expected.fingerprintEnabled = true
        #expect(policies.passcode == expected)
        #expect(policies.passcode.allowsNoPasscode)
        #expect(
            policies.blockWiping.isEnabled && policies.blockWiping.blockAfterDays == 7
                && policies.blockWiping.wipeAfterDays == 30)
        // What we do not interpret is kept as it came.
        let document = try #require(policies.document.objectValue)
        #expect(document["logSettings"]?.objectValue?["logLevel"] == .string("DEBUG"))
        #expect(document["passwordPolicy"]?.objectValue?["passwordPolicyFutureField"] == .string("x"))
        // JSON's own booleans and numbers are read too; iOS's -1 means no limit.
        let typed = try ClientPolicies(
            json: Array(
                #"""
                {"passwordPolicy": {"passwordPolicyMinLength": 6, "passwordPolicyDigitRequired": true, \#
                "passwordPolicyRetryLimit": -1}}
                """#
                .utf8),
            source: "s")
        #expect(typed.passcode.minLength == 6 && typed.passcode.digitRequired && typed.passcode.retryLimit == 0)
        // A policy disabled: no passcode needed.
        #expect(try Self.policy(["passwordPolicyEnabled": "false"]).allowsNoPasscode)
    }

    @Test(
        "each rule alone",
        arguments: [
            (["passwordPolicyMinLength": "10"], "abcdefghi", PasscodePolicy.Rule.tooShort(minimum: 10), "abcdefghij"),
            (["passwordPolicyDigitRequired": "true"], "abcdefgh", .digitMissing, "abcdefg1"),
            (["passwordPolicyLowerRequired": "true"], "ABCDEFGH", .lowerMissing, "ABCDEFGh"),
            (["passwordPolicyUpperRequired": "true"], "abcdefgh", .upperMissing, "abcdefgH"),
            (["passwordPolicySpecialRequired": "true"], "abcdefg1", .specialMissing, "abcdefg!"),
            (["passwordPolicyMinUniqueChars": "4"], "aaabbbccc", .tooFewUnique(minimum: 4), "aaabbbcccd"),
            (["passwordPolicyIsDigitsOnly": "true"], "1234567a", .notDigitsOnly, "12345678"),
        ])
    func rule(fields: [String: String], breaking: String, rule: PasscodePolicy.Rule, meeting: String) throws {
        let policy = try Self.policy(fields)
        #expect(policy.validate(breaking) == [rule])
        #expect(policy.validate(meeting) == [])
        #expect(throws: ConfigurationError.self) { try policy.check(breaking) }
        try policy.check(meeting)
    }

    @Test("every rule together, each named; unicode letters count as letters")
    func together() throws {
        let policy = try Self.policy([
            "passwordPolicyMinLength": "12", "passwordPolicyDigitRequired": "true",
            "passwordPolicyLowerRequired": "true",
            "passwordPolicyUpperRequired": "true", "passwordPolicySpecialRequired": "true",
            "passwordPolicyMinUniqueChars": "8",
        ])
        #expect(
            policy.validate("aaaa") == [
                .tooShort(minimum: 12), .digitMissing, .upperMissing, .specialMissing, .tooFewUnique(minimum: 8),
            ])
        #expect(policy.validate("Zürich-2026-Ök") == [])
        #expect(policy.validate("") == [.empty])
        #expect(policy.validate(String(repeating: "Aa1!", count: 300)).contains(.tooLong))
        do {
            try policy.check("aaaa", source: "store.age")
            Issue.record("accepted")
        } catch let error as ConfigurationError {
            #expect(error.code == .passcodeRejected)
            #expect(
                error.reason
                    == """
                    store.age: the passcode does not meet the passcode policy: it needs at least 12 characters, at \
                    least one digit, at least one upper-case letter, at least one character that is not a letter or \
                    digit, at least 8 different characters
                    """
            )
        }
        #expect(
            policy.rules.map(\.description) == [
                "at least 12 characters", "at least one digit", "at least one lower-case letter",
                "at least one upper-case letter", "at least one character that is not a letter or digit",
                "at least 8 different characters",
            ])
    }

    @Test("digits only: a PIN", arguments: ["123456", "000000"])
    func digitsOnly(pin: String) throws {
        let policy = try Self.policy(["passwordPolicyIsDigitsOnly": "true", "passwordPolicyMinLength": "6"])
        #expect(policy.validate(pin) == [])
        #expect(policy.validate(pin + "x") == [.notDigitsOnly])
        #expect(policy.validate("١٢٣٤٥٦") == [.notDigitsOnly], "only 0-9")
    }

    @Test(
        "malformed policies: a clear error naming the key path",
        arguments: [
            (
                #"{"passwordPolicy": {"passwordPolicyMinLength": "eight"}}"#, "passwordPolicy.passwordPolicyMinLength",
                "not a whole number"
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyMinLength": "-1"}}"#, "passwordPolicy.passwordPolicyMinLength",
                "outside 0…256"
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyRetryLimit": "1.5"}}"#, "passwordPolicy.passwordPolicyRetryLimit",
                "not a whole number"
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyDigitRequired": "yes"}}"#,
                "passwordPolicy.passwordPolicyDigitRequired", "not \"true\" or \"false\""
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyEnabled": 1}}"#, "passwordPolicy.passwordPolicyEnabled",
                "not \"true\" or \"false\""
            ),
            (#"{"passwordPolicy": "strict"}"#, "passwordPolicy", "must be an object"),
            (
                #"{"blockWipingPolicy": {"wipeDisconnectedPeriod": []}}"#, "blockWipingPolicy.wipeDisconnectedPeriod",
                "not a whole number"
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": "true", "passwordPolicyUpperRequired": "true"}}"#,
                "passwordPolicy.passwordPolicyUpperRequired", "no passcode could meet both"
            ),
            (
                #"{"passwordPolicy": {"passwordPolicyIsDigitsOnly": "true", "passwordPolicyMinUniqueChars": "11"}}"#,
                "passwordPolicy.passwordPolicyMinUniqueChars", "at most 10"
            ),
        ])
    func malformed(json: String, keyPath: String, message: String) {
        do {
            _ = try ClientPolicies(json: Array(json.utf8), source: "settings.json")
            Issue.record("accepted \(json)")
        } catch let error as ConfigurationError {
            #expect(error.keyPath == keyPath)
            #expect(error.source == "settings.json")
            #expect(error.message.contains(message), "\(error.reason)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("not JSON, or not an object")
    func notJSON() {
        #expect(throws: ConfigurationError.self) { try ClientPolicies(json: Array("{".utf8), source: "s") }
        #expect(throws: ConfigurationError.self) { try ClientPolicies(json: Array("[]".utf8), source: "s") }
        #expect(throws: ConfigurationError.self) {
            try ClientPolicies(json: [UInt8](repeating: 0x20, count: ClientPolicies.maxDocumentBytes + 1), source: "s")
        }
    }

    @Test("block and wipe: the verdict by days since the last contact")
    func blockWiping() throws {
        let policies = try ClientPolicies(
            json: Self.settings(
                [:],
                blockWiping: [
                    "blockWipeEnabled": "true", "blockDisconnectedPeriod": "7", "wipeDisconnectedPeriod": "30",
                ]),
            source: "s")
        let contact = Date(timeIntervalSince1970: 1_800_000_000)
        func verdict(after days: Double) -> BlockWipingPolicy.Verdict {
            policies.blockWiping.verdict(lastContact: contact, now: contact.addingTimeInterval(days * 86_400))
        }
        #expect(verdict(after: 6.9) == .open)
        #expect(verdict(after: 7) == .block(days: 7))
        #expect(verdict(after: 30.5) == .wipe(days: 30))
        var disabled = policies.blockWiping
        disabled.isEnabled = false
        #expect(disabled.verdict(lastContact: contact, now: contact.addingTimeInterval(1000 * 86_400)) == .open)
    }
}
