import ActivationConfiguration
import ActivationDiscoveryProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import TestSupport
import Testing

@testable import ActivationDiscoveryServer

/// The person whose address and code must never reach a log.
private enum Secret {
    static let local = "zq7jane.doe"
    static let email = "\(local)@eu.example.com"
    static let code = "12345678"
    static let function =
        "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',EmailAddress='\(email)')"
    static let byCode =
        "getApplicationConfiguration(AppConfigID='com.example.fieldservice:1.0',OnboardingCode='\(code)')"
    static let prefix = "/config-api.svc/ApplicationConfigurations/"

    static func expectAbsent(from log: String, _ comment: Comment? = nil) {
        for secret in [local, "zq7", code, "%40eu", "eu.example.com"] {
            #expect(!log.contains(secret), "\(secret) in the log: \(comment?.description ?? "")")
        }
    }
}

/// A service made as `activate serve` makes it (an SQLite file, the standard folder imported, the
/// admin API open with ``token``), asked in-process through HummingbirdTesting's router framework:
/// no socket, no port. What needs one (slow clients, the connection cap, the HTTP decoder's own
/// refusals, PostgreSQL outages) is tested on a real port in DiscoveryIntegrationTests.
struct InProcessService {
    static let token = "test-token-0123456789abcdef"
    static let appID = "com.example.fieldservice"
    static let bearer: HTTPFields = [.authorization: "Bearer \(token)"]

    static func with(
        admin: Bool = true, perClient: RateLimit? = nil, logger: Logger? = nil,
        _ body: @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder(prefix: "activate-router")
        let served = try ServedFolder(index: ServedFolder.standardIndex)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        var configuration = DiscoveryService.Configuration(
            store: .sqlite(path: folder.file("discovery.sqlite")), logger: logger ?? quiet)
        configuration.folder = served.path
        configuration.secretFile = folder.file("secret")
        configuration.adminTokens = admin ? try AdminTokens(tokens: [token]) : nil
        configuration.clientLimit = perClient
        let service = try await DiscoveryService(configuration).makeService()
        let server = DiscoveryServer(service: service, port: 0, logger: configuration.logger)
        do {
            try await server.application().test(.router, body)
        } catch {
            await service.onStop?()
            throw error
        }
        await service.onStop?()
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }
    /// The error code of a protocol error body.
    var errorCode: String? { DiscoveryErrorBody(json: Array(text.utf8))?.error.code.rawValue }
}

@Suite("Discovery service: one router, in-process")
struct RouterTests {
    @Test("every spelling of a target gets its documented status and leaves no personal data in the log")
    func variants() async throws {
        let log = LogCapture()
        try await InProcessService.with(logger: log.logger()) { client in
            let f = Secret.function
            let p = Secret.prefix
            let cases: [(String, Int)] = [
                (p + f, 200),
                (p + Secret.byCode, 200),
                ("/" + p + f, 200),
                ("//config-api.svc//ApplicationConfigurations//" + f, 200),
                ("/x/../config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/./config-api.svc/./ApplicationConfigurations/./" + f, 200),
                ("/../../config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/%2e%2E/config-api.svc/ApplicationConfigurations/" + f, 200),
                ("/config-api.svc/%41pplicationConfigurations/" + f, 200),
                ("/%63onfig-api.svc/ApplicationConfigurations/%67" + f.dropFirst(), 200),
                (p + f + "?EmailAddress=\(Secret.email)", 200),
                ("/CONFIG-API.svc/ApplicationConfigurations/" + f, 404),
                ("/config-api.svc/applicationconfigurations/" + f, 404),
                (p + "x/" + f, 404),
                ("/" + Secret.email, 404),
                ("/nothing?code=\(Secret.code)", 404),
                ("/config-api.svc%2FApplicationConfigurations/" + f, 400),
                ("/config-api.svc/ApplicationConfigurations%2f" + f, 400),
                (p + f.replacingOccurrences(of: "@", with: "%00@"), 400),
                (p + f.replacingOccurrences(of: "@", with: "%C0%40"), 400),  // not UTF-8
                ("/%C0%AE%C0%AE/config-api.svc/ApplicationConfigurations/" + f, 404),  // overlong dots stay bytes
                (p + f.replacingOccurrences(of: "@", with: "%4@"), 400),
                (p + f.replacingOccurrences(of: "@", with: "%G0"), 400),
                (p + f.replacingOccurrences(of: "zq7", with: "zq7ä"), 400),  // raw bytes ≥ 0x80
                (p + f.replacingOccurrences(of: "'", with: "\""), 400),
                (p + f.replacingOccurrences(of: "@", with: "%0A@"), 400),
                (p + f + "#\(Secret.code)", 400),
                ("/health\\" + Secret.email, 400),
                (p + f.replacingOccurrences(of: Secret.local, with: String(repeating: "a", count: 5000)), 414),
                ("/health", 200),
                ("/./health", 200),
                ("/health/", 200),  // a trailing slash names the same resource, as in Hummingbird
                (p + f + "/..", 404),  // the lookup prefix with no function
                ("*", 400),
            ]
            for (target, status) in cases {
                let response = try await client.execute(uri: target, method: .get)
                #expect(response.status.code == status, "\(target.prefix(50))…\(target.suffix(70))")
                if status != 200 {
                    #expect(response.errorCode != nil, "\(target.prefix(80)): \(response.text)")
                }
            }
        }
        let text = log.text
        Secret.expectAbsent(from: text, "\(text)")
        #expect(text.contains("GET lookup 200"))
        #expect(text.contains("GET other 404"))
        #expect(text.contains("GET other 400"))
        #expect(text.contains("GET health 200"))
    }

