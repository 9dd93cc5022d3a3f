/// What the error type of each activate library is (`ConfigurationError`, `ImagingError`,
/// `SecureStoreError`, `OnboardingError`, `DiscoveryClientError`, `DiscoveryServiceError`): a
/// code from a closed set for programs, and a reason for people. Two errors are equal when their
/// codes are; the rest only reports.
///
/// Each library's `Code` is a struct over a private enum (swift-certificates' pattern): a program
/// matches the static members it knows, and a new code is not a source-breaking change.
public protocol ActivationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure, from the library's closed set.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible
    /// What went wrong, for programs: match the code, never the text.
    var code: Code { get }
    /// What went wrong, for people.
    var reason: String { get }
}

extension ActivationError {
    /// The ``reason``.
    public var description: String { reason }

    /// Equal when the codes are: the rest only reports.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// An ``ActivationError`` that says where the fault is: the source (a file, URL, provider or
/// database), the key path of the value at fault, and the message without them.
public protocol LocatedError: ActivationError {
    /// The file, URL, provider or database at fault, when there is one.
    var source: String? { get }
    /// The key path of the value at fault, when the error is about one value.
    var keyPath: String? { get }
    /// What went wrong, without the source and key path.
    var message: String { get }
}

extension LocatedError {
    /// What went wrong, for people: `source: keyPath: message`, e.g.
    /// `config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL`.
    public var reason: String {
        [source, keyPath].compactMap { $0 }.map { $0 + ": " }.joined() + message
    }

    /// The parts of an error as it stores them: control or bidirectional characters (they quote
    /// untrusted input) replaced by visible escapes (``UntrustedText``).
    public static func escaped(source: String?, keyPath: String?, message: String)
        -> (source: String?, keyPath: String?, message: String)
    {
        (
            source.map { UntrustedText.escaped($0) }, keyPath.map { UntrustedText.escaped($0) },
            UntrustedText.escaped(message)
        )
    }
}
