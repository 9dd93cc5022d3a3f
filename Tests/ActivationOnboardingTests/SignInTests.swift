import ActivationConfiguration
import ActivationSecureStore
import Foundation
import Testing

@testable import ActivationOnboarding

@Suite("Sign-in: PKCE, the redirect, the servers' answers, the device grant's polling")
struct SignInTests {
    static let client = OAuth2Client(clientID: "app", redirectURL: "http://127.0.0.1/callback", scope: "openid mobile")
    static let endpoints = OAuth2Endpoints(
        authorization: "https://idp.example.com/authorize", token: "https://idp.example.com/token",
        issuer: "https://idp.example.com", client: client)

    @Test("the S256 challenge of RFC 7636's own example; fresh verifiers are 43 unreserved characters")
    func proofKey() throws {
        #expect(
            try ProofKey(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        let fresh = ProofKey()
        #expect(fresh.verifier.utf8.count == 43)
        #expect(fresh != ProofKey())
        #expect(!fresh.description.contains(fresh.verifier))
        #expect(throws: OnboardingError.self) { try ProofKey(verifier: "short") }
        #expect(throws: OnboardingError.self) { try ProofKey(verifier: String(repeating: "a", count: 42) + " ") }
    }

    @Test("the authorization request carries PKCE, a fresh state and, with openid, a nonce")
    func authorizationRequest() throws {
        let request = AuthorizationRequest(endpoints: Self.endpoints, redirectURI: "http://127.0.0.1:5000/callback")
        let query = try #require(request.url.split(separator: "?", maxSplits: 1).last)
        let fields = Dictionary(
            uniqueKeysWithValues: try FormEncoding.decode(query, maxFields: 20).map { ($0.name, $0.value) })
        #expect(
            fields == [
                "response_type": "code", "client_id": "app", "redirect_uri": "http://127.0.0.1:5000/callback",
                "scope": "openid mobile",
                "state": request.state, "code_challenge": request.proofKey.challenge, "code_challenge_method": "S256",
                "nonce": try #require(request.nonce),
            ])
        #expect(request.state.utf8.count >= 22)  // at least 128 bits
        #expect(request.state != AuthorizationRequest(endpoints: Self.endpoints, redirectURI: "x").state)
        var noOpenID = Self.endpoints
        noOpenID.client.scope = "mobile"
        #expect(AuthorizationRequest(endpoints: noOpenID, redirectURI: "x").nonce == nil)
        #expect(!request.description.contains(request.state))
    }

    @Test(
        "callbacks: the right state gives the code; a wrong or missing one is answered and waited past; errors end it",
        arguments: [
            ("code=abc&state=STATE", "code abc"),
            ("code=abc&state=other", "wrong state"),
            ("code=abc", "wrong state"),
            ("error=access_denied", "wrong state"),
            (
                "error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E%1B%5B2J&state=STATE",
                "failed: the server ended the sign-in with access_denied: <b>no</b>\\u{1B}[2J"
            ),
            ("code=abc&state=STATE&iss=https%3A%2F%2Fidp.example.com", "code abc"),
            (
                "code=abc&state=STATE&iss=https%3A%2F%2Fevil.example",
                """
                failed: the redirect names the issuer https://evil.example, not https://idp.example.com: the code came \
                from another server
                """
            ),
            ("code=&state=STATE", "failed: the redirect carries an empty code"),
        ])
    func callbacks(query: String, expected: String) throws {
        let request = AuthorizationRequest(endpoints: Self.endpoints, redirectURI: "http://127.0.0.1/callback")
        let verdict = try AuthorizationCallback(
            query: Substring(query.replacingOccurrences(of: "STATE", with: request.state))
        )
        .verdict(for: request, issuer: "https://idp.example.com")
        let shown =
            switch verdict {
            case .code(let code): "code \(code)"
            case .wrongState: "wrong state"
            case .failed(let error): "failed: \(error.reason)"
            }
        #expect(shown == expected)
    }