    /// The methods tried on every path: the standard ones, WebDAV's and one made up.
    static let methods: [HTTPRequest.Method] =
        [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect]
        + ["PROPFIND", "BREW"].compactMap { HTTPRequest.Method($0) }

    @Test("every method a public path does not declare gets 405 with Allow, and the protocol's error body")
    func publicMethods() async throws {
        let log = LogCapture()
        try await InProcessService.with(logger: log.logger()) { client in
            let paths: [(String, DiscoveryRoute)] = [
                (Secret.prefix + Secret.function, .lookup),
                (DiscoveryRoute.settingsPath(appID: InProcessService.appID), .settings),
                (DiscoveryRoute.healthPath, .health), (DiscoveryRoute.readyPath, .ready),
                (DiscoveryRoute.metricsPath, .metrics), (DiscoveryRoute.openAPIPath, .openAPI),
                ("/admin", .console), ("/admin/console.js", .consoleFile),
            ]
            for (path, route) in paths {
                for method in Self.methods where !route.methods.contains(method.rawValue) {
                    let response = try await client.execute(uri: path, method: method)
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    #expect(response.headers[.allow] == route.methods.joined(separator: ", "), "\(method) \(path)")
                    #expect(response.errorCode == (method == .head ? nil : "method-not-allowed"), "\(method) \(path)")
                }
            }
        }
        #expect(log.text.contains("OTHER lookup 405"), "a method not of HTTP's own is logged as OTHER")
        #expect(log.text.contains("TRACE health 405"))
    }

    @Test("HEAD reads what changes nothing; a lookup answers GET only, so HEAD never uses a code up")
    func head() async throws {
        try await InProcessService.with { client in
            for path in [DiscoveryRoute.healthPath, DiscoveryRoute.openAPIPath, "/admin", "/admin/console.css"] {
                let response = try await client.execute(uri: path, method: .head)
                #expect(response.status == .ok, "\(path)")
                #expect(response.body.readableBytes == 0, "\(path)")
            }
            let byCode = Secret.prefix + Secret.byCode
            #expect(try await client.execute(uri: byCode, method: .head).status == .methodNotAllowed)
            #expect(try await client.execute(uri: byCode, method: .get).status == .ok, "the code is still there")
        }
    }

