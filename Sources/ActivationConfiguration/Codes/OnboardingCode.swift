/// An onboarding code of a discovery service, as the service issues it and as a person types it.
///
/// The service makes codes of Crockford Base32 (12 characters, 60 bits: `ABCD-EFGH-JKMN`) or, for
/// apps that take digits only, SAP-style digit codes. People read them off a sheet or an e-mail, so
/// reading is forgiving: letters in either case, `-` and spaces anywhere, and the look-alikes `I`,
/// `L` (read as `1`) and `O` (read as `0`). What is hashed, stored and compared is ``canonical``.
///
/// A code is a secret until it is used: its `description` is redacted, so that a code interpolated
/// into a log line or an error does not leak; show it on purpose with ``grouped``.
public struct OnboardingCode: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The code without separators, in upper case, look-alikes mapped: `ABCDEFGHJKMN`.
    public let canonical: String

    /// How the service makes new codes.
    public enum Style: Sendable, Hashable {
        /// `count` characters of Crockford Base32, 5 bits each.
        case base32(count: Int)
        /// `count` decimal digits, about 3.3 bits each (for apps that take digits only).
        case digits(count: Int)

        /// 12 Base32 characters: 60 bits, too many to guess within any rate limit.
        public static let standard = Style.base32(count: 12)
    }

    /// The longest code read: anything longer is not a code of ours.
    public static let maxLength = 64

    /// Crockford's Base32 alphabet: the digits and the letters but I, L, O and U.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// Reads a code as typed; `nil` when it holds anything but Base32 characters, look-alikes,
    /// `-` and spaces, or is empty or longer than ``maxLength``.
    public init?(typed text: String) {
        var canonical = ""
        for character in text.uppercased() {
            switch character {
            case "-", " ": continue
            case "I", "L": canonical.append("1")
            case "O": canonical.append("0")
            case _ where Self.alphabet.contains(character): canonical.append(character)
            default: return nil
            }
            if canonical.count > Self.maxLength { return nil }
        }
        guard !canonical.isEmpty else { return nil }
        self.canonical = canonical
    }

    /// A new code drawn from the system's secure random source.
    public static func random(_ style: Style = .standard) -> OnboardingCode {
        var generator = SystemRandomNumberGenerator()
        let characters: [Character] =
            switch style {
            case .base32(let count):
                (0..<max(1, min(count, maxLength))).map { _ in alphabet[Int(generator.next() % 32)] }
            case .digits(let count):
                (0..<max(1, min(count, maxLength))).map { _ in alphabet[Int.random(in: 0..<10, using: &generator)] }
            }
        return OnboardingCode(canonical: String(characters))
    }

    private init(canonical: String) {
        self.canonical = canonical
    }

    /// The code in groups of four joined by `-`, as it is shown and printed: `ABCD-EFGH-JKMN`.
    public var grouped: String {
        var groups: [Substring] = []
        var rest = Substring(canonical)
        while !rest.isEmpty {
            groups.append(rest.prefix(4))
            rest = rest.dropFirst(4)
        }
        return groups.joined(separator: "-")
    }

    /// `onboarding code (redacted)`: never the code itself.
    public var description: String { "onboarding code (redacted)" }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
