import ActivationConfiguration
import AsyncHTTPClient
import Foundation
import Logging
import TestSupport
import Testing

@testable import ActivationDiscovery
@testable import ActivationDiscoveryServer

#if canImport(Glibc)
    import Glibc
#endif

/// A discovery server running on a loopback port.
struct RunningServer {
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }
}

/// A real discovery server on a loopback port, for the length of one test.
///
/// - Parameter logger: where the server logs; by default nowhere (stopping the server by cancelling
///   its task logs errors that mean nothing here).
func withServer(
    limits: DiscoveryServer.Limits = .init(), logger: Logger? = nil, _ body: (RunningServer) async throws -> Void
) async throws {
    let folder = try ServedFolder(index: ServedFolder.standardIndex)
    let directory = try DiscoveryDirectory(folder: folder.path)
    let logger =
        logger
        ?? {
            var quiet = Logger(label: "test")
            quiet.logLevel = .critical
            return quiet
        }()
    let server = DiscoveryServer(directory: directory, host: "127.0.0.1", port: 0, limits: limits, logger: logger)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let task = Task { try await server.run { continuation.yield($0) } }
    defer { task.cancel() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    try await body(RunningServer(port: port))
}

func provider(_ url: String, _ input: ProviderInput, configure: (inout DiscoveryServiceProvider) -> Void = { _ in })
    -> DiscoveryServiceProvider
{
    var provider = DiscoveryServiceProvider(
        serviceURL: url, applicationID: "com.example.fieldservice", allowInsecureLoopback: true, presetInput: input)
    configure(&provider)
    return provider
}

@Suite("Discovery service: provider against a real server")
struct DiscoveryTests {
    @Test("lookup by e-mail domain (and parent domain) and by onboarding code")
    func lookups() async throws {
        try await withServer { server in
            let url = server.url
            let byEmail = try await provider(url, [.emailAddress: "someone@example.com"]).provide(input: [:])
            #expect(byEmail.document.auth.first?.method.typeName == "oauth2")
            #expect(!byEmail.origin.contains("someone"), "the origin names the service, not the person")
            let bySubdomain = try await provider(url, [.emailAddress: "someone@EU.Example.com"]).provide(input: [:])
            #expect(bySubdomain.document == byEmail.document)
            let byCode = try await provider(url, [.onboardingCode: "12345678"]).provide(input: [:])
            #expect(byCode.document.auth.first?.method == .basic)
        }
    }

    @Test(
        "codes are found as people type them: grouped, in either case, with look-alikes",
        arguments: [
            "1234-5678", "1234 5678", "ABCD-EFGH-JK1N", "abcdefghjkln", "ABCD EFGH JKIN",
        ])
    func typedCodes(typed: String) async throws {
        try await withServer { server in
            let found = try await provider(server.url, [.onboardingCode: typed]).provide(input: [:])
            #expect(found.document.auth.first?.method == .basic)
        }
    }

    @Test("unknown, expired, malformed: each its own error")
    func failures() async throws {
        try await withServer { server in
            let url = server.url
            let unknown = await #expect(throws: ConfigurationError.self) {
                try await provider(url, [.emailAddress: "a@unknown.org"]).provide(input: [:])
            }
            #expect(unknown?.code == .notFound)
            #expect(
                unknown?.reason.hasSuffix(
                    "the discovery service has no configuration for the e-mail domain unknown.org") == true)
            let expired = await #expect(throws: ConfigurationError.self) {
                try await provider(url, [.onboardingCode: "87654321"]).provide(input: [:])
            }
            #expect(expired?.code == .expired)
            #expect(expired?.reason.contains("87654321") == false, "codes never appear in messages")
            let badCode = await #expect(throws: ConfigurationError.self) {
                try await provider(url, [.onboardingCode: "00000000"]).provide(input: [:])
            }
            #expect(badCode?.code == .notFound)
            let otherApp = await #expect(throws: ConfigurationError.self) {
                try await provider(url, [.emailAddress: "a@example.com"]) { $0.applicationID = "com.example.other" }
                    .provide(input: [:])
            }
            #expect(otherApp?.code == .notFound)
        }
    }

    @Test("quotes may come raw or percent-encoded; the server answers the documented status codes")
    func rawHTTP() async throws {
        try await withServer { server in
            let url = server.url
            let function = "/config-api.svc/ApplicationConfigurations/getApplicationConfiguration"
            let cases: [(String, Int)] = [
                ("\(function)(AppConfigID='com.example.fieldservice:1.0',EmailAddress='a@example.com')", 200),
                ("\(function)(AppConfigID=%27com.example.fieldservice:1.0%27,EmailAddress=%27a%40example.com%27)", 200),
                ("\(function)(AppConfigID='com.example.fieldservice:1.0',OnboardingCode='12345678')", 200),
                ("\(function)(AppConfigID='com.example.fieldservice:1.0',OnboardingCode='87654321')", 410),
                ("\(function)(AppConfigID='com.example.fieldservice:1.0',EmailAddress='a@nowhere.org')", 404),
                ("\(function)(AppConfigID='com.example.fieldservice',EmailAddress='a@example.com')", 400),
                ("\(function)(nonsense)", 400),
                ("/config-api.svc/ApplicationConfigurations/" + String(repeating: "x", count: 5000), 414),
                ("/health", 200),
            ]
            for (path, status) in cases {
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: url + path), timeout: .seconds(5))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(Int(response.status.code) == status, "\(path.prefix(120))")
                if status != 200 {
                    #expect(
                        String(buffer: body).hasPrefix(#"{"error":{"code":"#), "\(path.prefix(80)): JSON error body")
                }
            }
        }
    }

    @Test("answers larger than the cap are refused")
    func responseCap() async throws {
        try await withServer { server in
            let url = server.url
            let error = await #expect(throws: ConfigurationError.self) {
                try await provider(url, [.emailAddress: "a@example.com"]) { $0.maxResponseBytes = 100 }.provide(
                    input: [:])
            }
            #expect(error?.code == .inputTooLarge)
        }
    }

    @Test("a service that never answers times out; a closed port is unreachable")
    func timeoutAndRefused() async throws {
        // A socket that listens but never accepts: the kernel completes the handshake, nobody answers.
        // Closed exactly once, below: a second close could hit a descriptor NIO has reused since.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))

        let clock = ContinuousClock()
        let start = clock.now
        let slow = await #expect(throws: ConfigurationError.self) {
            try await provider("http://127.0.0.1:\(port)", [.emailAddress: "a@example.com"]) {
                $0.timeout = .milliseconds(500)
            }.provide(input: [:])
        }
        #expect(slow?.code == .serviceUnavailable)
        // "timed out" proves the deadline fired. The wall-clock bound only guards against a hang: tests
        // that wait on subprocesses can hold the cooperative threads on a 2-core machine for seconds.
        #expect(slow?.reason.contains("timed out") == true, "\(slow?.reason ?? "")")
        #expect(clock.now - start < .seconds(60))

        close(fd)
        let refused = await #expect(throws: ConfigurationError.self) {
            try await provider("http://127.0.0.1:\(port)", [.emailAddress: "a@example.com"]).provide(input: [:])
        }
        #expect(refused?.code == .serviceUnavailable)
    }

    @Test("https is required; plain http only for an explicitly allowed loopback address")
    func transportPolicy() async throws {
        let remote = await #expect(throws: ConfigurationError.self) {
            try await provider("http://discovery.example.com", [.emailAddress: "a@example.com"]).provide(input: [:])
        }
        #expect(remote?.code == .insecureURL)
        let notAllowed = await #expect(throws: ConfigurationError.self) {
            try await provider("http://127.0.0.1:1", [.emailAddress: "a@example.com"]) {
                $0.allowInsecureLoopback = false
            }.provide(input: [:])
        }
        #expect(notAllowed?.code == .insecureURL)
    }

    @Test(
        "an e-mail address must look like local@domain",
        arguments: ["nobody", "a@b", "@example.com", "a@.example.com", "a@example.com."])
    func emailShape(address: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await provider("https://discovery.example.com", [.emailAddress: address]).provide(input: [:])
        }
        #expect(error?.code == .invalidValue)
    }

    @Test("lookup values are percent-encoded into the path template")
    func urlBuilding() throws {
        let url = try provider("https://d.example.com/", [:]).lookupURL([.emailAddress: "o'neil+x@example.com"]).url
        #expect(
            url
                == """
                https://d.example.com/config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID=\
                'com.example.fieldservice:1.0',EmailAddress='o%27neil%2Bx@example.com')
                """
        )
    }
}