    @Test("every admin path answers an undeclared method with 405 and Allow, after the token check")
    func adminMethods() async throws {
        try await InProcessService.with { client in
            let byTemplate = Dictionary(grouping: AdminOperation.allCases, by: \.template)
            for (_, operations) in byTemplate {
                let sample = operations[0]
                let path = sample.path(sample.parameters.map { Self.sampleValue[$0] ?? "x" })
                let declared = operations.map(\.method)
                for method in Self.methods where !declared.contains(method.rawValue) {
                    let anonymous = try await client.execute(uri: path, method: method)
                    #expect(anonymous.status == .unauthorized, "\(method) \(path): nothing learnt without a token")
                    let response = try await client.execute(uri: path, method: method, headers: InProcessService.bearer)
                    #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                    #expect(response.headers[.allow] == declared.joined(separator: ", "), "\(method) \(path)")
                    #expect(response.errorCode == (method == .head ? nil : "method-not-allowed"), "\(method) \(path)")
                    #expect(response.headers[.cacheControl] == "no-store")
                }
            }
        }
    }

    static let sampleValue = [
        "appID": InProcessService.appID, "name": "a.json", "domain": "example.org", "id": "1",
    ]

    @Test(
        "typed path parameters: a value the document's pattern refuses is 400 with the protocol's body",
        arguments: [
            (AdminOperation.listDocuments, [".hidden"]), (.listDocuments, ["a b"]),
            (.listDocuments, [String(repeating: "a", count: 201)]), (.listDocuments, ["a\u{1}"]),
            (.listDocuments, ["a\u{85}"]), (.deleteDomain, ["app", "localhost"]), (.deleteDomain, ["app", "-a.com"]),
            (.revokeCode, ["app", "0"]), (.revokeCode, ["app", "x"]), (.revokeCode, ["app", "99999999999999999999"]),
            (.putDocument, ["app", "a\u{1}"]),
        ])
    func parameters(operation: AdminOperation, values: [String]) async throws {
        try await InProcessService.with { client in
            let path = operation.path(values)
            let response = try await client.execute(
                uri: path, method: try #require(HTTPRequest.Method(operation.method)),
                headers: InProcessService.bearer, body: ByteBuffer(string: "{}"))
            #expect(response.status == .badRequest, "\(path): \(response.text)")
            #expect(response.errorCode == "bad-request", "\(path)")
        }
    }

    @Test("paths the protocol builds route back to their parameters, decoded")
    func pathsRouteBack() async throws {
        try await InProcessService.with { client in
            let revoke = try await client.execute(
                uri: AdminOperation.revokeCode.path(InProcessService.appID, "42"), method: .delete,
                headers: InProcessService.bearer)
            #expect(revoke.status == .notFound && revoke.text.contains("no active code 42 in com.example.fieldservice"))
            let settings = try await client.execute(uri: DiscoveryRoute.settingsPath(appID: "a b"), method: .get)
            #expect(settings.status == .notFound && settings.text.contains("application a b"), "\(settings.text)")
            let moved = try await client.execute(
                uri: "/x/.." + DiscoveryRoute.settingsPath(appID: "a b"), method: .get)
            #expect(moved.text == settings.text, "routed on the canonical path")
            let list = try await client.execute(
                uri: AdminOperation.listDocuments.path(InProcessService.appID), method: .get,
                headers: InProcessService.bearer)
            #expect(list.status == .ok && list.text.contains("android-basic.json"))
        }
    }

