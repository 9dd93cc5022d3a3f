import ActivationConfiguration

/// The passcode policy for people.
enum NewPasscode {
    /// The policy: `at least 8 characters, at least one digit; 10 tries, then the store is deleted; …`.
    static func describe(_ policy: PasscodePolicy) -> [String] {
        var lines = ["Passcode policy: \(policy.rules.map(\.description).joined(separator: ", "))."]
        var after: [String] = []
        after.append(
            policy.retryLimit > 0
                ? "\(policy.retryLimit) wrong passcodes in a row delete the store" : "no limit on wrong passcodes")
        after.append(
            policy.lockTimeout > 0
                ? "unlocked for \(policy.lockTimeout) s after each use" : "locked again after each use")
        after.append(policy.expiresInDays > 0 ? "to be changed every \(policy.expiresInDays) days" : "never expires")
        if policy.fingerprintEnabled { after.append("fingerprint unlock is allowed (not on this system)") }
        lines.append("  " + after.joined(separator: "; ") + ".")
        return lines
    }
}
