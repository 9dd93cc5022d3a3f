import ActivationConfiguration
import ActivationDiscoveryProtocol
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import ActivationDiscovery
@testable import ActivationDiscoveryServer

extension ServerSuites {
    /// The database-backed service (`serve --database`): real servers on loopback ports over real
    /// SQLite files and a real PostgreSQL cluster, spoken to with the provider and the admin client.
    @Suite("Discovery service on a database: one-time codes, guessing limits, admin API", .serialized)
    final class DiscoveryServiceTests {
        static let appID = "com.example.fieldservice"
        static let token = "test-token-0123456789abcdef"
        let temporary: TemporaryFolder
        var folder: String { temporary.path }

        init() throws { temporary = try TemporaryFolder(prefix: "activate-service") }

        enum Backend: String, CaseIterable, Sendable { case sqlite, postgres }

        /// Running instances of one service: each its own server and database pool over one store.
        struct Instances {
            let urls: [String]
            /// The cluster of a PostgreSQL backend.
            var postgres: PostgresServer? = nil
            var url: String { urls[0] }
            var port: Int { Self.port(of: url) }

            static func port(of url: String) -> Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

            func admin(token: String = DiscoveryServiceTests.token) throws -> DiscoveryAdminClient {
                try DiscoveryAdminClient(serviceURL: url, token: token)
            }
        }

