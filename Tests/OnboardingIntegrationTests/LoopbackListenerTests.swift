import ActivationConfiguration
import Foundation
import TestSupport
import Testing

@testable import ActivationOnboarding

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback listener on real sockets: what a browser, a stale tab or another local process
/// sees when it calls it.
@Suite("The sign-in's loopback listener")
struct LoopbackListenerTests {
    static let endpoints = OAuth2Endpoints(
        authorization: "https://idp.example.com/authorize", token: "https://idp.example.com/token",
        client: OAuth2Client(clientID: "app", redirectURL: "http://127.0.0.1/callback"))

    static func get(_ url: String) async throws -> (status: Int, headers: [String: String], body: String) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        let http = try #require(response as? HTTPURLResponse)
        let headers = Dictionary(
            uniqueKeysWithValues: http.allHeaderFields.compactMap { key, value in
                (key as? String).map { ($0.lowercased(), "\(value)") }
            })
        return (http.statusCode, headers, String(decoding: data, as: UTF8.self))
    }

    @Test(
        """
        a wrong state is answered 400 and the wait goes on; the right state with an error ends it, its markup escaped; \
        the port is released
        """
    )
    func wrongStateThenError() async throws {
        let listener = try await LoopbackListener.start(redirectURL: "http://127.0.0.1/callback")
        let request = AuthorizationRequest(endpoints: Self.endpoints, redirectURI: listener.redirectURI)
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        #expect(try isListening(onPort: listener.port))
        // As the sign-in does: callbacks are judged from before the browser opens.
        listener.expect(request, issuer: nil)
        let waiting = Task { try await listener.code(timeout: .seconds(60)) }
        let base = "http://127.0.0.1:\(listener.port)"
        let stale = try await Self.get("\(base)/callback?code=stolen&state=old")
        #expect(stale.status == 400)
        #expect(stale.headers["cache-control"] == "no-store" && stale.headers["referrer-policy"] == "no-referrer")
        #expect(!stale.body.contains("http://") && !stale.body.contains("https://") && !stale.body.contains("<script"))
        #expect(try await Self.get("\(base)/other?code=x&state=\(request.state)").status == 404)
        #expect(
            try await Self.get("\(base)/callback?error=access_denied").status == 400,
            "an error without the state proves nothing")
        let markup = FormEncoding.escape("<script>alert(1)</script>")
        let ended = try await Self.get(
            "\(base)/callback?error=access_denied&error_description=\(markup)&state=\(request.state)")
        #expect(ended.status == 200)
        #expect(ended.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !ended.body.contains("<script>"))
        await #expect {
            try await waiting.value
        } throws: { error in
            (error as? OnboardingError)?.reason.contains("access_denied") ?? false
        }
        #expect(listener.wrongStateCount == 2)
        // The port is released: nothing listens on it any more.
        #expect(try !isListening(onPort: listener.port))
    }

    @Test("the right state gives the code; no callback within the timeout ends the wait and frees the port")
    func codeAndTimeout() async throws {
        // ::1 binds as well (Foundation's client here does not take bracketed addresses, so the call
        // goes to 127.0.0.1).
        let six = try await LoopbackListener.start(redirectURL: "http://[::1]/cb")
        #expect(six.redirectURI == "http://[::1]:\(six.port)/cb")
        await six.close()
        let listener = try await LoopbackListener.start(redirectURL: "http://localhost/cb")
        let request = AuthorizationRequest(endpoints: Self.endpoints, redirectURI: listener.redirectURI)
        #expect(listener.redirectURI == "http://localhost:\(listener.port)/cb")
        listener.expect(request, issuer: "https://idp.example.com")
        let waiting = Task { try await listener.code(timeout: .seconds(60)) }
        let page = try await Self.get(
            """
            http://127.0.0.1:\(listener.port)/cb?code=the-code&state=\(request.state)&\
            iss=\(FormEncoding.escape("https://idp.example.com"))
            """
        )
        #expect(page.status == 200 && page.body.contains("signed in"))
        #expect(try await waiting.value == "the-code")

        let idle = try await LoopbackListener.start(redirectURL: "http://127.0.0.1/callback")
        idle.expect(AuthorizationRequest(endpoints: Self.endpoints, redirectURI: idle.redirectURI), issuer: nil)
        #expect(try isListening(onPort: idle.port))
        await #expect {
            try await idle.code(timeout: .milliseconds(300))
        } throws: { error in
            (error as? OnboardingError)?.reason.contains("no sign-in came back") ?? false
        }
        #expect(try !isListening(onPort: idle.port))
    }

    @Test("only loopback redirect addresses are listened on")
    func onlyLoopback() async {
        await #expect(throws: OnboardingError.self) {
            try await LoopbackListener.start(redirectURL: "https://app.example.com/callback")
        }
        await #expect(throws: OnboardingError.self) {
            try await LoopbackListener.start(redirectURL: "http://192.0.2.1/callback")
        }
    }
}