    @Test(
        "malformed redirects are refused by what is wrong, never echoing a value",
        arguments: [
            ("code=a&code=b&state=s", "carries code more than once"),
            ("code=%zz&state=s", "a % not followed by two hexadecimal digits"),
            ("code=a b&state=s", "not percent-encoded"),
            ("state=s", "neither a code nor an error"),
            ("code=%FF&state=s", "not UTF-8"),
            (String(repeating: "x=1&", count: 40) + "code=a", "more than 32 parameters"),
            ("code=" + String(repeating: "a", count: 9000), "longer than 8192 bytes"),
        ])
    func malformedCallbacks(query: String, reason: String) {
        #expect {
            try AuthorizationCallback(query: Substring(query))
        } throws: { error in
            (error as? OnboardingError).map { $0.code == .signInFailed && $0.reason.contains(reason) } ?? false
        }
    }

    @Test("a pasted address must start with the redirect URL")
    func pastedAddress() throws {
        let pasted = try AuthorizationCallback(
            address: "  https://app.example.com/cb?code=x&state=s#frag \n", redirectURI: "https://app.example.com/cb")
        #expect(pasted.code == "x" && pasted.state == "s")
        #expect(throws: OnboardingError.self) {
            try AuthorizationCallback(
                address: "https://evil.example/cb?code=x&state=s", redirectURI: "https://app.example.com/cb")
        }
        #expect(throws: OnboardingError.self) {
            try AuthorizationCallback(
                address: "https://app.example.com/cbx?code=x&state=s", redirectURI: "https://app.example.com/cb")
        }
        #expect(throws: OnboardingError.self) {
            try AuthorizationCallback(address: "https://app.example.com/cb", redirectURI: "https://app.example.com/cb")
        }
    }

    @Test("token answers: Bearer tokens of visible ASCII, expiry as a number or digits; the rest refused by key")
    func tokenAnswers() throws {
        let answer = try TokenAnswer(
            json: Array(
                #"{"access_token":"at.1","token_type":"bearer","expires_in":"3600","refresh_token":"rt","scope":"a b"}"#
                    .utf8),
            source: "token")
        #expect(
            answer.accessToken == "at.1" && answer.tokenType == "Bearer" && answer.expiresIn == 3600
                && answer.refreshToken == "rt")
        #expect(!answer.description.contains("at.1") && !answer.description.contains("\"rt\""))
        for (body, reason) in [
            (#"{"access_token":"a","token_type":"DPoP"}"#, "token_type is DPoP"),
            (#"{"access_token":"a\u001b[2J","token_type":"Bearer"}"#, "access_token is not 1 to"),
            (#"{"access_token":"","token_type":"Bearer"}"#, "access_token is not 1 to"),
            (#"{"token_type":"Bearer"}"#, "access_token is missing"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":-5}"#, "expires_in is not a number of seconds"),
            (#"<html>502</html>"#, "the answer is not JSON"),
            (#"[1]"#, "not a JSON object"),
        ] {
            #expect {
                try TokenAnswer(json: Array(body.utf8), source: "token")
            } throws: { error in
                (error as? OnboardingError).map { $0.code == .serverUnavailable && $0.reason.contains(reason) } ?? false
            }
        }
        #expect(
            ErrorAnswer(json: Array(#"{"error":"invalid_grant","error_description":"<i>gone</i>\n"}"#.utf8))?.shown
                == "invalid_grant: <i>gone</i>\\u{A}")
        #expect(ErrorAnswer(json: []) == nil)
        #expect(ErrorAnswer(json: Array("<html>".utf8)) == nil)
    }

    @Test("device answers: the user code is plain, the verification address passes the policy")
    func deviceAnswers() throws {
        let body =
            #"""
            {"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"https://idp.example.com/device",\#
            "verification_uri_complete":"https://idp.example.com/device?code=ABCD-EFGH","expires_in":600}
            """#
        let device = try DeviceAuthorization(json: Array(body.utf8), source: "device", policy: SecurityPolicy())
        #expect(device.interval == 5 && device.expiresIn == 600 && device.userCode == "ABCD-EFGH")
        #expect(!device.description.contains("\"dc\""))
        let http = body.replacingOccurrences(
            of: "https://idp.example.com/device\"", with: "http://idp.example.com/device\"")
        #expect(throws: OnboardingError.self) {
            try DeviceAuthorization(json: Array(http.utf8), source: "device", policy: SecurityPolicy())
        }
        let forged = body.replacingOccurrences(of: "ABCD-EFGH\"", with: "ABCD\\u001b[31m\"")
        #expect(throws: OnboardingError.self) {
            try DeviceAuthorization(json: Array(forged.utf8), source: "device", policy: SecurityPolicy())
        }
    }

    @Test("metadata fills in only what the document leaves out, only from the issuer asked for, only past the policy")
    func metadata() throws {
        let json =
            #"""
            {"issuer":"https://idp.example.com","authorization_endpoint":"https://idp.example.com/a","token_endpoint":\#
            "https://idp.example.com/t","device_authorization_endpoint":"https://idp.example.com/d",\#
            "revocation_endpoint":"http://idp.example.com/r"}
            """#
        let metadata = try AuthorizationServerMetadata(json: Array(json.utf8), source: "metadata")
        let (filled, warnings) = Self.endpoints.filled(from: metadata, policy: SecurityPolicy())
        #expect(filled.deviceAuthorization == "https://idp.example.com/d")
        #expect(filled.revocation == nil && warnings.count == 1 && warnings[0].contains("not an https URL"))
        var other = metadata
        other.issuer = "https://evil.example"
        let (ignored, why) = Self.endpoints.filled(from: other, policy: SecurityPolicy())
        #expect(ignored == Self.endpoints && why.first?.contains("names another issuer") == true)
        #expect(
            AuthorizationServerMetadata.locations(issuer: "https://idp.example.com/api/oidc") == [
                "https://idp.example.com/api/oidc/.well-known/openid-configuration",
                "https://idp.example.com/.well-known/oauth-authorization-server/api/oidc",
            ])
    }

    @Test(
        "the device grant polls after each interval, 5 s slower after slow_down, and stops at the expiry or a refusal")
    func devicePolling() {
        var polling = DeviceGrantPolling(interval: 2, expiresIn: 20)
        #expect(polling.first == .wait(2))
        #expect(polling.next(after: .error("authorization_pending"), waited: 2) == .wait(2))
        #expect(polling.next(after: .error("slow_down"), waited: 2) == .wait(7))
        #expect(polling.next(after: .error("authorization_pending"), waited: 7) == .wait(7))
        // 2 s are left: the last poll comes at the expiry, not after it.
        #expect(polling.next(after: .error("authorization_pending"), waited: 7) == .wait(2))
        #expect(polling.next(after: .error("authorization_pending"), waited: 2) == .fail(DeviceGrantPolling.expired))
        #expect(polling.polls == 5)
        var denied = DeviceGrantPolling(interval: 1, expiresIn: 60)
        guard case .fail(let error) = denied.next(after: .error("access_denied"), waited: 1) else {
            Issue.record("not ended")
            return
        }
        #expect(error.code == .signInFailed && error.reason.contains("denied"))
        var expired = DeviceGrantPolling(interval: 1, expiresIn: 60)
        #expect(expired.next(after: .error("expired_token"), waited: 1) == .fail(DeviceGrantPolling.expired))
        var odd = DeviceGrantPolling(interval: 1, expiresIn: 60)
        guard case .fail(let unexpected) = odd.next(after: .unexpected("HTTP 502 with an HTML page"), waited: 1) else {
            Issue.record("not ended")
            return
        }
        #expect(unexpected.code == .serverUnavailable)
        var done = DeviceGrantPolling(interval: 1, expiresIn: 60)
        #expect(done.next(after: .tokens, waited: 1) == .done)
    }

    @Test("the session survives the store's plaintext; no token in its description")
    func storedSignIn() throws {
        let session = StoredSignIn(
            grant: "authorization_code", accessToken: "AT", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
            refreshToken: "RT",
            scope: "openid", tokenEndpoint: "https://idp.example.com/t", clientID: "app", subject: "alice",
            signedInAt: Date(timeIntervalSince1970: 1_900_000_000))
        let contents = SecureStoreContents(signIn: session)
        let read = try SecureStoreContents(plaintext: contents.plaintext, source: "store")
        #expect(read.signIn == session)
        #expect(!session.description.contains("AT") && !session.description.contains("RT"))
        #expect(session.isValid(for: .seconds(60), at: Date(timeIntervalSince1970: 1_999_999_000)))
        #expect(!session.isValid(for: .seconds(60), at: Date(timeIntervalSince1970: 1_999_999_950)))
    }
}