    @Test("the settingsExchange path routes only with one application id, twice, without control characters")
    func settingsRoute() async throws {
        let path = { @Sendable (first: String, second: String) in
            """
            /mobileservices/application/\(first)/storage/v1/runtime/application/\(second)/global/mobileservices/\
            settingsExchange
            """
        }
        try await InProcessService.with { client in
            for (target, status) in [
                (path("a", "a"), 404), (path("a", "a") + "?x=1", 404), (path("a", "b"), 404),
                (path("a%01", "a%01"), 404), (path("a%C2%85", "a%C2%85"), 404),
                (path("a", "a").replacingOccurrences(of: "/global/", with: "/currentuser/"), 404),
                (path("a", "a") + "/more", 404),
            ] {
                let response = try await client.execute(uri: target, method: .get)
                #expect(response.status.code == status, "\(target)")
                #expect(
                    response.text.contains("no client policies for the application a")
                        == (target.hasPrefix(path("a", "a"))
                            && !target.hasSuffix("/more")),
                    "\(target): \(response.text)")
            }
        }
    }

    @Test("bodies: public resources take none (413, closed); an unknown path with one is 404 and closed")
    func bodies() async throws {
        try await InProcessService.with { client in
            let lookup = Secret.prefix + Secret.function
            let large = try await client.execute(
                uri: lookup, method: .get, headers: [.contentLength: "2000"],
                body: ByteBuffer(repeating: 0x61, count: 2000))
            #expect(large.status == .contentTooLarge && large.headers[.connection] == "close")
            let chunked = try await client.execute(uri: lookup, method: .get, headers: [.transferEncoding: "chunked"])
            #expect(chunked.status == .contentTooLarge)
            let unknown = try await client.execute(
                uri: "/nothing", method: .post, headers: [.contentLength: "3"], body: ByteBuffer(string: "abc"))
            #expect(unknown.status == .notFound && unknown.headers[.connection] == "close")
            #expect(unknown.errorCode == "not-found")
            // A control character in an admin path: the parameter is refused, whatever the body.
            let control = try await client.execute(
                uri: AdminOperation.putDocument.path(InProcessService.appID, "a\u{1}"), method: .put,
                headers: [.authorization: "Bearer \(InProcessService.token)", .contentLength: "2"],
                body: ByteBuffer(string: "{}"))
            #expect(control.status == .badRequest, "\(control.text)")
            let overSize = try await client.execute(
                uri: AdminOperation.putDocument.path(InProcessService.appID, "big.json"), method: .put,
                headers: InProcessService.bearer,
                body: ByteBuffer(repeating: 0x20, count: AdminJSON.maxRequestBytes + 1))
            #expect(overSize.status == .contentTooLarge && overSize.errorCode == "too-large")
        }
    }

    @Test("error bodies name the key of a refused admin body; since is any RFC 3339 time")
    func errorBodies() async throws {
        try await InProcessService.with { client in
            for (since, status) in [
                ("2026-01-01t00:00:00.5%2B23:59", HTTPResponse.Status.ok), ("2000-01-01T00:00:00z", .ok),
                ("2026-02-30T00:00:00Z", .badRequest), ("yesterday", .badRequest),
            ] {
                let audit = try await client.execute(
                    uri: AdminOperation.listAudit.path() + "?since=" + since, method: .get,
                    headers: InProcessService.bearer)
                #expect(audit.status == status, "\(since): \(audit.text)")
            }
            let response = try await client.execute(
                uri: AdminOperation.issueCodes.path(InProcessService.appID), method: .post,
                headers: InProcessService.bearer, body: ByteBuffer(string: #"{"document":"a.json","count":0}"#))
            let body = try #require(DiscoveryErrorBody(json: Array(response.text.utf8)))
            #expect(response.status == .badRequest && body.error.code == .badRequest && body.error.keyPath == "count")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        }
    }

    @Test("the admin API: 401 without a token, 429 past the guessing limit, no-store on every answer")
    func authentication() async throws {
        try await InProcessService.with { client in
            // Paths are not told apart without a token: unknown ones get 401 as known ones do.
            for (path, method) in [
                (AdminOperation.prefix + "/nothing-here", HTTPRequest.Method.get),
                (AdminOperation.listDocuments.path("app") + "/deeper/still", .post),
                (AdminOperation.prefix + "/applications/app/nothing", .trace),
            ] {
                let anonymous = try await client.execute(uri: path, method: method)
                #expect(anonymous.status == .unauthorized, "\(method) \(path)")
                let known = try await client.execute(uri: path, method: method, headers: InProcessService.bearer)
                #expect(known.status == .notFound && known.errorCode == "not-found", "\(method) \(path)")
            }
        }
        try await InProcessService.with(perClient: RateLimit(perMinute: 1, burst: 2)) { client in
            let path = AdminOperation.listApplications.path()
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<4 {
                let response = try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer no"])
                #expect(response.headers[.cacheControl] == "no-store")
                statuses.append(response.status)
            }
            #expect(statuses == [.unauthorized, .unauthorized, .tooManyRequests, .tooManyRequests], "\(statuses)")
            let ok = try await client.execute(uri: path, method: .get, headers: InProcessService.bearer)
            #expect(ok.status == .ok && ok.headers[.cacheControl] == "no-store")
        }
    }

    @Test("without admin tokens the admin API and console are off: 404 that says so, for any method")
    func adminOff() async throws {
        try await InProcessService.with(admin: false) { client in
            for (path, method) in [
                (AdminOperation.listApplications.path(), HTTPRequest.Method.get), ("/admin", .get),
                ("/admin/console.js", .get), (AdminOperation.issueCodes.path("app"), .trace),
            ] {
                let response = try await client.execute(uri: path, method: method, headers: InProcessService.bearer)
                #expect(response.status == .notFound, "\(method) \(path)")
                #expect(response.text.contains("admin API and console are off"), "\(path)")
            }
        }
    }
}

@Suite("Discovery service: the request target's canonical path and the lookup call")
struct TargetParsingTests {
    @Test(
        "canonical paths",
        arguments: [
            ("/", "/"), ("//", "/"), ("/a//b", "/a/b"), ("/a/./b/", "/a/b/"), ("/a/b/..", "/a/"), ("/a/b/.", "/a/b/"),
            ("/../a", "/a"), ("/a/../../..", "/"), ("/%61%2D%7e", "/a-~"), ("/%2e%2e/%2E", "/"),
            ("/a%3ab%3A", "/a%3Ab%3A"),
            ("/a?x/../y", "/a"), ("/.../a", "/.../a"), ("/a..b/..c", "/a..b/..c"),
        ])
    func canonical(target: String, path: String) throws {
        #expect(try DiscoveryRoute.canonicalPath(of: target.utf8) == path)
    }

    @Test(
        "refused targets",
        arguments: [
            "", "a", "*", "/%2F", "/%2f", "/%00", "/a%", "/a%4", "/%zz", "/a b", "/a\u{0}", "/ä", "/a#b", "/a?%00",
            "/a?%g0", "/\\",
        ])
    func refused(target: String) {
        #expect(throws: DiscoveryRoute.TargetError.malformed) { try DiscoveryRoute.canonicalPath(of: target.utf8) }
    }

    @Test("lookup calls parse with raw or encoded quotes, and refuse the rest")
    func lookupCall() {
        let call = { (text: String) in LookupCall(function: Array(("getApplicationConfiguration" + text).utf8)) }
        #expect(
            call("(AppConfigID='a.b:1.0',EmailAddress='x@y.com')")
                == LookupCall(appID: "a.b", version: "1.0", lookup: .email("x@y.com")))
        #expect(
            call("(AppConfigID=%27a.b:1.0%27,EmailAddress=%27x%40y.com%27)")
                == call("(AppConfigID='a.b:1.0',EmailAddress='x@y.com')"))
        #expect(
            call("(AppConfigID='a.b:1.0',OnboardingCode='1,2')")
                == LookupCall(appID: "a.b", version: "1.0", lookup: .code("1,2")))
        #expect(
            call("(AppConfigID='a.b:1.0',EmailAddress='o''neil@y.com')")
                == LookupCall(appID: "a.b", version: "1.0", lookup: .email("o'neil@y.com")))
        for malformed in [
            "(AppConfigID='a.b:1.0')", "(AppConfigID=a.b:1.0,EmailAddress=x@y.com)",
            "(AppConfigID='a.b:1.0',EmailAddress='x@y.com',EmailAddress='z@y.com')",
            "(AppConfigID=':1.0',EmailAddress='x@y.com')", "(AppConfigID='a.b:1.0',EmailAddress='x%FF@y.com')", "", "(",
            ")",
        ] {
            #expect(call(malformed) == nil, "\(malformed)")
        }
    }

    @Test("the target parsers are total on arbitrary bytes")
    func arbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("/.%2fFeE0aA?'(),=:@#\\ \u{0}".utf8) + [0x80, 0xC0, 0xFF]
        for round in 0..<5_000 {
            let length =
                round % 50 == 0
                ? Int.random(in: 0...9000, using: &generator) : Int.random(in: 0...64, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            _ = try? DiscoveryRoute.canonicalPath(of: [UInt8(ascii: "/")] + bytes)
            _ = LookupCall(function: Array("getApplicationConfiguration(".utf8) + bytes)
        }
    }
}
