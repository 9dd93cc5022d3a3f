import ActivationConfiguration
import Foundation
import Testing

@testable import ActivationSecureStore

/// Every branch of the rules that decide what opening a store does, without a file or a key.
@Suite("Unlock rules")
struct UnlockRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let header = try! AgeFormat.makeHeader(
        fileKey: AgeFormat.makeFileKey(), passphrase: [1, 2, 3], workFactor: 1)

    /// A state with a retry limit of `limit` and `failed` wrong passcodes so far.
    static func state(failed: Int = 0, limit: Int = 3, protection: StoreProtection = .passcode) -> StoreState {
        var state = StoreState(policies: .default, protection: protection, headers: [header])
        state.retryLimit = limit
        state.failedAttempts = failed
        return state
    }

    static func rules(_ state: StoreState, known: Bool = true) -> UnlockRules {
        UnlockRules(state: state, headerKnown: known, source: "store.age")
    }

    /// Contents whose passcode was set `passcodeAge` days ago, last in contact `contactAge` days ago,
    /// under an expiry of 30 days and a block after 10 and a wipe after 20 days without contact.
    static func contents(passcodeAge: Double = 1, contactAge: Double? = 1, protection: StoreProtection = .passcode)
        -> SecureStoreContents
    {
        var passcode = PasscodePolicy()
        passcode.retryLimit = 3
        passcode.expiresInDays = 30
        var blockWiping = BlockWipingPolicy()
        blockWiping.isEnabled = true
        blockWiping.blockAfterDays = 10
        blockWiping.wipeAfterDays = 20
        return SecureStoreContents(
            clientPolicies: ClientPolicies(passcode: passcode, blockWiping: blockWiping), protection: protection,
            passcodeChangedAt: now.addingTimeInterval(-passcodeAge * 86_400),
            lastServerContact: contactAge.map { now.addingTimeInterval(-$0 * 86_400) })
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var rules: UnlockRules
        var outcome: UnlockRules.Outcome
        var allowBlocked = false
        var allowExpiredPasscode = false
        /// The failed attempts the state to write holds, or `nil` when nothing is written.
        var writesFailedAttempts: Int?
        var deletes = false
        var refusal: SecureStoreError.Code?
        var messageHas = ""
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "no passcode: required, the tries left said", rules: rules(state(failed: 1)),
            outcome: .passcodeMissing, refusal: .passcodeRequired, messageHas: "2 tries left"),
        Row(
            name: "no passcode, unknown header: no tries said", rules: rules(state(failed: 1), known: false),
            outcome: .passcodeMissing, refusal: .passcodeRequired, messageHas: "passcode is needed"),
        Row(
            name: "device secret fails on a device-secret store: damaged",
            rules: rules(state(protection: .deviceSecret)), outcome: .deviceSecretFailed, refusal: .storeDamaged),
        Row(
            name: "device secret fails while a passcode is being set: ask the passcode", rules: rules(state()),
            outcome: .deviceSecretFailed),
        Row(
            name: "a passcode try is counted before the derivation", rules: rules(state(failed: 1)),
            outcome: .passcodeGiven, writesFailedAttempts: 2),
        Row(
            name: "the count stops at its cap", rules: rules(state(failed: StoreState.maxFailedAttempts, limit: 0)),
            outcome: .passcodeGiven, writesFailedAttempts: StoreState.maxFailedAttempts),
        Row(
            name: "unknown header: a try is not counted", rules: rules(state(failed: 1), known: false),
            outcome: .passcodeGiven),
        Row(
            name: "wrong passcode with tries left", rules: rules(state(failed: 1)), outcome: .passcodeWrong,
            refusal: .wrongPasscode, messageHas: "2 tries left"),
        Row(
            name: "wrong passcode, one try left", rules: rules(state(failed: 2)), outcome: .passcodeWrong,
            refusal: .wrongPasscode, messageHas: "1 try left: one more wrong passcode deletes the store"),
        Row(
            name: "wrong passcode at the limit: wiped", rules: rules(state(failed: 3)), outcome: .passcodeWrong,
            deletes: true, refusal: .storeWiped, messageHas: "3 times in a row"),
        Row(
            name: "wrong passcode without a limit", rules: rules(state(failed: 50, limit: 0)),
            outcome: .passcodeWrong, refusal: .wrongPasscode, messageHas: "wrong passcode"),
        Row(
            name: "wrong passcode, unknown header: not counted, never wiped",
            rules: rules(state(failed: 3), known: false), outcome: .passcodeWrong, refusal: .wrongPasscode,
            messageHas: "this try is not counted"),
        Row(
            name: "right passcode clears the count", rules: rules(state(failed: 2)), outcome: .passcodeRight,
            writesFailedAttempts: 0),
        Row(name: "right passcode, nothing to clear", rules: rules(state()), outcome: .passcodeRight),
        Row(
            name: "right passcode, unknown header: the state is left", rules: rules(state(failed: 2), known: false),
            outcome: .passcodeRight),
        Row(
            name: "opened, state in step: nothing written",
            rules: rules(StoreState(policies: contents().clientPolicies, protection: .passcode, headers: [header])),
            outcome: .opened(contents(), header: header)),
        Row(
            name: "opened: the state follows the policies inside", rules: rules(state(limit: 10)),
            outcome: .opened(contents(), header: header), writesFailedAttempts: 0),
        Row(
            name: "opened with the count left by another header: cleared", rules: rules(state(failed: 2), known: false),
            outcome: .opened(contents(), header: header), writesFailedAttempts: 0),
        Row(
            name: "blocked: no contact for longer than the block period", rules: rules(state()),
            outcome: .opened(contents(contactAge: 12), header: header),
            refusal: .storeBlocked, messageHas: "12 days"),
        Row(
            name: "blocked, but the caller asked to open it anyway", rules: rules(state()),
            outcome: .opened(contents(contactAge: 12), header: header), allowBlocked: true),
        Row(
            name: "wiped: no contact for longer than the wipe period", rules: rules(state()),
            outcome: .opened(contents(contactAge: 25), header: header), allowBlocked: true,
            deletes: true, refusal: .storeWiped, messageHas: "25 days"),
        Row(
            name: "no contact recorded: neither blocked nor wiped", rules: rules(state()),
            outcome: .opened(contents(contactAge: nil), header: header)),
        Row(
            name: "passcode expired", rules: rules(state()),
            outcome: .opened(contents(passcodeAge: 31), header: header),
            refusal: .passcodeExpired, messageHas: "31 days ago"),
        Row(
            name: "passcode expired, opened to change it", rules: rules(state()),
            outcome: .opened(contents(passcodeAge: 31), header: header), allowExpiredPasscode: true),
        Row(
            name: "a device-secret store has no passcode to expire", rules: rules(state(protection: .deviceSecret)),
            outcome: .opened(contents(passcodeAge: 31, protection: .deviceSecret), header: header)),
    ]

    @Test("each outcome's decision", arguments: rows)
    func decision(_ row: Row) {
        let decision = row.rules.decide(
            row.outcome, now: Self.now, allowBlocked: row.allowBlocked, allowExpiredPasscode: row.allowExpiredPasscode)
        #expect(decision.newState?.failedAttempts == row.writesFailedAttempts)
        #expect(decision.deletesStore == row.deletes)
        #expect(decision.refusal?.code == row.refusal)
        if let refusal = decision.refusal {
            #expect(refusal.source == "store.age")
            #expect(row.messageHas.isEmpty || refusal.message.contains(row.messageHas), "\(refusal.message)")
        }
    }

    @Test("the state written after opening holds the policies and only the header opened")
    func syncedState() throws {
        let contents = Self.contents()
        let decision = Self.rules(Self.state(failed: 2, limit: 10), known: false).decide(
            .opened(contents, header: Self.header), now: Self.now)
        let state = try #require(decision.newState)
        #expect(state.retryLimit == 3 && state.lockTimeout == contents.clientPolicies.passcode.lockTimeout)
        #expect(state.headerDigests == [StoreState.digest(Self.header)])
        #expect(state.protection == .passcode)
    }
}
