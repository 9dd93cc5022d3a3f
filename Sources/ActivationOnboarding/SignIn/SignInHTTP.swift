#if DiscoveryClient
    import ActivationConfiguration
    import ActivationDiscovery
    import AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1

    /// A server's answer as the sign-in reads it.
    struct HTTPAnswer: Sendable {
        var status: Int
        var body: [UInt8]
        /// `Location`, for a redirect.
        var location: String?
        /// `Content-Type`.
        var contentType: String?
    }

    /// The sign-in's requests: https only (http only to a loopback host, and only when allowed), no
    /// redirect followed, every answer capped, one deadline per request. Errors name the URL up to
    /// its query, never a header or a body sent.
    struct SignInHTTP: Sendable {
        /// The whole request, connection included, must finish within this.
        var timeout: Duration = .seconds(30)
        /// Accept plain http to a loopback host (local test servers).
        var allowsInsecureLoopback = false
        /// The largest answer read.
        var maxAnswerBytes = AuthorizationServerMetadata.maxBytes

        /// POSTs `form` as `application/x-www-form-urlencoded`.
        func post(_ url: String, form: [(String, String)], headers: [(String, String)] = []) async throws -> HTTPAnswer
        {
            var request = HTTPClientRequest(url: try checked(url))
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
            return try await send(request, headers: headers, shown: url)
        }

        /// GETs `url`.
        func get(_ url: String, headers: [(String, String)] = []) async throws -> HTTPAnswer {
            var request = HTTPClientRequest(url: try checked(url))
            request.method = .GET
            return try await send(request, headers: headers, shown: url)
        }

        /// The URL when its scheme may be used.
        func checked(_ url: String) throws -> String {
            let parsed: CanonicalURL
            do {
                parsed = try CanonicalURL(parsing: url)
            } catch let error as ConfigurationError {
                throw OnboardingError(.serverUnavailable, "\(Self.shown(url)): \(error.message)")
            }
            guard
                parsed.scheme == "https"
                    || (parsed.scheme == "http" && allowsInsecureLoopback && parsed.host.isLoopback)
            else {
                throw OnboardingError(
                    .serverUnavailable,
                    "\(Self.shown(url)): not an https URL (http only to a loopback test server, when allowed)")
            }
            return parsed.description
        }

        private func send(_ request: HTTPClientRequest, headers: [(String, String)], shown url: String) async throws
            -> HTTPAnswer
        {
            var request = request
            request.headers.add(name: "Accept", value: "application/json")
            request.headers.add(name: "User-Agent", value: "activate")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            // One request of a command: a server that cannot be reached is said at once.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let result: Result<HTTPAnswer, OnboardingError>
            do {
                let response = try await client.execute(request, timeout: .init(timeout))
                let body = try await response.body.collect(upTo: maxAnswerBytes)
                result = .success(
                    HTTPAnswer(
                        status: Int(response.status.code), body: Array(buffer: body),
                        location: response.headers.first(name: "Location"),
                        contentType: response.headers.first(name: "Content-Type")))
            } catch is NIOTooManyBytesError {
                result = .failure(
                    OnboardingError(
                        .serverUnavailable, "\(Self.shown(url)): the answer exceeds \(maxAnswerBytes >> 10) KiB"))
            } catch {
                result = .failure(
                    OnboardingError(
                        .serverUnavailable,
                        """
                        \(Self.shown(url)): the server could not be reached \
                        (\(DiscoveryServiceProvider.describe(error)))
                        """
                    ))
            }
            try? await client.shutdown()
            return try result.get()
        }

        /// A URL as errors show it: without its query, escaped.
        static func shown(_ url: String) -> String {
            UntrustedText.escaped(url.prefix { $0 != "?" && $0 != "#" }, maxCharacters: 200)
        }
    }

    extension HTTPAnswer {
        /// A short, escaped account of an unexpected answer: the status, and the OAuth error if the
        /// body is one (an HTML page or an empty body is said to be one).
        var shown: String {
            if let error = ErrorAnswer(json: body) { return "HTTP \(status), \(error.shown)" }
            if body.isEmpty { return "HTTP \(status) with an empty body" }
            if contentType?.lowercased().hasPrefix("text/html") == true { return "HTTP \(status) with an HTML page" }
            return "HTTP \(status)"
        }
    }
#endif
