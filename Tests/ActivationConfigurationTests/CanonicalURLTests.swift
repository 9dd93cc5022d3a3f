import Testing

@testable import ActivationConfiguration

/// The one URL/host canonicaliser: the host the policy judges is the host a connection reaches.
@Suite struct CanonicalURLTests {
    @Test(arguments: [
        ("https://Mobile.Example.COM/path?q=1#frag", "https://mobile.example.com/path?q=1#frag"),
        ("HTTPS://example.com:443/", "https://example.com/"),
        ("https://example.com:8443", "https://example.com:8443"),
        ("http://example.com:80/x", "http://example.com/x"),
        ("https://example.com./x", "https://example.com/x"),
        ("https://bücher.example/", "https://xn--bcher-kva.example/"),
        ("https://MÜNCHEN.example", "https://xn--mnchen-3ya.example"),
        ("https://例え.テスト/", "https://xn--r8jz45g.xn--zckzah/"),
        ("https://example\u{3002}com/", "https://example.com/"),
        ("https://192.0.2.1/", "https://192.0.2.1/"),
        ("https://[2001:DB8:0:0:0:0:0:1]:8443/", "https://[2001:db8::1]:8443/"),
        ("https://[::1]/", "https://[::1]/"),
        ("https://ｅｘａｍｐｌｅ.com/", "https://example.com/"),
    ])
    func canonicalForms(input: String, expected: String) throws {
        #expect(try CanonicalURL(parsing: input).description == expected)
    }

    @Test(arguments: [
        // Percent-encoded host characters (the allowlist would see one host, a reader another).
        "https://evil.example%2F.hana.ondemand.com/", "https://evil.example%23.hana.ondemand.com/",
        "https://evil.example%3F.hana.ondemand.com/", "https://ex%61mple.com/",
        "https://evil.com%252F.hana.ondemand.com/",
        // Numeric IPv4 spellings resolvers accept.
        "https://2130706433/", "https://127.1/", "https://0x7f.0.0.1/", "https://0177.0.0.1/", "https://127.0.0.01/",
        "https://example.123/", "https://example.0x10/", "https://1.2.3.4.5/",
        // Ports.
        "https://example.com:0/", "https://example.com:99999/", "https://example.com:/", "https://example.com:44a/",
        "https://example.com:-1/",
        // Characters readers disagree on.
        "https://evil.com\\@good.hana.ondemand.com/", "https://good.com\\.evil.com/", "https://exa mple.com/",
        "https://example.com/pa th", "https://exa\u{1B}mple.com/", "https://example.com/\u{202E}x",
        "https://under_score.com/", "https://-lead.com/", "https://a..b.com/", "https://.example.com/",
        "https://[fe80::1%25eth0]/", "https://[::1/", "https://[1:2:3]/", "https://", "https:///path",
        "https:example.com", "ftp://example.com/", "javascript://example.com/", "example.com", "",
        "https://example.com/%zz", "https://xn--.com/", "https://ex\u{2044}ample.com/",
        "https://" + String(repeating: "a", count: 64) + ".com/",
        "https://" + String(repeating: "a.", count: 130) + "com/",
    ])
    func refusedURLs(input: String) {
        #expect(throws: ConfigurationError.self) { try CanonicalURL(parsing: input) }
    }

    @Test func numericAddressErrorsSayWhatTheyMean() throws {
        let error = try #require(throws: ConfigurationError.self) { try CanonicalURL(parsing: "https://2130706433/") }
        #expect(error.code == .invalidHost)
        #expect(error.reason.contains("127.0.0.1"))
        let short = try #require(throws: ConfigurationError.self) { try CanonicalURL(parsing: "https://0x7f.1/") }
        #expect(short.reason.contains("127.0.0.1"))
    }

    @Test func userInfoIsRecordedNeverKept() throws {
        let url = try CanonicalURL(parsing: "https://user:secret@example.com/x")
        #expect(url.hasUserInfo)
        #expect(url.host == .name("example.com"))
        #expect(!url.description.contains("secret"))
    }

