import ActivationConfiguration
import ActivationSecureStore

/// The client policies' step: where onboarding gets SAP's `settingsExchange` document from, and
/// how restore brings it up to date. The policies go into the store; the policy steps after it
/// apply them.
///
/// With `.servers(discovery:)` it asks the discovery service first (without
/// the user's credentials), then the configuration's own server (with them): credentials never
/// go to the discovery service (``servers(discovery:document:)``). The first server that answers
/// with policies is recorded, and sync asks it again; a successful answer is the contact with the
/// server that the block-and-wipe policy counts from.
public struct SettingsDownloadStep: OnboardingStep {
    /// Where the policies come from.
    public enum Source: Sendable {
        /// From servers: the discovery service at this base URL when given, then the
        /// configuration's server; SAP's defaults when none answers with policies.
        case servers(discovery: String?)
        /// Policies the app has (a file, managed configuration); no server is asked, and sync
        /// has no server to ask.
        case given(ClientPolicies)
        /// SAP's defaults; no server is asked.
        case defaults
    }

    /// A server to ask, and whether the request carries the user's credentials.
    public struct Server: Sendable, Hashable {
        /// The server's base URL.
        public var baseURL: String
        /// Whether the user's credentials go with the request: only to the configuration's own server.
        public var sendsCredentials: Bool
    }

    /// Where the policies come from.
    public var source: Source
    /// How a server is asked (over HTTP in `activate`; anything in a test or another app).
    public var fetcher: any ClientPoliciesFetcher

    /// The step, taking the policies from `source` and asking servers through `fetcher`.
    public init(source: Source, fetcher: any ClientPoliciesFetcher) {
        self.source = source
        self.fetcher = fetcher
    }

    /// Where onboarding asks, in order: the discovery service when one is given, without the
    /// credentials; then the configuration's own server, with them.
    public static func servers(discovery: String?, document: ConfigurationDocument) -> [Server] {
        var servers: [Server] = []
        if let discovery { servers.append(Server(baseURL: discovery, sendsCredentials: false)) }
        servers.append(Server(baseURL: document.baseURL, sendsCredentials: true))
        return servers
    }

    /// The server a store's policies came from, asked again by sync: with the credentials only
    /// when it is the configuration's own server.
    public static func server(recorded baseURL: String, document: ConfigurationDocument?) -> Server {
        Server(baseURL: baseURL, sendsCredentials: baseURL == document?.baseURL)
    }

    /// Takes the policies from the source into the contents waiting for the store, with the
    /// server they came from and the time of that contact.
    ///
    /// - Throws: ``OnboardingError`` `missingValue` when no configuration step ran before it;
    ///   `ConfigurationError` when a server answers with policies that cannot be read (that is
    ///   the server's mistake, and onboarding must not guess around it).
    public func onboard(_ context: inout OnboardingContext) async throws {
        switch source {
        case .defaults:
            try context.updateContents { $0.clientPolicies = .default }
        case .given(let policies):
            try context.updateContents { $0.clientPolicies = policies }
        case .servers(let discovery):
            guard let document = context.pendingContents.configuration?.document else {
                throw OnboardingError(
                    .missingValue,
                    "no configuration to ask a server for client policies: the configuration step runs first")
            }
            let servers = Self.servers(discovery: discovery, document: document)
            guard
                let (policies, server) = try await fetch(
                    from: servers, document: document, credentials: context.contents.credentials, context: context)
            else {
                context.presenter.show(
                    OnboardingNote(
                        .warning, step: name, "SAP's default client policies apply.", topic: .defaultClientPolicies))
                try context.updateContents { $0.clientPolicies = .default }
                return
            }
            let now = context.now()
            try context.updateContents {
                $0.clientPolicies = policies
                $0.clientPoliciesSource = server
                $0.lastServerContact = now
            }
        }
    }

    /// Nothing to do: the policies are in the store.
    public func restore(_ context: inout OnboardingContext) async throws {}

