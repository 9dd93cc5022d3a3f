import Foundation

/// The client policies a mobile services server sends as its `settingsExchange` document: the
/// passcode policy, the block-and-wipe policy, the log settings, the usage policy and the feature
/// restrictions, and everything it holds kept as received.
///
/// SAP sends booleans and numbers as strings (`"true"`, `"8"`); both that form and JSON's own
/// booleans and numbers are read. A key that is missing takes SAP's default; a key that is present
/// with a value that means nothing is an error naming its key path
/// (`passwordPolicy.passwordPolicyMinLength: not a whole number: "eight"`).
public struct ClientPolicies: Sendable, Hashable {
    /// The passcode policy (`passwordPolicy`).
    public var passcode: PasscodePolicy
    /// The block-and-wipe policy (`blockWipingPolicy`).
    public var blockWiping: BlockWipingPolicy
    /// The log settings (`logSettings`).
    public var logSettings = LogSettings()
    /// The usage policy (`usagePolicy`).
    public var usage = UsagePolicy()
    /// The feature restrictions (`featureVectorPolicies`).
    public var featureVector = FeatureVectorPolicy()
    /// The whole document as received, unknown keys included, so that nothing the server sent is lost.
    public var document: ConfigurationValue

    /// SAP's defaults: a passcode of at least 8 characters, 10 tries, locked after 300 s, no
    /// expiry, no blocking or wiping.
    public static let `default` = ClientPolicies(passcode: PasscodePolicy(), blockWiping: BlockWipingPolicy())

    /// The largest `settingsExchange` document read.
    public static let maxDocumentBytes = 64 << 10

    /// Policies from values; `document` is built from them when not given.
    public init(passcode: PasscodePolicy, blockWiping: BlockWipingPolicy, document: ConfigurationValue? = nil) {
        self.passcode = passcode
        self.blockWiping = blockWiping
        self.document =
            document
            ?? .object([
                "passwordPolicy": passcode.settingsValue, "blockWipingPolicy": blockWiping.settingsValue,
            ])
    }

    /// Reads a `settingsExchange` document (JSON text).
    ///
    /// - Throws: ``ConfigurationError``: the JSON reader's errors, `wrongType` or `invalidValue`
    ///   naming `source` and the key path.
    public init(json bytes: [UInt8], source: String) throws {
        let value = try JSONReader(maxBytes: Self.maxDocumentBytes, maxDepth: 16).parse(bytes, source: source)
        try self.init(from: value, source: source)
    }

    /// Reads a parsed `settingsExchange` document.
    ///
    /// - Throws: ``ConfigurationError`` (`wrongType`, `invalidValue`) naming `source` and the key path.
    public init(from value: ConfigurationValue, source: String) throws {
        guard let object = value.objectValue else {
            throw ConfigurationError(
                .wrongType, source: source, "a settingsExchange document is an object, not \(value.kindDescription)")
        }
        let reader = SettingsReader(source: source)
        passcode = try PasscodePolicy(reading: object["passwordPolicy"], reader.at("passwordPolicy"))
        blockWiping = try BlockWipingPolicy(reading: object["blockWipingPolicy"], reader.at("blockWipingPolicy"))
        logSettings = try LogSettings(reading: object["logSettings"], reader.at("logSettings"))
        usage = try UsagePolicy(reading: object["usagePolicy"], reader.at("usagePolicy"))
        featureVector = try FeatureVectorPolicy(
            reading: object["featureVectorPolicies"], reader.at("featureVectorPolicies"))
        document = value
    }
}

