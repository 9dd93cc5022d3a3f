import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A real OAuth 2.0 identity provider for the sign-in tests, as its own process on a free
/// loopback port with SQLite in a folder of its own: glewlwyd (`Tests/Servers/glewlwyd_server.py`)
/// or django-oauth-toolkit (`Tests/Servers/dot_server.py`, in the test venv). Stopped with
/// SIGKILL (the providers die with their script), its folder removed.
public final class IdentityProvider: @unchecked Sendable {
    /// Which provider.
    public enum Kind: Sendable {
        /// glewlwyd (Debian): exact redirect URIs, port included; one-use refresh tokens; revocation
        /// with a bearer token.
        case glewlwyd
        /// django-oauth-toolkit (PyPI): any-port loopback redirects; revocation with `client_id`.
        case djangoOAuthToolkit
    }

    public let kind: Kind
    /// The provider's own description: endpoints, client ids, the test user.
    public let info: [String: Any]
    let process = Process()
    let folder: TemporaryFolder

    /// Starts a provider; `options` are its script's (`--redirect-uri`, `--access-token-duration`, …).
    public init(_ kind: Kind, options: [String] = []) throws {
        self.kind = kind
        folder = try TemporaryFolder(prefix: "idp")
        switch kind {
        case .glewlwyd:
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [SourceTree.path("Tests/Servers/glewlwyd_server.py"), folder.path] + options
        case .djangoOAuthToolkit:
            process.executableURL = URL(fileURLWithPath: SourceTree.path(".build/interop-venv/bin/python"))
            process.arguments = [SourceTree.path("Tests/Servers/dot_server.py"), folder.path] + options
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = output.readFirstLine()
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [NSLocalizedDescriptionKey: "the identity provider did not start: \(line)"])
        }
        info = object
    }

    public func string(_ key: String) -> String { info[key] as? String ?? "" }
    public var issuer: String { string("issuer") }
    public var authorizationEndpoint: String { string("authorization_endpoint") }
    public var tokenEndpoint: String { string("token_endpoint") }
    public var deviceEndpoint: String { string("device_authorization_endpoint") }
    public var revocationEndpoint: String { string("revocation_endpoint") }
    public var clientID: String { string("client_id") }
    /// django-oauth-toolkit's second client, for the device grant (one grant type per client there).
    public var deviceClientID: String { kind == .glewlwyd ? clientID : string("device_client_id") }
    public var user: String { string("user") }
    public var password: String { string("password") }
    public var scope: String { string("scope") }
    /// `http://localhost:PORT`: the host name the security policy accepts (it refuses IP addresses).
    public var base: String { "http://localhost:\(info["port"] as? Int ?? 0)" }

    /// `url` on this provider as its browser session addresses it (its cookies are bound to that
    /// host): glewlwyd's as `localhost`, django-oauth-toolkit's as `127.0.0.1`.
    public func byName(_ url: String) -> String {
        kind == .glewlwyd ? url.replacingOccurrences(of: "http://127.0.0.1:", with: "http://localhost:") : url
    }

    /// The scripted browser's command line, arguments before the address.
    public func browserCommand(deny: Bool = false, printRedirect: Bool = false, device: Bool = false) -> [String] {
        var command: [String]
        switch kind {
        case .glewlwyd:
            command = [
                "/usr/bin/python3", SourceTree.path("Tests/Servers/idp_browser.py"),
                device ? "glewlwyd-device" : "glewlwyd", "--base", base,
            ]
        case .djangoOAuthToolkit:
            command = [
                "/usr/bin/python3", SourceTree.path("Tests/Servers/dot_browser.py"), "--base",
                "http://127.0.0.1:\(info["port"] as? Int ?? 0)",
            ]
            if device { command.append("--device") }
        }
        command += ["--user", user, "--password", password]
        if deny { command.append("--deny") }
        if printRedirect { command.append("--print-redirect") }
        return command
    }

    /// `$BROWSER` for a command under test: a script in `folder` that runs the scripted browser
    /// with the address as its one argument (a script, because `$BROWSER` splits at colons, and
    /// the provider's address has one).
    public func browserVariable(in folder: String) throws -> String {
        let path = "\(folder)/browser-\(info["port"] as? Int ?? 0).sh"
        let command = browserCommand().map { "'\($0)'" }.joined(separator: " ")
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data("#!/bin/sh\nexec \(command) \"$1\"\n".utf8),
                attributes: [.posixPermissions: 0o700])
        else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot write \(path)"])
        }
        return "BROWSER=\(path)"
    }

    /// Plays the user at `url` (an authorization address, or a user code with `device`): exit status and stdout.
    public func browse(_ url: String, deny: Bool = false, printRedirect: Bool = false, device: Bool = false) async -> (
        status: Int32, output: String
    ) {
        let command = browserCommand(deny: deny, printRedirect: printRedirect, device: device) + [url]
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: command[0])
                process.arguments = Array(command.dropFirst())
                let output = Pipe()
                let errors = Pipe()
                process.standardOutput = output
                process.standardError = errors
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: (-1, "\(error)"))
                    return
                }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                let problems = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                // A failing browser says why on stderr: that is the output worth showing then.
                continuation.resume(
                    returning: (
                        process.terminationStatus,
                        process.terminationStatus == 0 ? text : text + String(decoding: problems, as: UTF8.self)
                    ))
            }
        }
    }

    /// A form POST to the provider as a client would send it: status and body.
    public func post(_ url: String, form: [String: String], bearer: String? = nil) async throws -> (
        status: Int, body: String
    ) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        request.httpBody = Data(
            form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(
                separator: "&"
            ).utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// Whether the provider still accepts `refreshToken` (a refresh with it succeeds; it is then spent).
    public func acceptsRefresh(_ refreshToken: String, clientID: String? = nil) async throws -> Bool {
        try await post(
            byName(tokenEndpoint),
            form: [
                "grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID ?? self.clientID,
            ]
        ).status == 200
    }

    /// Ends the provider.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A port that was free a moment ago on 127.0.0.1 (for a provider that registers exact redirect URIs).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether any socket on this machine listens on TCP `port` (IPv4 or IPv6), from the kernel's
/// tables in /proc/net: a closed listener is gone from them at once, whereas binding the port
/// again can also fail because another test's outgoing connection took it as its local port.
public func isListening(onPort port: Int) throws -> Bool {
    let hexPort = String(format: ":%04X", port)
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl, local_address, rem_address, st: 0A is LISTEN.
            if fields.count > 3, fields[1].hasSuffix(hexPort), fields[3] == "0A" { return true }
        }
    }
    return false
}