    /// Asks the server the policies came from for the current ones; on success stores them and
    /// records the contact. When it cannot be asked, the stored policies stay in force, and a
    /// blocked store stays blocked.
    ///
    /// - Throws: ``OnboardingError`` `forbidden` when the policies did not come from a server;
    ///   `SecureStoreError` `storeBlocked` when the server cannot be asked and the store is
    ///   blocked; `ConfigurationError` when it answers with policies that cannot be read.
    public func sync(_ context: inout OnboardingContext) async throws {
        guard let store = context.store else { throw OnboardingError(.notOnboarded, "nothing is restored to sync") }
        let path = store.location.path
        guard let recorded = store.contents.clientPoliciesSource else {
            throw OnboardingError(
                .forbidden,
                """
                \(path): the client policies did not come from a server \
                (onboarding used given policies or SAP's defaults), so there is none to ask again
                """
            )
        }
        let document = store.contents.configuration?.document
        let server = Self.server(recorded: recorded, document: document)
        guard
            let (policies, _) = try await fetch(
                from: [server], document: document, credentials: store.contents.credentials, context: context)
        else {
            if store.isBlocked(now: context.now()) {
                throw SecureStoreError(
                    .storeBlocked, source: path, "the server could not be asked, so the store stays blocked")
            }
            context.presenter.show(OnboardingNote(.info, step: name, "The stored client policies stay in force."))
            return
        }
        let changed = policies != store.contents.clientPolicies
        let now = context.now()
        try context.updateContents {
            $0.clientPolicies = policies
            $0.lastServerContact = now
        }
        context.presenter.show(
            OnboardingNote(
                .info, step: name,
                changed
                    ? "The new client policies are stored; contact recorded."
                    : "The client policies are unchanged; contact recorded."))
    }

    /// Asks each server in turn; the first policies found and the base URL they came from, or
    /// `nil` when no server gave any, each reason told.
    func fetch(
        from servers: [Server], document: ConfigurationDocument?, credentials: StoredCredentials,
        context: OnboardingContext
    ) async throws -> (ClientPolicies, String)? {
        guard let appID = document?.appID else {
            context.presenter.show(
                OnboardingNote(
                    .warning, step: name,
                    "No server was asked for client policies: the configuration names no application id",
                    topic: .noApplicationID))
            return nil
        }
        for server in servers {
            let request = ClientPoliciesRequest(
                serverURL: server.baseURL, applicationID: appID,
                credentials: server.sendsCredentials ? credentials : nil,
                accessToken: server.sendsCredentials ? context.contents.signIn?.accessToken : nil)
            do {
                let (policies, url) = try await fetcher.fetch(request)
                context.presenter.show(OnboardingNote(.info, step: name, "Client policies from \(url)."))
                return (policies, server.baseURL)
            } catch let error as OnboardingError where error.code == .credentialsRefused && request.signsIn {
                // The sign-in was refused where it counts: never onboarded under SAP's defaults instead.
                throw error
            } catch let error as OnboardingError where Self.unanswered.contains(error.code) {
                context.presenter.show(OnboardingNote(.warning, step: name, "No client policies: \(error.reason)."))
            }
        }
        return nil
    }

    /// What a server not answering with policies comes to: it could not be asked, had none, or
    /// refused the credentials. Other errors (policies that cannot be read) stop the step.
    public static let unanswered: Set<OnboardingError.Code> = [
        .serverUnavailable, .noClientPolicies, .credentialsRefused,
    ]
}

/// One request for an application's client policies.
public struct ClientPoliciesRequest: Sendable, Hashable {
    /// The server's base URL.
    public var serverURL: String
    /// The application whose policies are asked for.
    public var applicationID: String
    /// The user's credentials, for the configuration's own server only; `nil` for any other.
    public var credentials: StoredCredentials?
    /// The OAuth 2.0 access token of the sign-in, for the configuration's own server only.
    public var accessToken: String?

    /// A request to `serverURL` for `applicationID`'s policies, with `credentials` or none.
    public init(serverURL: String, applicationID: String, credentials: StoredCredentials?, accessToken: String? = nil) {
        self.serverURL = serverURL
        self.applicationID = applicationID
        self.credentials = credentials
        self.accessToken = accessToken
    }

    /// Whether the request signs in.
    var signsIn: Bool { accessToken != nil || !(credentials?.isEmpty ?? true) }
}

/// How ``SettingsDownloadStep`` asks a server for client policies: `activate` asks over HTTP at
/// SAP's `settingsExchange` path (`SettingsExchangeFetcher`, with the discovery client's trait).
public protocol ClientPoliciesFetcher: Sendable {
    /// The server's policies and the URL they came from (for people).
    ///
    /// - Throws: ``OnboardingError`` when the server gives none: `serverUnavailable` (it could
    ///   not be reached or failed), `noClientPolicies` (it keeps none, or its address is not one
    ///   the client may ask), `credentialsRefused` (HTTP 401 or 403); `ConfigurationError` when it
    ///   answers with policies that cannot be read.
    func fetch(_ request: ClientPoliciesRequest) async throws -> (policies: ClientPolicies, url: String)
}