/// SAP's passcode policy (`passwordPolicy` of `settingsExchange`; iOS's `FUIPasscodePolicy`).
public struct PasscodePolicy: Sendable, Hashable {
    /// A passcode is required (`passwordPolicyEnabled`); when false, the store is protected by a device secret.
    public var isEnabled = true
    /// At least this many characters (`passwordPolicyMinLength`).
    public var minLength = 8
    /// At least one digit (`passwordPolicyDigitRequired`).
    public var digitRequired = false
    /// At least one lower-case letter (`passwordPolicyLowerRequired`).
    public var lowerRequired = false
    /// At least one upper-case letter (`passwordPolicyUpperRequired`).
    public var upperRequired = false
    /// At least one character that is neither a letter nor a digit (`passwordPolicySpecialRequired`).
    public var specialRequired = false
    /// At least this many distinct characters (`passwordPolicyMinUniqueChars`).
    public var minUniqueCharacters = 0
    /// Wrong passcodes in a row before the store is deleted (`passwordPolicyRetryLimit`); 0: no limit.
    public var retryLimit = 10
    /// Seconds an unlocked store stays unlocked without use (`passwordPolicyLockTimeout`); 0: locks at once.
    public var lockTimeout = 300
    /// Days after which the passcode must be changed (`passwordPolicyExpiresInNDays`); 0: never.
    public var expiresInDays = 0
    /// The user may skip the passcode; the store is then protected by a device secret only
    /// (`passwordPolicyDefaultPasswordAllowed`).
    public var defaultPasswordAllowed = false
    /// Biometric unlock allowed (`passwordPolicyFingerprintEnabled`): shown, not applied on Linux.
    public var fingerprintEnabled = false
    /// Only the digits 0–9 (`passwordPolicyIsDigitsOnly`).
    public var digitsOnly = false

    /// The longest passcode taken, in bytes: far beyond any policy, short enough to bound the KDF's input.
    public static let maxPasscodeBytes = 1024
    /// The largest minimum length or unique-character count a policy may ask for.
    public static let maxMinLength = 256

    /// SAP's defaults.
    public init() {}

    /// Whether a store may be made without a passcode: the policy asks for none, or allows skipping it.
    public var allowsNoPasscode: Bool { !isEnabled || defaultPasswordAllowed }

    /// A rule of the policy that a passcode can break.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        /// Fewer characters than the minimum length.
        case tooShort(minimum: Int)
        /// No digit.
        case digitMissing
        /// No lower-case letter.
        case lowerMissing
        /// No upper-case letter.
        case upperMissing
        /// No character that is neither a letter nor a digit.
        case specialMissing
        /// Fewer distinct characters than the minimum.
        case tooFewUnique(minimum: Int)
        /// A character that is not a digit where only digits are allowed.
        case notDigitsOnly
        /// Longer than ``PasscodePolicy/maxPasscodeBytes``.
        case tooLong
        /// The passcode is empty.
        case empty

