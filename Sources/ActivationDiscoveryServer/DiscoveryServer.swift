import ActivationConfiguration
import Foundation
import Hummingbird
import Logging

/// A discovery service: answers the legacy lookup function by e-mail domain or onboarding code
/// from a ``DiscoveryDirectory``.
///
/// `GET /config-api.svc/ApplicationConfigurations/getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>')`
/// (or `OnboardingCode='<code>'`), quotes raw or percent-encoded: 200 with the document, 404 with a
/// JSON error when nothing matches, 410 for an expired code, 400 for a malformed call. Requests
/// are logged without the e-mail address or code.
public struct DiscoveryServer: Sendable {
    public var directory: DiscoveryDirectory
    public var host: String
    public var port: Int
    public var logger: Logger

    /// Requests whose target is longer than this are refused (414).
    public static let maxTargetLength = 4096
    /// Requests with a body larger than this are refused (413); lookups have none.
    public static let maxBodyBytes = 1024
    static let functionPrefix = "/config-api.svc/ApplicationConfigurations/"

    public init(directory: DiscoveryDirectory, host: String = "127.0.0.1", port: Int = 8080, logger: Logger) {
        self.directory = directory
        self.host = host
        self.port = port
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM, then finishes in-flight requests and returns.
    ///
    /// - Parameter onListening: called with the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let router = Router()
        router.add(middleware: RequestGuard(logger: logger))
        let directory = self.directory
        router.get("/config-api.svc/ApplicationConfigurations/*") { request, _ -> Response in
            Self.answer(path: request.uri.path, directory: directory)
        }
        router.get("/health") { _, _ -> Response in Self.json(.ok, #"{"status":"ok"}"#) }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "activate-discovery"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Answers one lookup path (pure: the server's whole logic, testable without a socket).
    static func answer(path rawPath: String, directory: DiscoveryDirectory, now: Date = Date()) -> Response {
        guard let call = LookupCall(path: rawPath) else {
            return error(.badRequest, "bad-request",
                         "expected getApplicationConfiguration(AppConfigID='<appID>:<version>',EmailAddress='<email>') or OnboardingCode='<code>'")
        }
        let result: DiscoveryDirectory.Answer
        switch call.lookup {
        case .email(let email): result = directory.lookup(appID: call.appID, email: email)
        case .code(let code): result = directory.lookup(appID: call.appID, code: code, now: now)
        }
        switch result {
        case .found(let entry): return json(.ok, entry.json)
        case .notFound(let why): return error(.notFound, "not-found", why)
        case .expired: return error(.gone, "expired", "this onboarding code has expired")
        }
    }

    static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(status, JSONWriter.compact(.object(["error": .object(["code": .string(code), "message": .string(message)])])))
    }
}

/// A parsed `getApplicationConfiguration(...)` call.
struct LookupCall: Equatable {
    enum Lookup: Equatable {
        case email(String)
        case code(String)
    }

    var appID: String
    var version: String
    var lookup: Lookup

    init?(path rawPath: String) {
        guard rawPath.hasPrefix(DiscoveryServer.functionPrefix) else { return nil }
        let encoded = rawPath.dropFirst(DiscoveryServer.functionPrefix.count)
        guard let function = String(encoded).removingPercentEncoding,
              function.hasPrefix("getApplicationConfiguration("), function.hasSuffix(")") else { return nil }
        let arguments = function.dropFirst("getApplicationConfiguration(".count).dropLast()
        var values: [String: String] = [:]
        for argument in Self.split(arguments) {
            guard let equals = argument.firstIndex(of: "=") else { return nil }
            let name = argument[..<equals].trimmingCharacters(in: .whitespaces)
            var value = argument[argument.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") else { return nil }
            value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
            values[name] = value
        }
        guard let configID = values["AppConfigID"], let colon = configID.lastIndex(of: ":") else { return nil }
        appID = String(configID[..<colon])
        version = String(configID[configID.index(after: colon)...])
        if let email = values["EmailAddress"], !email.isEmpty {
            lookup = .email(email)
        } else if let code = values["OnboardingCode"], !code.isEmpty {
            lookup = .code(code)
        } else {
            return nil
        }
        guard !appID.isEmpty else { return nil }
    }

    /// Splits `a='x,y',b='z'` at the commas outside quotes.
    static func split(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        for index in text.indices {
            if text[index] == "'" { quoted.toggle() }
            if text[index] == ",", !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }
}

/// Caps request sizes and logs each request (method, route, status, time) without the e-mail
/// address or code it carries.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        if request.uri.string.utf8.count > DiscoveryServer.maxTargetLength {
            response = DiscoveryServer.error(.uriTooLong, "too-long", "the request target exceeds \(DiscoveryServer.maxTargetLength) bytes")
        } else if let length = request.headers[.contentLength].flatMap(Int.init), length > DiscoveryServer.maxBodyBytes {
            response = DiscoveryServer.error(.contentTooLarge, "too-large", "lookups carry no body")
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError {
                response = DiscoveryServer.error(error.status, "error", error.status.reasonPhrase)
            }
        }
        let path = request.uri.path
        let shown = path.hasPrefix(DiscoveryServer.functionPrefix) ? DiscoveryServer.functionPrefix + "getApplicationConfiguration(…)" : path
        let milliseconds = (ContinuousClock.now - start).inMilliseconds
        logger.info("\(request.method) \(shown.prefix(200)) \(response.status.code) \(String(format: "%.2f", milliseconds)) ms")
        return response
    }
}
