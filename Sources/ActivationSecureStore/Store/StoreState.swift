import ActivationConfiguration
import Crypto
import Foundation

/// What must be known before the store is open, kept beside it in a small JSON file (mode 0600):
/// the wrong passcodes counted so far and the limit, the lock timeout, how the store is protected,
/// and the digests of the headers that `activate` wrote.
///
/// The header digests tell a damaged or swapped file from a wrong passcode: a passcode that fails
/// on a header that is not one of them is not counted (the store is reported damaged or replaced),
/// so damage never counts as a wrong try, and a store its owner re-encrypted with `age -p` still
/// opens with its passcode. While a passcode change is under way the file lists both the old and the new
/// header, so whichever of the two the store file holds after an interruption still opens.
///
/// The file is not encrypted: it holds no secret. Deleting it resets the counter; against a copy
/// of the store only the KDF's cost protects (docs/onboarding.md, "What this protects, honestly").
struct StoreState: Sendable, Hashable {
    var protection: StoreProtection = .passcode
    var failedAttempts = 0
    /// SAP's default until the store's own policy is known.
    var retryLimit = PasscodePolicy().retryLimit
    var lockTimeout = PasscodePolicy().lockTimeout
    /// SHA-256 (hex) of each header this store may have; empty: not known (a store written by `age -p`).
    var headerDigests: [String] = []

    static let format = "activate-store-state"
    /// The count stops here: a store without a retry limit still has a readable state file.
    static let maxFailedAttempts = 1_000_000
    static let maxBytes = 64 << 10

    init() {}

    init(policies: ClientPolicies, protection: StoreProtection, headers: [AgeHeader]) {
        self.protection = protection
        retryLimit = policies.passcode.retryLimit
        lockTimeout = policies.passcode.lockTimeout
        headerDigests = headers.map(Self.digest)
    }

    static func digest(_ header: AgeHeader) -> String {
        SHA256.hash(data: header.bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `header` is one this state knows (always, when it knows none).
    func accepts(_ header: AgeHeader) -> Bool {
        headerDigests.isEmpty || headerDigests.contains(Self.digest(header))
    }

    /// Tries left before the store is deleted; `nil` without a limit.
    var triesLeft: Int? { retryLimit > 0 ? max(retryLimit - failedAttempts, 0) : nil }

    var value: ConfigurationValue {
        .object([
            "format": .string(Self.format), "version": .integer(1), "protection": .string(protection.rawValue),
            "failedAttempts": .integer(failedAttempts), "retryLimit": .integer(retryLimit),
            "lockTimeout": .integer(lockTimeout),
            "headers": .array(headerDigests.map(ConfigurationValue.string)),
        ])
    }

    /// Reads the state file's text.
    ///
    /// - Throws: `SecureStoreError` `storeDamaged` naming `source` and the key.
    init(json bytes: [UInt8], source: String) throws {
        let value: ConfigurationValue
        do {
            value = try JSONReader(maxBytes: Self.maxBytes, maxDepth: 4).parse(bytes, source: source)
        } catch let error as ConfigurationError {
            throw SecureStoreError(
                .storeDamaged, source: source, "the store's state file is not its JSON: \(error.message)")
        }
        func damaged(_ key: String?, _ message: String) -> SecureStoreError {
            SecureStoreError(
                .storeDamaged, source: source, keyPath: key, "the store's state file is damaged: \(message)")
        }
        guard let object = value.objectValue else { throw damaged(nil, "not an object") }
        guard object["format"] == .string(Self.format), object["version"] == .integer(1) else {
            throw damaged("format", "not \"\(Self.format)\" version 1")
        }
        func count(_ key: String, _ range: ClosedRange<Int>) throws -> Int {
            guard case .integer(let number)? = object[key], range.contains(number) else {
                throw damaged(key, "not a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        guard let protectionText = object["protection"]?.stringValue,
            let protection = StoreProtection(rawValue: protectionText)
        else {
            throw damaged("protection", "not \"passcode\" or \"device-secret\"")
        }
        self.protection = protection
        failedAttempts = try count("failedAttempts", 0...Self.maxFailedAttempts)
        retryLimit = try count("retryLimit", 0...1000)
        lockTimeout = try count("lockTimeout", 0...(366 * 86_400))
        guard let headers = object["headers"]?.arrayValue, headers.count <= 4 else {
            throw damaged("headers", "not a list of at most 4 digests")
        }
        headerDigests = try headers.enumerated().map { index, item in
            guard let text = item.stringValue, text.utf8.count == 64,
                text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else {
                throw damaged("headers[\(index)]", "not a SHA-256 digest in hex")
            }
            return text
        }
    }
}