        public var description: String {
            switch self {
            case .tooShort(let minimum): "at least \(minimum) characters"
            case .digitMissing: "at least one digit"
            case .lowerMissing: "at least one lower-case letter"
            case .upperMissing: "at least one upper-case letter"
            case .specialMissing: "at least one character that is not a letter or digit"
            case .tooFewUnique(let minimum): "at least \(minimum) different characters"
            case .notDigitsOnly: "digits only"
            case .tooLong: "at most \(PasscodePolicy.maxPasscodeBytes) bytes"
            case .empty: "not empty"
            }
        }
    }

    /// Every rule `passcode` breaks, in the order of ``rules``; empty when it is acceptable.
    /// A policy that is not enabled asks only that a passcode, where one is given, be neither
    /// empty nor too long.
    public func validate(_ passcode: String) -> [Rule] {
        if passcode.isEmpty { return [.empty] }
        var broken: [Rule] = []
        if passcode.utf8.count > Self.maxPasscodeBytes { broken.append(.tooLong) }
        guard isEnabled else { return broken }
        if passcode.count < minLength { broken.append(.tooShort(minimum: minLength)) }
        if digitsOnly && !passcode.allSatisfy(\.isASCIIDigit) { broken.append(.notDigitsOnly) }
        if digitRequired && !passcode.contains(where: \.isASCIIDigit) { broken.append(.digitMissing) }
        if lowerRequired && !passcode.contains(where: \.isLowercase) { broken.append(.lowerMissing) }
        if upperRequired && !passcode.contains(where: \.isUppercase) { broken.append(.upperMissing) }
        if specialRequired && !passcode.contains(where: { !$0.isLetter && !$0.isNumber }) {
            broken.append(.specialMissing)
        }
        if Set(passcode).count < minUniqueCharacters { broken.append(.tooFewUnique(minimum: minUniqueCharacters)) }
        return broken
    }

    /// Refuses a passcode that breaks the policy, naming every rule it breaks.
    ///
    /// - Throws: ``ConfigurationError`` `passcodeRejected`, naming `source` when given.
    public func check(_ passcode: String, source: String? = nil) throws {
        let broken = validate(passcode)
        guard broken.isEmpty else {
            let needs = broken.map(\.description).joined(separator: ", ")
            throw ConfigurationError(
                .passcodeRejected, source: source,
                "the passcode does not meet the passcode policy: it needs \(needs)"
            )
        }
    }

    /// The rules a passcode must meet, for people (`at least 8 characters`, `at least one digit`, …).
    public var rules: [Rule] {
        var rules: [Rule] = [.tooShort(minimum: minLength)]
        if digitsOnly { rules.append(.notDigitsOnly) }
        if digitRequired { rules.append(.digitMissing) }
        if lowerRequired { rules.append(.lowerMissing) }
        if upperRequired { rules.append(.upperMissing) }
        if specialRequired { rules.append(.specialMissing) }
        if minUniqueCharacters > 0 { rules.append(.tooFewUnique(minimum: minUniqueCharacters)) }
        return rules
    }

    init(reading value: ConfigurationValue?, _ reader: SettingsReader) throws {
        guard let value else { return }
        let object = try reader.object(value)
        isEnabled = try reader.bool(object, "passwordPolicyEnabled") ?? isEnabled
        minLength = try reader.count(object, "passwordPolicyMinLength", in: 0...Self.maxMinLength) ?? minLength
        digitRequired = try reader.bool(object, "passwordPolicyDigitRequired") ?? digitRequired
        lowerRequired = try reader.bool(object, "passwordPolicyLowerRequired") ?? lowerRequired
        upperRequired = try reader.bool(object, "passwordPolicyUpperRequired") ?? upperRequired
        specialRequired = try reader.bool(object, "passwordPolicySpecialRequired") ?? specialRequired
        minUniqueCharacters =
            try reader.count(object, "passwordPolicyMinUniqueChars", in: 0...Self.maxMinLength) ?? minUniqueCharacters
        // iOS's FUIPasscodePolicy writes "no limit" as -1; SAP's cockpit as 0.
        let limit = try reader.count(object, "passwordPolicyRetryLimit", in: -1...1000) ?? retryLimit
        retryLimit = max(limit, 0)
        lockTimeout = try reader.count(object, "passwordPolicyLockTimeout", in: 0...(366 * 86_400)) ?? lockTimeout
        expiresInDays = try reader.count(object, "passwordPolicyExpiresInNDays", in: 0...36_500) ?? expiresInDays
        defaultPasswordAllowed =
            try reader.bool(object, "passwordPolicyDefaultPasswordAllowed") ?? defaultPasswordAllowed
        fingerprintEnabled = try reader.bool(object, "passwordPolicyFingerprintEnabled") ?? fingerprintEnabled
        digitsOnly = try reader.bool(object, "passwordPolicyIsDigitsOnly") ?? digitsOnly
        // A policy no passcode can meet is the server's mistake; say so instead of refusing every passcode.
        if digitsOnly {
            for (key, required) in [
                ("passwordPolicyLowerRequired", lowerRequired), ("passwordPolicyUpperRequired", upperRequired),
                ("passwordPolicySpecialRequired", specialRequired),
            ] where required {
                throw reader.invalid(
                    key, "cannot be \"true\" together with passwordPolicyIsDigitsOnly: no passcode could meet both")
            }
            if minUniqueCharacters > 10 {
                throw reader.invalid(
                    "passwordPolicyMinUniqueChars",
                    "asks for \(minUniqueCharacters) different characters, but a digits-only passcode has at most 10")
            }
        }
    }

    /// The policy in SAP's form (every value a string, as SAP sends it).
    var settingsValue: ConfigurationValue {
        func flag(_ value: Bool) -> ConfigurationValue { .string(value ? "true" : "false") }
        func number(_ value: Int) -> ConfigurationValue { .string(String(value)) }
        return .object([
            "passwordPolicyEnabled": flag(isEnabled), "passwordPolicyMinLength": number(minLength),
            "passwordPolicyDigitRequired": flag(digitRequired), "passwordPolicyLowerRequired": flag(lowerRequired),
            "passwordPolicyUpperRequired": flag(upperRequired), "passwordPolicySpecialRequired": flag(specialRequired),
            "passwordPolicyMinUniqueChars": number(minUniqueCharacters), "passwordPolicyRetryLimit": number(retryLimit),
            "passwordPolicyLockTimeout": number(lockTimeout), "passwordPolicyExpiresInNDays": number(expiresInDays),
            "passwordPolicyDefaultPasswordAllowed": flag(defaultPasswordAllowed),
            "passwordPolicyFingerprintEnabled": flag(fingerprintEnabled),
            "passwordPolicyIsDigitsOnly": flag(digitsOnly),
        ])
    }
}