        /// Runs `body` with `count` instances on one store of `backend`, each made as `activate serve`
        /// makes it: a `DiscoveryService.Configuration` with the standard folder (imported by the
        /// first), the admin API open with ``token``, and the guessing limits given.
        func withInstances(
            _ backend: Backend, count: Int = 1, perClient: RateLimit? = nil, perApplication: RateLimit? = nil,
            trustedProxies: [IPNetwork] = [], refreshEvery: Duration = .milliseconds(200), codeDigits: Int? = nil,
            _ body: (Instances) async throws -> Void
        ) async throws {
            let postgres = backend == .postgres ? try PostgresServer.start() : nil
            defer { postgres?.stop() }
            let served = try ServedFolder(index: ServedFolder.standardIndex)
            var quiet = Logger(label: "test")
            quiet.logLevel = .critical
            var tasks: [Task<Void, any Error>] = []
            var urls: [String] = []
            defer { for task in tasks { task.cancel() } }
            for index in 0..<count {
                var configuration = DiscoveryService.Configuration(
                    store: backend == .sqlite
                        ? .sqlite(path: "\(folder)/discovery.sqlite")
                        : .postgres(url: try #require(postgres).url, password: nil),
                    logger: quiet)
                configuration.folder = index == 0 ? served.path : nil
                configuration.secretFile = "\(folder)/secret"
                configuration.adminTokens = try AdminTokens(tokens: [Self.token])
                configuration.codeDigits = codeDigits
                configuration.clientLimit = perClient
                configuration.applicationLimit = perApplication
                configuration.trustedProxies = trustedProxies
                configuration.port = 0
                configuration.refreshInterval = refreshEvery
                configuration.qrSVG = { _ in "<svg/>" }
                let service = DiscoveryService(configuration)
                let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
                tasks.append(
                    Task {
                        defer { continuation.finish() }
                        try await service.run { continuation.yield($0) }
                    })
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next() else {
                    _ = try await tasks[index].value
                    throw CancellationError()
                }
                urls.append("http://127.0.0.1:\(port)")
            }
            do {
                try await body(Instances(urls: urls, postgres: postgres))
            } catch {
                for task in tasks { task.cancel() }
                for task in tasks { _ = await task.result }
                throw error
            }
            for task in tasks { task.cancel() }
            for task in tasks { _ = await task.result }
        }

        /// Issues `count` codes of `document` through the admin API; their ids and plain texts.
        static func issue(
            _ admin: DiscoveryAdminClient, count: Int = 1, document: String = "android-basic.json", uses: Int = 1,
            expiresIn: Int = 3600, label: String? = nil
        ) async throws -> [(id: Int, code: String)] {
            let answer = try await admin.issueCodes(
                appID: appID,
                CodeOrder(document: document, expiresIn: expiresIn, uses: uses, label: label, count: count))
            return answer.codes.map { (Int($0.id), $0.code) }
        }

        func lookup(_ url: String, code: String) async throws -> ProvidedConfiguration {
            try await provider(url, [.onboardingCode: code]).provide(input: [:])
        }

        static func codeTarget(_ code: String) -> String {
            """
            /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='\(appID):1.0',\
            OnboardingCode='\(code)')
            """
        }

        @Test(
            """
            the onboarding flow: a code is issued, used once, then 410 used; revoked and expired codes say so in plain \
            words
            """,
            arguments: Backend.allCases)
        func onboardingFlow(backend: Backend) async throws {
            try await withInstances(backend) { service in
                let admin = try service.admin()
                let issued = try await Self.issue(admin, count: 3, label: "field tech")
                #expect(issued.count == 3 && Set(issued.map(\.code)).count == 3)
                #expect(
                    issued.allSatisfy { $0.code.count == 14 && $0.code.split(separator: "-").count == 3 },
                    "ABCD-EFGH-JKMN")
                // Used once, typed in lower case without dashes.
                let first = try await lookup(
                    service.url, code: issued[0].code.lowercased().replacingOccurrences(of: "-", with: ""))
                #expect(first.document.auth.first?.method == .basic)
                let again = await #expect(throws: ConfigurationError.self) {
                    try await lookup(service.url, code: issued[0].code)
                }
                #expect(again?.code == .codeUsed)
                #expect(again?.message == "this onboarding code was already used; ask your administrator for a new one")
                #expect(again?.reason.contains(issued[0].code) == false)
                _ = try await admin.revokeCode(appID: Self.appID, id: Int64(issued[1].id))
                let revoked = await #expect(throws: ConfigurationError.self) {
                    try await lookup(service.url, code: issued[1].code)
                }
                #expect(revoked?.code == .codeRevoked)
                #expect(revoked?.message == "this onboarding code was revoked; ask your administrator for a new one")
                let unknown = await #expect(throws: ConfigurationError.self) {
                    try await lookup(service.url, code: OnboardingCode.random().grouped)
                }
                #expect(unknown?.code == .notFound)
                // The imported folder: its expired code answers 410 expired, its e-mail domain 200.
                let expired = await #expect(throws: ConfigurationError.self) {
                    try await lookup(service.url, code: "8765-4321")
                }
                #expect(expired?.code == .expired)
                let byEmail = try await provider(service.url, [.emailAddress: "someone@eu.example.com"]).provide(
                    input: [:])
                #expect(byEmail.document.auth.first?.method.typeName == "oauth2")
                // Listings name codes by id and status, never by the code.
                let listed = AdminJSON.text(try await admin.codes(appID: Self.appID))
                #expect(
                    issued.allSatisfy {
                        !listed.contains($0.code) && !listed.contains($0.code.replacingOccurrences(of: "-", with: ""))
                    })
                let used = try await admin.codes(appID: Self.appID, status: .used)
                #expect(
                    used.codes.count == 1 && used.codes[0].id == Int64(issued[0].id) && used.codes[0].consumedAt != nil)
                let active = try await admin.codes(appID: Self.appID, status: .active)
                #expect(active.codes.filter { $0.label == "field tech" }.map(\.id) == [Int64(issued[2].id)])
            }
        }

        @Test(
            """
            in an application's own ServiceGroup: it serves, and the group's graceful shutdown stops it and frees the \
            port
            """
        )
        func inServiceGroup() async throws {
            let served = try ServedFolder(index: ServedFolder.standardIndex)
            var quiet = Logger(label: "test")
            quiet.logLevel = .critical
            var configuration = DiscoveryService.Configuration(
                store: .sqlite(path: "\(folder)/group.sqlite"), logger: quiet)
            configuration.folder = served.path
            configuration.secretFile = "\(folder)/secret"
            configuration.port = try PostgresServer.freePort()
            let group = ServiceGroup(services: [DiscoveryService(configuration)], logger: quiet)
            let running = Task { try await group.run() }
            var health: RawResponse?
            for _ in 0..<100 where health == nil {
                health = try? await rawRequest(port: configuration.port, "/health")
                if health == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(health?.status == 200)
            let byEmail = try await provider(
                "http://127.0.0.1:\(configuration.port)", [.emailAddress: "someone@eu.example.com"]
            ).provide(input: [:])
            #expect(byEmail.document.auth.first?.method.typeName == "oauth2")
            let clock = ContinuousClock()
            let start = clock.now
            await group.triggerGracefulShutdown()
            try await running.value
            // A hang guard: the shutdown ends instead of waiting for connections for ever.
            #expect(clock.now - start < .seconds(30))
            #expect(await (try? rawRequest(port: configuration.port, "/health")) == nil, "nothing listens any more")
        }

        @Test("SAP-style 8-digit codes: issued, found as typed with a dash")
        func digitCodes() async throws {
            try await withInstances(.sqlite, codeDigits: 8) { service in
                let issued = try await Self.issue(try service.admin(), count: 20)
                let digits = issued.map { $0.code.filter(\.isNumber) }
                #expect(issued.count == 20 && digits.allSatisfy { $0.count == 8 }, "\(issued.map(\.code))")
                let code = digits[0]
                let found = try await lookup(service.url, code: code.prefix(4) + "-" + code.dropFirst(4))
                #expect(found.document.auth.first?.method == .basic)
            }
        }

        @Test(
            "a domain mapped on one instance is served by the other after its next refresh", arguments: Backend.allCases
        )
        func crossInstanceCache(backend: Backend) async throws {
            try await withInstances(backend, count: 2, refreshEvery: .seconds(1)) { service in
                let other = service.urls[1]
                let before = await #expect(throws: ConfigurationError.self) {
                    try await provider(other, [.emailAddress: "a@new.example.org"]).provide(input: [:])
                }
                #expect(before?.code == .notFound)
                _ = try await service.admin().putDomain(
                    appID: Self.appID, domain: "new.example.org", document: "android-basic.json")
                let clock = ContinuousClock()
                let start = clock.now
                var served = false
                // Refreshes come every second; the wait is wide for a loaded machine, and without
                // the refresh the other instance would never serve the domain.
                while clock.now - start < .seconds(20), !served {
                    served =
                        (try? await provider(other, [.emailAddress: "a@new.example.org"]).provide(input: [:])) != nil
                    if !served { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(served, "the second instance served the new domain")
            }
        }

        @Test(
            """
            guessing: a client gets its burst of failures summed over both instances, then 429 with Retry-After; \
            others still look up
            """,
            arguments: Backend.allCases)
        func guessingLimit(backend: Backend) async throws {
            try await withInstances(
                backend, count: 2, perClient: RateLimit(perMinute: 1, burst: 6),
                perApplication: RateLimit(perMinute: 600, burst: 600),
                trustedProxies: [try #require(IPNetwork("127.0.0.1"))]
            ) { service in
                var statuses: [Int] = []
                var retryAfter: String?
                for attempt in 0..<12 {
                    let code = OnboardingCode.random(.digits(count: 8)).canonical
                    let response = try await rawRequest(
                        port: Instances.port(of: service.urls[attempt % 2]), Self.codeTarget(code),
                        headers: "X-Forwarded-For: 198.51.100.7\r\n")
                    statuses.append(response?.status ?? 0)
                    if response?.status == 429 { retryAfter = response?.header("Retry-After") }
                }
                #expect(statuses.prefix(6).allSatisfy { $0 == 404 }, "\(statuses)")
                #expect(statuses.suffix(6).allSatisfy { $0 == 429 }, "\(statuses)")
                #expect(retryAfter == "60")
                // Another client (another forwarded address) is not held back, nor are e-mail lookups.
                let other = try await rawRequest(
                    port: service.port, Self.codeTarget("00000000"), headers: "X-Forwarded-For: 198.51.100.8\r\n")
                #expect(other?.status == 404)
                let email = try await provider(service.urls[1], [.emailAddress: "a@example.com"]).provide(input: [:])
                #expect(email.document.auth.first?.method.typeName == "oauth2")
                // Thirty guesses at once from a fresh client (non-blocking requests, so that they are
                // truly concurrent): still exactly its burst answered.
                let burst = try await withThrowingTaskGroup(of: Int.self) { group in
                    for attempt in 0..<30 {
                        group.addTask {
                            var request = HTTPClientRequest(
                                url: service.urls[attempt % 2] + Self.codeTarget(
                                    OnboardingCode.random(.digits(count: 8)).canonical
                                )
                                .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)
                            request.headers.add(name: "X-Forwarded-For", value: "198.51.100.20")
                            return Int(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code)
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(burst.filter { $0 == 404 }.count == 6, "\(burst.sorted())")
                #expect(burst.filter { $0 == 429 }.count == 24, "\(burst.sorted())")
                // A client whose codes are good is not counted: its tokens are given back (within 100 ms).
                let issued = try await Self.issue(service.admin(), count: 8, uses: 1)
                for item in issued {
                    let good = try await rawRequest(
                        port: service.port, Self.codeTarget(item.code), headers: "X-Forwarded-For: 198.51.100.9\r\n")
                    #expect(good?.status == 200)
                    try await Task.sleep(for: GuessingLimits.giveBackInterval * 2)
                }
            }
        }

        @Test("the application's budget is shared by all its clients: past it, every client gets 429")
        func applicationLimit() async throws {
            try await withInstances(
                .sqlite, perClient: RateLimit(perMinute: 60, burst: 100),
                perApplication: RateLimit(perMinute: 1, burst: 3),
                trustedProxies: [try #require(IPNetwork("127.0.0.1"))]
            ) { service in
                var statuses: [Int] = []
                for client in 1...6 {
                    let response = try await rawRequest(
                        port: service.port, Self.codeTarget("0000000\(client)"),
                        headers: "X-Forwarded-For: 203.0.113.\(client)\r\n")
                    statuses.append(response?.status ?? 0)
                }
                #expect(statuses == [404, 404, 404, 429, 429, 429], "\(statuses)")
            }
        }

        @Test("X-Forwarded-For counts only from a trusted proxy, right to left")
        func forwardedFor() throws {
            let proxy = try #require(IPNetwork("10.0.0.0/8"))
            let peer = try SocketAddress(ipAddress: "10.1.2.3", port: 1)
            #expect(
                ClientAddress.of(peer: peer, forwardedFor: ["203.0.113.5, 10.9.9.9"], trusted: [proxy]) == "203.0.113.5"
            )
            #expect(
                ClientAddress.of(peer: peer, forwardedFor: ["198.51.100.1, 203.0.113.5"], trusted: [proxy])
                    == "203.0.113.5",
                "the left part is the client's own text")
            #expect(ClientAddress.of(peer: peer, forwardedFor: ["203.0.113.5"], trusted: []) == "10.1.2.3")
            let outsider = try SocketAddress(ipAddress: "192.0.2.1", port: 1)
            #expect(ClientAddress.of(peer: outsider, forwardedFor: ["203.0.113.5"], trusted: [proxy]) == "192.0.2.1")
            #expect(ClientAddress.of(peer: peer, forwardedFor: ["not an address"], trusted: [proxy]) == "10.1.2.3")
            #expect(IPNetwork("::1")?.contains(IPNetwork.bytes(of: "::1") ?? []) == true)
            #expect(IPNetwork("2001:db8::/32")?.contains(IPNetwork.bytes(of: "2001:db8:1::5") ?? []) == true)
            #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("example.com") == nil)
        }

        @Test("rate strings: 10/min, 2/s, burst; nonsense refused")
        func rates() {
            #expect(RateLimit(parsing: "10/min,burst=20") == RateLimit(perMinute: 10, burst: 20))
            #expect(RateLimit(parsing: "2/s") == RateLimit(perMinute: 120, burst: 240))
            #expect(RateLimit(parsing: "600/min") == RateLimit(perMinute: 600, burst: 1200))
            for bad in ["", "off", "10", "10/week", "-1/min", "10/min,burst=0", "10/min,x=1", "nan/min"] {
                #expect(RateLimit(parsing: bad) == nil, "\(bad)")
            }
        }

        @Test(
            """
            admin API: no token or a wrong one gets 401 and nothing else; an invalid document 400 with its key path; \
            every call audited
            """
        )
        func adminAPI() async throws {
            try await withInstances(.sqlite, perClient: RateLimit(perMinute: 60, burst: 100)) { service in
                let wrong = await #expect(throws: DiscoveryClientError.self) {
                    try await service.admin(token: "wrong-token-wrong-token-wrong").applications()
                }
                #expect(wrong?.code == .unauthorized)
                #expect(
                    try await rawRequest(port: service.port, "/admin/v1/nothing-here")?.status == 401,
                    "paths are not told apart without a token")
                let admin = try service.admin()
                let invalid = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.putDocument(
                        appID: Self.appID, name: "bad.json", json: Array(#"{"host":"https://bad.example.com"}"#.utf8))
                }
                #expect(invalid?.code == .refused && invalid?.refusal == .invalidDocument)
                #expect(invalid?.keyPath == "host", "\(invalid?.reason ?? "")")
                let badOrder = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.issueCodes(
                        appID: Self.appID, CodeOrder(document: "android-basic.json", count: 5000))
                }
                #expect(badOrder?.keyPath == "count")
                let noDocument = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.issueCodes(appID: Self.appID, CodeOrder(document: "missing.json"))
                }
                #expect(noDocument?.code == .notFound)
                _ = try await Self.issue(admin)
                let apps = try await admin.applications()
                #expect(apps.applications.first?.appID == Self.appID)
                let audit = try await admin.audit()
                let actions = Set(audit.entries.map(\.action))
                #expect(
                    actions.isSuperset(of: ["applications.list", "codes.issue", "documents.put", "sign-in"]),
                    "\(actions)")
                #expect(
                    audit.entries.contains {
                        $0.action == "documents.put" && $0.outcome == "invalid-document" && $0.subject == "bad.json"
                    })
                #expect(audit.entries.contains { $0.actor == "unauthenticated" && $0.outcome == "unauthorized" })
                #expect(!AdminJSON.text(audit).contains(Self.token))
            }
        }

        static func settingsTarget(_ appID: String = appID) -> String {
            """
            /mobileservices/application/\(appID)/storage/v1/runtime/application/\(appID)/global/mobileservices/\
            settingsExchange
            """
        }

        @Test(
            """
            client policies: set through the admin API, checked with the key path, served by every instance at \
            settingsExchange, audited
            """,
            arguments: Backend.allCases)
        func clientPolicies(backend: Backend) async throws {
            try await withInstances(backend, count: 2) { service in
                let admin = try service.admin()
                let other = Instances.port(of: service.urls[1])
                #expect(try await rawRequest(port: other, Self.settingsTarget())?.status == 404)
                let invalid = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.putSettings(
                        appID: Self.appID,
                        json: Array(
                            #"""
                            {"passwordPolicy":{"passwordPolicyIsDigitsOnly":"true","passwordPolicyUpperRequired":\#
                            "true"}}
                            """#
                            .utf8))
                }
                #expect(invalid?.code == .refused && invalid?.refusal == .invalidSettings)
                #expect(invalid?.keyPath == "passwordPolicy.passwordPolicyUpperRequired", "\(invalid?.reason ?? "")")
                let notObject = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.putSettings(appID: Self.appID, json: Array(#"{"blockWipingPolicy":"on"}"#.utf8))
                }
                #expect(notObject?.keyPath == "blockWipingPolicy")

                let sent =
                    #"""
                    {"passwordPolicy":{"passwordPolicyMinLength":"10","passwordPolicyRetryLimit":"3"},"usagePolicy":\#
                    {"dataCollectionEnabled":"false"}}
                    """#
                let stored = try await admin.putSettings(appID: Self.appID, json: Array(sent.utf8))
                #expect(stored.sha256?.count == 64)
                // Served by the instance that did not store it, once its cache has seen the change.
                var served: RawResponse?
                for _ in 0..<50 {
                    served = try await rawRequest(port: other, Self.settingsTarget())
                    if served?.status == 200 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let body = try #require(served?.body)
                #expect(served?.status == 200)
                #expect(served?.header("Content-Type")?.hasPrefix("application/json") == true)
                let policies = try ClientPolicies(json: Array(body.utf8), source: "served")
                #expect(policies.passcode.minLength == 10 && policies.passcode.retryLimit == 3)
                #expect(body.contains("dataCollectionEnabled"), "keys the service does not read are served as given")
                let got = try await admin.settings(appID: Self.appID)
                #expect(got.settings.jsonText == JSONWriter.compact(policies.document))
                #expect(
                    got.settings.objectValue?["usagePolicy"] == .object(["dataCollectionEnabled": .string("false")]))
                let apps = try await admin.applications()
                #expect(apps.applications.first?.settings == true)

                #expect(
                    try await rawRequest(port: service.port, Self.settingsTarget("com.example.other"))?.status == 404)
                _ = try await admin.deleteSettings(appID: Self.appID)
                let gone = await #expect(throws: DiscoveryClientError.self) {
                    try await admin.settings(appID: Self.appID)
                }
                #expect(gone?.code == .notFound)

                let audit = try await admin.audit()
                let settingsCalls = audit.entries.filter { $0.action.hasPrefix("settings.") }.map {
                    "\($0.action) \($0.outcome)"
                }
                #expect(
                    Set(settingsCalls) == [
                        "settings.put invalid-settings", "settings.put ok", "settings.get ok", "settings.delete ok",
                        "settings.get not-found",
                    ],
                    "\(settingsCalls)")
            }
        }

        /// One answer seen during the outage test.
        struct Seen: Sendable {
            var kind: String, status: Int, at: Duration, took: Duration
            var code: Int? = nil, retryAfter: String? = nil
        }

        /// What the outage test's tasks share: the answers, the next code to use, when the database went and came back.
        final class OutageLog: Sendable {
            let seen = Mutex<[Seen]>([])
            let nextCode = Mutex(0)
            let outage = Mutex<(down: Duration?, up: Duration?)>((nil, nil))
        }

        @Test(
            """
            PostgreSQL away for 10 s under load: 503 with Retry-After without waiting for it, /ready 503, e-mail \
            lookups answered, no code used twice, back by itself
            """
        )
        func outage() async throws {
            try await withInstances(.postgres) { service in
                // Enough codes for the whole run at the workers' pace (about 130 a second).
                let admin = try service.admin()
                let codes = try await (Self.issue(admin, count: 1000) + Self.issue(admin, count: 1000)).map(\.code)
                let postgres = try #require(service.postgres)
                let port = service.port
                // The pool opens its connections first (each signs in with SCRAM, which a debug
                // build computes slowly on an event loop): the run measures a service in use.
                for _ in 0..<3 {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<12 {
                            group.addTask { _ = try await rawRequest(port: port, Self.codeTarget("WARM-UP0-\(index)")) }
                        }
                        try await group.waitForAll()
                    }
                }
                let clock = ContinuousClock()
                let start = clock.now
                let log = OutageLog()
                let end = Duration.seconds(20)
                @Sendable func ask(_ kind: String, _ target: String, code: Int? = nil) async throws -> Int {
                    // Timed on the thread that sends it: waiting for a Dispatch thread is the test's, not the server's.
                    let (response, sent, took) = try await offThread {
                        let sent = clock.now
                        let connection = try RawConnection(port: port)
                        connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                        return (connection.response(), sent, clock.now - sent)
                    }
                    let answer = Seen(
                        kind: kind, status: response?.status ?? 0, at: sent - start, took: took, code: code,
                        retryAfter: response?.header("Retry-After"))
                    log.seen.withLock { $0.append(answer) }
                    return answer.status
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await Task.sleep(until: start + .seconds(3), clock: clock)
                        try await offThread { try postgres.pause() }
                        log.outage.withLock { $0.down = clock.now - start }
                        try await Task.sleep(for: .seconds(10))
                        try await offThread { try postgres.resume() }
                        log.outage.withLock { $0.up = clock.now - start }
                    }
                    for _ in 0..<4 {
                        group.addTask {
                            // Each worker takes a code and asks until it is answered for good.
                            while clock.now - start < end {
                                let index = log.nextCode.withLock { value in
                                    defer { value += 1 }
                                    return value
                                }
                                guard index < codes.count else { return }
                                while clock.now - start < end {
                                    let status = try await ask("code", Self.codeTarget(codes[index]), code: index)
                                    if status != 503 { break }
                                    try await Task.sleep(for: .milliseconds(200))
                                }
                                try await Task.sleep(for: .milliseconds(30))
                            }
                        }
                    }
                    group.addTask {
                        while clock.now - start < end {
                            _ = try await ask(
                                "email",
                                """
                                /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID=\
                                '\(Self.appID):1.0',EmailAddress='someone@example.com')
                                """
                            )
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    group.addTask {
                        while clock.now - start < end {
                            _ = try await ask("ready", "/ready")
                            try await Task.sleep(for: .milliseconds(250))
                        }
                    }
                    try await group.waitForAll()
                }
                let answers = log.seen.withLock { $0 }
                let (down, up) = log.outage.withLock { $0 }
                let (pausedAt, resumedAt) = (try #require(down), try #require(up))
                let during = answers.filter { $0.at >= pausedAt && $0.at + $0.took <= resumedAt }
                #expect(
                    Set(answers.map(\.status)).isSubset(of: [200, 404, 410, 429, 503]), "\(Set(answers.map(\.status)))")
                #expect(during.contains { $0.kind == "code" && $0.status == 503 }, "the outage was seen")
                for answer in answers where answer.status == 503 {
                    #expect(answer.retryAfter != nil, "503 without Retry-After: \(answer.kind)")
                }
                // Over the whole run, the server's shutdown and start included. The bounds say that
                // nobody waited for the database to come back (it is away for 10 s); the figures
                // themselves, printed below, are far lower on a machine that is not loaded.
                let slowest = answers.filter { $0.kind == "code" }.map(\.took).max() ?? .zero
                #expect(slowest < .seconds(7), "a code lookup waited \(slowest)")
                let slowestReady = answers.filter { $0.kind == "ready" }.map(\.took).max() ?? .zero
                #expect(slowestReady < .seconds(7), "/ready took \(slowestReady)")
                #expect(during.filter { $0.kind == "ready" }.allSatisfy { $0.status == 503 })
                #expect(
                    during.filter { $0.kind == "email" }.allSatisfy { $0.status == 200 },
                    "e-mail lookups answer from the snapshot")
                var served: [Int: Int] = [:]
                for answer in answers where answer.kind == "code" && answer.status == 200 {
                    served[answer.code ?? -1, default: 0] += 1
                }
                #expect(served.values.allSatisfy { $0 == 1 }, "a code was served twice")
                let back = answers.filter { $0.kind == "code" && $0.status == 200 && $0.at >= resumedAt }.map(\.at)
                    .min()
                // Back within the run's last 7 s, with no restart.
                let recovery = try #require(back, "no code was served after the database came back") - resumedAt
                var counts: [String: Int] = [:]
                for answer in answers { counts["\(answer.kind) \(answer.status)", default: 0] += 1 }
                print(
                    """
                    outage: away \(pausedAt)…\(resumedAt); answers \(counts.sorted { $0.key < $1.key }); slowest code \
                    lookup \(slowest), /ready \(slowestReady); recovery \(recovery); codes served once: \(served.count)
                    """
                )
            }
        }

        @Test(
            """
            a SQLite file another process holds locked: code lookups answer 503 with Retry-After without waiting for \
            it, e-mail lookups go on, then all is as before
            """
        )
        func lockedSQLite() async throws {
            try await withInstances(.sqlite) { service in
                let codes = try await Self.issue(try service.admin(), count: 2).map(\.code)
                // Another process's writer holds the file's write lock for 12 s.
                let other = try await SQLiteDiscoveryDatabase.open(path: "\(folder)/discovery.sqlite")
                let (holding, held) = AsyncStream.makeStream(of: Void.self)
                let holder = Task {
                    try await other.withTransaction { sql in
                        try await sql.raw("UPDATE changes SET version = version WHERE id = 1").run()
                        held.yield()
                        try await Task.sleep(for: .seconds(12))
                    }
                }
                // The lookup goes once the lock is held, however long a loaded machine takes to get there.
                var waiting = holding.makeAsyncIterator()
                _ = await waiting.next()
                let clock = ContinuousClock()
                let sent = clock.now
                let locked = try await rawRequest(port: service.port, Self.codeTarget(codes[0]))
                let took = clock.now - sent
                #expect(
                    locked?.status == 503 && locked?.header("Retry-After") != nil,
                    "\(locked?.status ?? 0) \(locked?.body ?? "")")
                // Far less than the lock is held: the lookup did not wait for it.
                #expect(took < .seconds(10), "waited \(took) on the lock")
                let email = try await rawRequest(
                    port: service.port,
                    """
                    /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='\(Self.appID):\
                    1.0',EmailAddress='someone@example.com')
                    """
                )
                #expect(email?.status == 200)
                try await holder.value
                try await other.close()
                #expect(
                    try await rawRequest(port: service.port, Self.codeTarget(codes[0]))?.status == 200,
                    "the code was not used by the refused lookup")
                #expect(try await rawRequest(port: service.port, Self.codeTarget(codes[0]))?.status == 410)
            }
        }

        @Test(
            """
            /ready, /metrics and the console: ready with the database, counters by route, the console under a strict \
            policy
            """
        )
        func operations() async throws {
            try await withInstances(.sqlite) { service in
                let port = service.port
                #expect(try await rawRequest(port: port, "/ready")?.status == 200)
                _ = try? await lookup(service.url, code: "0000-0000")
                let metrics = try await rawRequest(port: port, "/metrics")
                #expect(metrics?.status == 200)
                #expect(
                    metrics?.body.contains(#"activate_discovery_requests_total{route="lookup",status="404"} 1"#)
                        == true, "\(metrics?.body ?? "")")
                #expect(
                    metrics?.body.contains(#"activate_discovery_code_lookups_total{outcome="not-found"} 1"#) == true)
                let page = try await rawRequest(port: port, "/admin/")
                #expect(page?.status == 200)
                #expect(page?.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
                #expect(page?.body.contains("<script>") == false, "no inline script")
                #expect(try await rawRequest(port: port, "/admin/console.js")?.status == 200)
                #expect(try await rawRequest(port: port, "/admin/other.js")?.status == 404)
            }
        }
    }
}
