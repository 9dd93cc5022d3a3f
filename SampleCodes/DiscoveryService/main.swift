// A discovery service run from Swift: serve SampleCodes/discovery.json from an SQLite file, issue a
// one-time code with the admin client, and look it up once as an app does.
//
//   swift run sample-discovery-service [folder]      (default: SampleCodes)
import ActivationConfiguration
import ActivationDiscovery
import ActivationDiscoveryProtocol
import ActivationDiscoveryServer
import Foundation

let work = FileManager.default.temporaryDirectory.appendingPathComponent("discovery-sample-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }
let token = "sample-admin-token-\(UUID().uuidString)"

var configuration = DiscoveryService.Configuration(store: .sqlite(path: "\(work)/discovery.sqlite"))
configuration.folder = CommandLine.arguments.dropFirst().first ?? "SampleCodes"  // discovery.json, imported
configuration.secretFile = "\(work)/code-secret"
configuration.adminTokens = try AdminTokens(tokens: [token])
configuration.port = 0  // any free port
configuration.logger.logLevel = .warning

let (ports, listening) = AsyncStream.makeStream(of: Int.self)
let service = Task { try await DiscoveryService(configuration).run { listening.yield($0) } }
guard let port = await ports.first(where: { _ in true }) else { fatalError("the service did not start") }
let url = "http://127.0.0.1:\(port)"

// An administrator issues a code ...
let admin = try DiscoveryAdminClient(serviceURL: url, token: token)
let order = CodeOrder(document: "fieldservice-configuration.json", label: "sample")
let code = try await admin.issueCodes(appID: "com.example.fieldservice", order).codes[0]
print("issued \(code.code) (id \(code.id)), valid until \(code.expiresAt.formatted(.iso8601))")

// ... and the app looks it up, once.
let provider = DiscoveryServiceProvider(
    serviceURL: url, applicationID: "com.example.fieldservice", allowInsecureLoopback: true,
    presetInput: [.onboardingCode: code.code])
print("you will be connected to: \(try await provider.provide(input: [:]).document.host)")
let codes = try await admin.codes(appID: "com.example.fieldservice").codes
print("codes now: \(codes.map { "\($0.id) \($0.status.rawValue)" })")

service.cancel()  // as SIGTERM would: requests under way finish, the database is closed
_ = await service.result