/// SAP's block-and-wipe policy (`blockWipingPolicy` of `settingsExchange`): without a successful
/// contact with the server for so many days, the store is blocked, then deleted.
public struct BlockWipingPolicy: Sendable, Hashable {
    /// Whether the periods apply (`blockWipeEnabled`).
    public var isEnabled = false
    /// Days without contact after which the store does not open (`blockDisconnectedPeriod`); 0: never.
    public var blockAfterDays = 0
    /// Days without contact after which the store is deleted (`wipeDisconnectedPeriod`); 0: never.
    public var wipeAfterDays = 0

    /// No blocking, no wiping.
    public init() {}

    /// What the policy says of a store whose last contact with the server was at `lastContact`.
    public func verdict(lastContact: Date, now: Date) -> Verdict {
        guard isEnabled else { return .open }
        let days = now.timeIntervalSince(lastContact) / 86_400
        if wipeAfterDays > 0 && days >= Double(wipeAfterDays) { return .wipe(days: Int(days)) }
        if blockAfterDays > 0 && days >= Double(blockAfterDays) { return .block(days: Int(days)) }
        return .open
    }

    /// What ``verdict(lastContact:now:)`` decides.
    public enum Verdict: Sendable, Hashable {
        /// The store may open.
        case open
        /// The store must not open until the server is contacted; `days` since the last contact.
        case block(days: Int)
        /// The store must be deleted; `days` since the last contact.
        case wipe(days: Int)
    }

    init(reading value: ConfigurationValue?, _ reader: SettingsReader) throws {
        guard let value else { return }
        let object = try reader.object(value)
        isEnabled = try reader.bool(object, "blockWipeEnabled") ?? isEnabled
        blockAfterDays = try reader.count(object, "blockDisconnectedPeriod", in: 0...36_500) ?? blockAfterDays
        wipeAfterDays = try reader.count(object, "wipeDisconnectedPeriod", in: 0...36_500) ?? wipeAfterDays
    }

    var settingsValue: ConfigurationValue {
        .object([
            "blockWipeEnabled": .string(isEnabled ? "true" : "false"),
            "blockDisconnectedPeriod": .string(String(blockAfterDays)),
            "wipeDisconnectedPeriod": .string(String(wipeAfterDays)),
        ])
    }
}

/// Reads SAP's string-typed settings values at a key path.
struct SettingsReader {
    var source: String
    var path = ConfigurationPath.root

    func at(_ key: String) -> SettingsReader { SettingsReader(source: source, path: path.appending(key)) }

    func object(_ value: ConfigurationValue) throws -> ConfigurationObject {
        guard let object = value.objectValue else {
            throw ConfigurationError(
                .wrongType, source: source, at: path, "must be an object, not \(value.kindDescription)")
        }
        return object
    }

    func invalid(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(.invalidValue, source: source, at: path.appending(key), message)
    }

    /// `"true"`/`"false"` (any case) or a JSON boolean; `nil` when the key is missing.
    func bool(_ object: ConfigurationObject, _ key: String) throws -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case .string(let text)? where text.lowercased() == "true": return true
        case .string(let text)? where text.lowercased() == "false": return false
        case let other?: throw invalid(key, "not \"true\" or \"false\": \(other.kindDescription)")
        }
    }

    /// A whole number as a string or JSON number, within `range`; `nil` when the key is missing.
    func count(_ object: ConfigurationObject, _ key: String, in range: ClosedRange<Int>) throws -> Int? {
        let number: Int
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: number = value
        case .number(let value)? where Int(exactly: value) != nil: number = Int(exactly: value) ?? 0
        case .string(let text)?:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let value = Int(trimmed) else {
                throw invalid(key, "not a whole number: \(ConfigurationValue.string(text).kindDescription)")
            }
            number = value
        case let other?: throw invalid(key, "not a whole number: \(other.kindDescription)")
        }
        guard range.contains(number) else {
            throw invalid(key, "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