    @Test func shownURLsHideSecrets() {
        #expect(CanonicalURL.shown("https://user:secret@example.com/a?token=x") == "https://…@example.com/a?…")
        #expect(CanonicalURL.shown("https://example.com/a@b") == "https://example.com/a@b")
        #expect(CanonicalURL.shown("https://ex\u{1B}ample.com") == "https://ex\\u{1B}ample.com")
        let error = #expect(throws: ConfigurationError.self) {
            try CanonicalURL(parsing: "https://u:secret@exa mple.com/")
        }
        #expect(error?.reason.contains("secret") == false)
    }

    @Test func hostsAndTheirKinds() throws {
        #expect(try CanonicalURL.Host(parsing: "EXAMPLE.com") == .name("example.com"))
        #expect(try CanonicalURL.Host(parsing: "::1") == .ipv6("::1"))
        #expect(try CanonicalURL.Host(parsing: "[::ffff:127.0.0.1]").isLoopback)
        #expect(try CanonicalURL.Host(parsing: "127.3.4.5").isLoopback)
        #expect(try CanonicalURL.Host(parsing: "localhost").isLoopback)
        #expect(try !CanonicalURL.Host(parsing: "localhost.example.com").isLoopback)
        #expect(throws: ConfigurationError.self) { try CanonicalURL.Host(parsing: "example.com:8443") }
    }

    @Test func allowListJudgesTheCanonicalHostAtLabelBoundaries() {
        let policy = SecurityPolicy(allowedHosts: ["hana.ondemand.com", "Bücher.example"])
        #expect(policy.isAllowed(host: "a.hana.ondemand.com"))
        #expect(policy.isAllowed(host: "HANA.ondemand.com."))
        #expect(policy.isAllowed(host: "shop.xn--bcher-kva.example"))
        #expect(policy.isAllowed(host: "shop.bücher.example"))
        #expect(!policy.isAllowed(host: "evilhana.ondemand.com"))
        #expect(!policy.isAllowed(host: "evil.com%2F.hana.ondemand.com"))
        #expect(!policy.isAllowed(host: "hana.ondemand.com.evil.com"))
    }

    @Test func punycodeMatchesRFC3492() {
        #expect(Punycode.encode("bücher") == "bcher-kva")
        #expect(Punycode.encode("münchen") == "mnchen-3ya")
        // RFC 3492 7.1 (L): "3年B組金八先生"
        #expect(Punycode.encode("3年b組金八先生") == "3b-ww4c5e180e575a65lsy2b")
        #expect(Punycode.encode("ليهمابتكلموشعربي؟") == "egbpdaj6bu4bxfgehfvwxn")
    }
}

/// The one escaping writer for untrusted text.
@Suite struct UntrustedTextTests {
    @Test func controlAndBidiCharactersBecomeVisibleEscapes() {
        #expect(UntrustedText.escaped("a\u{1B}[2Jb") == "a\\u{1B}[2Jb")
        #expect(
            UntrustedText.escaped("x\r\nYou will be connected to: evil")
                == "x\\u{D}\\u{A}You will be connected to: evil")
        #expect(UntrustedText.escaped("\u{7}\u{7F}\u{9B}") == "\\u{7}\\u{7F}\\u{9B}")
        #expect(UntrustedText.escaped("moc.\u{202E}live") == "moc.\\u{202E}live")
        #expect(
            UntrustedText.escaped("a\u{2066}b\u{2069}\u{200B}\u{FEFF}\u{2028}")
                == "a\\u{2066}b\\u{2069}\\u{200B}\\u{FEFF}\\u{2028}")
        #expect(UntrustedText.escaped("tab\there") == "tab\\u{9}here")
    }

    @Test func printableTextStaysAsItIs() {
        for text in ["Zürich", "東京", "👨‍👩‍👧", "مرحبا", "a\\u{1B}b", "com.example.app://host"] {
            #expect(UntrustedText.escaped(text) == text)
            #expect(UntrustedText.isPlain(text))
        }
    }

    @Test func truncation() {
        #expect(UntrustedText.escaped("abcdef", maxCharacters: 3) == "abc…")
    }

    @Test func jsonEscapesWhatTerminalsActOn() {
        #expect(UntrustedText.escapingJSON(#"{"a":"x\#u{202E}y\#u{9B}"}"#) == #"{"a":"x\u202Ey\u009B"}"#)
        #expect(UntrustedText.escapingJSON(#"{"a":"\#u{E0041}"}"#) == #"{"a":"\uDB40\uDC41"}"#)
        #expect(UntrustedText.escapingJSON(#"{"a":"plain ü"}"#) == #"{"a":"plain ü"}"#)
    }
}
