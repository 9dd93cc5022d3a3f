import ActivationConfiguration
import TestSupport
import Testing

/// Each malformed input gives its own named error that names the source and the key path; none
/// crashes or hangs.
@Suite("Malformed configurations")
struct MalformedTests {
    static let host = "mobile.example.com"
    static func oauth(_ config: String) -> String {
        #"{"host":"\#(host)","appID":"a","auth":[{"type":"oauth2","config":{\#(config)}}]}"#
    }
    static let endpoints =
        #""oauth2.authorizationEndpoint":"https://\#(host)/a","oauth2.tokenEndpoint":"https://\#(host)/t""#

    static let cases: [(name: String, input: String, code: ConfigurationError.Code, reason: String)] = [
        (
            "invalid JSON", #"{"host": "x",}"#, .invalidJSON,
            "payload: invalid JSON at line 1, column 14: expected a key in quotes"
        ),
        (
            "truncated JSON", #"{"host": "x""#, .invalidJSON,
            "payload: invalid JSON at line 1, column 13: the document ends inside an object"
        ),
        (
            "duplicate key", #"{"host":"a","host":"b"}"#, .invalidJSON,
            #"payload: invalid JSON at line 1, column 13: the key "host" appears twice"#
        ),
        ("not an object", #"["host"]"#, .notConfiguration, ""),
        (
            "port wrong type", #"{"host":"\#(host)","port":true,"appID":"a"}"#, .wrongType,
            "payload: port: expected a port number, found the boolean true"
        ),
        (
            "port out of range", #"{"host":"\#(host)","port":70000}"#, .invalidValue,
            "payload: port: 70000 is not a port (1-65535)"
        ),
        ("host wrong type", #"{"host":42}"#, .wrongType, "payload: host: expected a string, found the number 42"),
        (
            "missing host", #"{"appID":"a"}"#, .missingKey,
            "payload: host: missing; a configuration needs host or serviceURL"
        ),
        (
            "host with scheme", #"{"host":"https://\#(host)"}"#, .invalidHost,
            #"""
            payload: host: "https://mobile.example.com" must be a host name only, without scheme or path (put a full \#
            URL in serviceURL)
            """#
        ),
        (
            "host with path", #"{"host":"\#(host)/path"}"#, .invalidHost,
            #"payload: host: "mobile.example.com/path" must be a host name only"#
        ),
        (
            "host with space", #"{"host":"mobile example"}"#, .invalidHost,
            #"payload: host: "mobile example": a host may hold only letters, digits and hyphens"#
        ),
        (
            "protocol", #"{"host":"\#(host)","protocol":"ftp"}"#, .invalidValue,
            #"payload: protocol: "ftp" is not https or http"#
        ),
        (
            "http base URL", #"{"host":"\#(host)","protocol":"http","appID":"a"}"#, .insecureURL,
            "payload: host: not an https URL (http://mobile.example.com)"
        ),
        (
            "serviceURL not a URL", #"{"serviceURL":"mobile.example.com"}"#, .invalidURL,
            #"payload: serviceURL: "mobile.example.com": not a URL"#
        ),
        (
            "auth not an array", #"{"host":"\#(host)","auth":{"type":"basic"}}"#, .wrongType,
            "payload: auth: expected an array of auth items, found an object"
        ),
        ("auth empty", #"{"host":"\#(host)","auth":[]}"#, .missingKey, "payload: auth: is empty"),
        (
            "auth item not an object", #"{"host":"\#(host)","auth":["basic"]}"#, .wrongType,
            #"payload: auth[0]: expected an auth item object, found a string "basic""#
        ),
        (
            "auth type missing", #"{"host":"\#(host)","auth":[{"config":{}}]}"#, .missingKey,
            "payload: auth[0].type: missing"
        ),
        (
            "unknown auth type only", #"{"host":"\#(host)","auth":[{"type":"kerberos"}]}"#, .unsupportedAuth,
            #"payload: auth[0].type: unknown authentication type "kerberos""#
        ),
        (
            "requireOtp wrong type", #"{"host":"\#(host)","auth":[{"type":"basic","requireOtp":"maybe"}]}"#, .wrongType,
            #"payload: auth[0].requireOtp: expected true or false, found a string "maybe""#
        ),
        (
            "config not an object", #"{"host":"\#(host)","auth":[{"type":"oauth2","config":[]}]}"#, .wrongType,
            "payload: auth[0].config: expected an object, found an array"
        ),
        (
            "oauth2 endpoint missing", oauth(#""oauth2.tokenEndpoint":"https://x/t""#), .missingKey,
            "payload: auth[0].config.oauth2.authorizationEndpoint: missing"
        ),
        (
            "http token endpoint",
            oauth(
                #"""
                "oauth2.authorizationEndpoint":"https://\#(host)/a","oauth2.tokenEndpoint":"http://\#(host)/t",\#
                "oauth2.clients":[{"clientID":"c","redirectURL":"https://\#(host)"}]
                """#
            ),
            .insecureURL, "payload: auth[0].config.oauth2.tokenEndpoint: not an https URL (http://mobile.example.com/t)"
        ),
        (
            "endpoint not a URL",
            oauth(#""oauth2.authorizationEndpoint":"not a url","oauth2.tokenEndpoint":"https://x/t""#), .invalidURL,
            #"payload: auth[0].config.oauth2.authorizationEndpoint: "not a url": not a URL"#
        ),
        (
            "clients not an array", oauth(endpoints + #","oauth2.clients":{"clientID":"c"}"#), .wrongType,
            "payload: auth[0].config.oauth2.clients: expected an array of clients, found an object"
        ),
        (
            "clients missing", oauth(endpoints), .missingKey,
            "payload: auth[0].config.oauth2.clients: missing; an oauth2 method needs at least one client"
        ),
        (
            "client without id", oauth(endpoints + #","oauth2.clients":[{"redirectURL":"https://x"}]"#), .missingKey,
            "payload: auth[0].config.oauth2.clients[0].clientID: missing"
        ),
        (
            "bad grant type",
            oauth(
                endpoints + #","oauth2.clients":[{"clientID":"c","redirectURL":"https://x","grantType":"implicit"}]"#),
            .invalidValue,
            #"payload: auth[0].config.oauth2.clients[0].grantType: "implicit" is not authorization_code or password"#
        ),
        (
            "redirect not a URL", oauth(endpoints + #","oauth2.clients":[{"clientID":"c","redirectURL":"nowhere"}]"#),
            .invalidURL, #"payload: auth[0].config.oauth2.clients[0].redirectURL: "nowhere" is not a URL"#
        ),
        (
            "passcode with code grant",
            oauth(endpoints + #","oauth2.clients":[{"clientID":"c","redirectURL":"https://x","passcode":"s3cr3t"}]"#),
            .invalidValue, "payload: auth[0].config.oauth2.clients[0].passcode: is only allowed with grantType password"
        ),
        (
            "password grant without passcode",
            oauth(
                endpoints + #","oauth2.clients":[{"clientID":"c","redirectURL":"https://x","grantType":"password"}]"#),
            .missingKey, "payload: auth[0].config.oauth2.clients[0].passcode: missing"
        ),
        (
            "user info in URL",
            oauth(
                #"""
                "oauth2.authorizationEndpoint":"https://user:pw@\#(host)/a","oauth2.tokenEndpoint":"https://\#(host)/\#
                t","oauth2.clients":[{"clientID":"c","redirectURL":"app://x"}]
                """#
            ),
            .insecureURL,
            "payload: auth[0].config.oauth2.authorizationEndpoint: a URL with a user name or password is not allowed"
        ),
        (
            "IP literal host", #"{"host":"10.1.2.3","appID":"a"}"#, .insecureURL,
            "payload: host: the IP address 10.1.2.3 is not allowed as a host"
        ),
        (
            "deep nesting",
            #"{"host":"x","a":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
            .tooDeep, "payload: nesting deeper than 32 levels"
        ),
        (
            "too many auth items",
            #"{"host":"\#(host)","auth":["# + Array(repeating: #"{"type":"basic"}"#, count: 17).joined(separator: ",")
                + "]}",
            .tooManyItems, "payload: auth: 17 auth items exceed the limit of 16"
        ),
        (
            "too many clients",
            oauth(
                endpoints + #","oauth2.clients":["#
                    + Array(repeating: #"{"clientID":"c","redirectURL":"https://x"}"#, count: 33).joined(separator: ",")
                    + "]"),
            .tooManyItems, "payload: auth[0].config.oauth2.clients: 33 clients exceed the limit of 32"
        ),
        (
            "oversized", #"{"host":"\#(host)","pad":""# + String(repeating: "x", count: 300_000) + #""}"#,
            .inputTooLarge, "payload: 293 KiB exceeds the 256 KiB limit"
        ),
        (
            "bad escape", #"{"host":"\q"}"#, .invalidJSON,
            #"payload: invalid JSON at line 1, column 10: an invalid escape '\q'"#
        ),
        (
            "lone surrogate", #"{"host":"\ud800"}"#, .invalidJSON,
            "payload: invalid JSON at line 1, column 16: a lone UTF-16 surrogate"
        ),
        ("number with leading zero", #"{"host":"x","port":0443}"#, .invalidJSON, "numbers cannot start with 0"),
    ]

    @Test("each malformed case has its own named error", arguments: cases)
    func malformed(_ testCase: (name: String, input: String, code: ConfigurationError.Code, reason: String)) throws {
        do {
            let payload = try PayloadRecognizer().recognize(text: testCase.input, source: "payload")
            // Text that is no configuration at all is reported as what it is, not thrown.
            #expect(testCase.code == .notConfiguration && payload.document == nil, "\(testCase.name): accepted")
        } catch let error as ConfigurationError {
            #expect(error.code == testCase.code, "\(testCase.name): \(error.reason)")
            #expect(
                error.reason.hasPrefix(testCase.reason) || error.reason.contains(testCase.reason),
                "\(testCase.name): \(error.reason)")
        }
    }

    @Test("an error carries its source and key path as fields, for programs, besides the sentence")
    func structuredError() throws {
        let text = Self.cases.first { $0.name == "http token endpoint" }?.input ?? ""
        let error = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(text: text, source: "config.json")
        }
        #expect(error?.code == .insecureURL)
        #expect(error?.source == "config.json")
        #expect(error?.keyPath == "auth[0].config.oauth2.tokenEndpoint")
        #expect(error?.message == "not an https URL (http://mobile.example.com/t)")
        #expect(
            error?.reason
                == "config.json: auth[0].config.oauth2.tokenEndpoint: not an https URL (http://mobile.example.com/t)")
        // Untrusted text in any field reaches a terminal only escaped.
        let escaped = ConfigurationError(.invalidValue, source: "a\u{1B}[2Jb.json", keyPath: "k\u{202E}", "m")
        #expect(escaped.source == "a\\u{1B}[2Jb.json" && escaped.keyPath == "k\\u{202E}")
    }

    @Test("invalid UTF-8 is named with its byte offset")
    func invalidUTF8() throws {
        let bytes = Array(#"{"host":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let error = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(bytes: bytes, source: "config.json")
        }
        #expect(error?.code == .invalidUTF8)
        #expect(error?.reason == "config.json: not valid UTF-8 at byte 9")
    }

    @Test("a broken property list is named")
    func brokenPlist() throws {
        let bytes = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>host</key>".utf8)
        let error = #expect(throws: ConfigurationError.self) {
            try PayloadRecognizer().recognize(bytes: bytes, source: "config.plist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(
            error?.reason == "config.plist: invalid property list at line 1, column 64: the document ends inside <dict>"
        )
    }

    @Test("hostile inputs finish quickly: deep nesting, long strings, many keys")
    func noHang() throws {
        let inputs = [
            String(repeating: "[", count: 100_000),
            "{" + (0..<20_000).map { #""k\#($0)":1"# }.joined(separator: ",") + "}",
            #"{"host":""# + String(repeating: "\\u0041", count: 40_000) + #""}"#,
        ]
        for input in inputs {
            let spent = ThreadCPUTime.measure { _ = try? PayloadRecognizer().recognize(text: input, source: "x") }
            #expect(spent < .seconds(5), "\(spent) of processor time")
        }
    }
}
