/// Why one provider gave nothing.
public struct ProviderFailure: Sendable, Hashable, CustomStringConvertible {
    /// The provider's ``ConfigurationProvider/identifier``.
    public var providerID: String
    /// What it said.
    public var error: ConfigurationError
    public var description: String { "\(providerID): \(error.reason)" }
}

/// The outcome of a load: the winner, if any, and what every other provider said.
public struct LoadResult: Sendable {
    /// The provider that succeeded and what it found.
    public var winner: (providerID: String, configuration: ProvidedConfiguration)?
    /// Each provider that was asked and failed, in queue order.
    public var failures: [ProviderFailure]
    /// Providers that needed input nobody gave; they were not asked.
    public var skipped: [String]

    /// The configuration, or an error that lists every provider's reason.
    ///
    /// - Throws: ``ConfigurationError`` (`notFound`) naming each provider and why it failed.
    public func get() throws -> (providerID: String, configuration: ProvidedConfiguration) {
        if let winner { return winner }
        var lines = failures.map { "  \($0)" }
        lines += skipped.map { "  \($0): skipped, no input was given" }
        if lines.isEmpty { lines = ["  no providers were configured"] }
        throw ConfigurationError(.notFound, lines: ["no configuration found:"] + lines)
    }
}

/// Asks providers in order; the first that succeeds wins (reference §3).
///
/// Providers that need input (an e-mail address, an onboarding code) are asked together: when the
/// queue first reaches one, the loader calls `input` once with the keys of every input-needing
/// provider still in the queue. A provider none of whose keys was answered is skipped. Every
/// failure is recorded with the provider's id, and the queue goes on.
///
/// ```swift
/// let loader = ConfigurationLoader(providers: [
///     ManagedConfigurationProvider(), FileConfigurationProvider(path: "config.json"),
/// ])
/// let result = try await loader.load { keys in ["emailAddress": "someone@example.com"] }
/// let (provider, configuration) = try result.get()
/// ```
public struct ConfigurationLoader: Sendable {
    /// The providers, asked in this order.
    public var providers: [any ConfigurationProvider]

    /// A loader that asks `providers` in order.
    public init(providers: [any ConfigurationProvider]) {
        self.providers = providers
    }

    /// Runs the queue.
    ///
    /// - Parameter input: asked at most once, with the keys the remaining providers can use;
    ///   return the answers (an empty answer skips them).
    /// - Throws: only `CancellationError`, when the task is cancelled (checked before each
    ///   provider, and passed on from a provider): a cancelled load is no provider's failure.
    public func load(input: @Sendable ([ProviderInputKey]) async -> ProviderInput = { _ in [:] }) async throws
        -> LoadResult
    {
        var result = LoadResult(winner: nil, failures: [], skipped: [])
        var answers: ProviderInput?
        for (index, provider) in providers.enumerated() {
            try Task.checkCancellation()
            let keys = provider.inputKeys
            if !keys.isEmpty {
                if answers == nil {
                    var wanted: [ProviderInputKey] = []
                    for later in providers[index...] {
                        for key in later.inputKeys where !wanted.contains(key) { wanted.append(key) }
                    }
                    answers = await input(wanted)
                }
                guard keys.contains(where: { answers?[$0]?.isEmpty == false }) else {
                    result.skipped.append(provider.identifier)
                    continue
                }
            }
            do {
                let configuration = try await provider.provide(input: answers ?? [:])
                result.winner = (provider.identifier, configuration)
                return result
            } catch let error as ConfigurationError {
                result.failures.append(ProviderFailure(providerID: provider.identifier, error: error))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                result.failures.append(
                    ProviderFailure(
                        providerID: provider.identifier,
                        error: ConfigurationError(.serviceUnavailable, "\(error)")))
            }
        }
        return result
    }
}

extension ConfigurationLoader {
    /// The providers the SDKs ask when an app names none, in their order: managed configuration,
    /// then the bundled file, `ConfigurationProvider.json` in `folder` if it exists, else
    /// `ConfigurationProvider.plist`. An app with a discovery service appends its provider.
    public static func defaultProviders(recognizer: PayloadRecognizer = PayloadRecognizer(), folder: String = ".")
        -> [any ConfigurationProvider]
    {
        let json = folder == "." ? "ConfigurationProvider.json" : "\(folder)/ConfigurationProvider.json"
        let plist = folder == "." ? "ConfigurationProvider.plist" : "\(folder)/ConfigurationProvider.plist"
        return [
            ManagedConfigurationProvider(recognizer: recognizer),
            FileConfigurationProvider(path: FileIO.exists(json) ? json : plist, recognizer: recognizer),
        ]
    }
}