@Suite("Discovery directory")
struct DirectoryTests {
    @Test("an invalid document stops the server from starting, named")
    func invalidDocument() throws {
        let folder = try ServedFolder(
            index: #"{"applications":{"a":{"domains":{"example.com":"bad.json"}}}}"#, documents: [])
        try FileIO.write(
            Array(#"{"host":"x.example.com","auth":[{"type":"oauth2","config":{}}]}"#.utf8),
            to: "\(folder.path)/bad.json", replace: false)
        let error = #expect(throws: ConfigurationError.self) { try DiscoveryDirectory(folder: folder.path) }
        #expect(
            error?.reason.hasPrefix("\(folder.path)/bad.json: auth[0].config.oauth2.authorizationEndpoint: missing")
                == true, "\(error?.reason ?? "")")
    }

    @Test("client policies named by the index are checked at start and served at SAP's settingsExchange path")
    func settingsFromFolder() async throws {
        let folder = try ServedFolder(
            index: #"{"applications":{"com.example.fieldservice":{"settings":"settings.json"}}}"#)
        try FileIO.write(
            Array(
                #"{"passwordPolicy":{"passwordPolicyMinLength":"12","x":"kept"},"logSettings":{"logLevel":"DEBUG"}}"#
                    .utf8),
            to: "\(folder.path)/settings.json", replace: false)
        let directory = try DiscoveryDirectory(folder: folder.path)
        let served = try #require(await directory.settings(appID: "com.example.fieldservice"))
        let policies = try ClientPolicies(json: Array(served.utf8), source: "served")
        #expect(policies.passcode.minLength == 12)
        #expect(
            served.contains(#""logLevel":"DEBUG""#) && served.contains(#""x":"kept""#),
            "unknown keys are served as given")
        #expect(await directory.settings(appID: "other") == nil)

        try FileIO.write(
            Array(#"{"passwordPolicy":{"passwordPolicyMinLength":"twelve"}}"#.utf8), to: "\(folder.path)/settings.json",
            replace: true)
        let error = #expect(throws: ConfigurationError.self) { try DiscoveryDirectory(folder: folder.path) }
        #expect(
            error?.reason.hasPrefix(
                "\(folder.path)/settings.json: passwordPolicy.passwordPolicyMinLength: not a whole number") == true,
            "\(error?.reason ?? "")")
    }

    @Test(
        "a malformed index names the key",
        arguments: [
            (#"{"apps":{}}"#, "applications: expected an object of application ids"),
            (
                #"{"applications":{"a":{"codes":{"1":{"document":"android-basic.json","expires":"soon"}}}}}"#,
                "applications.a.codes.1.expires: expected an ISO 8601 time"
            ),
            (
                #"{"applications":{"a":{"domains":{"x.com":"../etc/passwd"}}}}"#,
                #"applications.a.domains.x.com: "../etc/passwd" must be a file name"#
            ),
            (#"{"applications":{"a":{"domains":{"x.com":"missing.json"}}}}"#, "missing.json: no such file"),
            (
                #"{"applications":{"a":{"settings":{"passwordPolicy":{}}}}}"#,
                "applications.a.settings: expected the file name of a settingsExchange document"
            ),
            (
                #"""
                {"applications":{"a":{"codes":{"1234-5678":{"document":"android-basic.json"},"12345678":{"document":\#
                "android-basic.json"}}}}}
                """#,
                "the same code as another entry (codes are read without case, dashes and spaces)"
            ),
        ])
    func malformedIndex(index: String, message: String) throws {
        let folder = try ServedFolder(index: index)
        // The index's own structure is the service's error; a file it names that cannot be read, a file error.
        let reason: String
        do {
            _ = try DiscoveryDirectory(folder: folder.path)
            reason = "accepted"
        } catch let error as DiscoveryServiceError {
            #expect(error.code == .invalidFolder)
            reason = error.reason
        } catch let error as ConfigurationError {
            #expect(error.code == .fileNotFound)
            reason = error.reason
        }
        #expect(reason.contains(message), "\(reason)")
    }
}
