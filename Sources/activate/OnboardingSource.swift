import ArgumentParser

/// One entry of `onboard`'s provider queue: `--from KIND:VALUE`, or one of the shorthand options
/// (`--file F` is `--from file:F`).
///
/// The queue's order is the order of `--from`, which is one option, so ArgumentParser keeps it.
/// Shorthand options of different kinds are separate options, whose relative order no parser
/// keeps; `onboard` refuses to guess and asks for `--from` instead (``queue(from:shorthand:)``).
enum OnboardingSource: Equatable {
    case file(String)
    case json(String)
    case managed
    case email(String)
    case code(String)
    case scan(String)

    /// The kinds, as written before the colon, in the order `--help` lists them.
    static let kinds = ["file", "json", "managed", "email", "code", "scan"]

    /// Parses `KIND:VALUE` (`managed` alone); the value is everything after the first colon, so
    /// JSON text and Windows-style paths keep theirs.
    init(parsing argument: String) throws {
        let kind = argument.prefix { $0 != ":" }
        let value = argument.count > kind.count ? String(argument.dropFirst(kind.count + 1)) : nil
        switch (kind.lowercased(), value) {
        case ("managed", nil): self = .managed
        case ("managed", _?):
            throw ValidationError("--from managed takes no value (it reads $ACTIVATE_MANAGED_CONFIG).")
        case (let known, nil) where Self.kinds.contains(known):
            throw ValidationError("--from \(known) needs a value: --from \(known):VALUE.")
        case (_, let value?) where value.isEmpty:
            throw ValidationError("--from \(kind): the value after the colon is empty.")
        case ("file", let value?): self = .file(value)
        case ("json", let value?): self = .json(value)
        case ("email", let value?): self = .email(value)
        case ("code", let value?): self = .code(value)
        case ("scan", let value?): self = .scan(value)
        default:
            throw ValidationError(
                "--from takes KIND:VALUE with KIND one of \(Self.kinds.joined(separator: ", ")) (managed has no value)."
            )
        }
    }

    /// Whether the source asks the discovery service (and so needs --discovery and --app-id).
    var usesDiscovery: Bool {
        switch self {
        case .email, .code: true
        default: false
        }
    }

    /// The queue: `--from` as given, or the shorthand options when they are all of one kind (in
    /// the order given). `shorthand` pairs each shorthand option's name with its sources.
    static func queue(from: [OnboardingSource], shorthand: [(option: String, sources: [OnboardingSource])]) throws
        -> [OnboardingSource]
    {
        let given = shorthand.filter { !$0.sources.isEmpty }
        if !from.isEmpty {
            guard let mixed = given.first else { return from }
            throw ValidationError(
                """
                \(mixed.option) cannot be combined with --from: give every source with --from, in the order to try them.
                """
            )
        }
        guard given.count <= 1 else {
            let names = given.map(\.option).joined(separator: " and ")
            throw ValidationError(
                """
                \(names) were both given, and the order of different options is not kept: give the queue with --from \
                in the order to try it, e.g. --from file:config.json --from scan:code.png.
                """)
        }
        return given.first?.sources ?? []
    }
}
