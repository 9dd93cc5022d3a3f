import Foundation
import Testing

@testable import ActivationConfiguration

/// The test vectors of RFC 9285 and RFC 8949 Appendix A, kept with the Python reference
/// implementation (Tests/Interop/vectors, checked there against the `base45` and `cbor2` packages).
enum Vectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop/vectors").path

    static func json(_ name: String) throws -> [ConfigurationObject] {
        let value = try JSONReader(maxBytes: 1 << 20, maxDepth: 8).parse(
            try FileIO.read("\(directory)/\(name)", limit: 1 << 20), source: name)
        guard let items = value.arrayValue?.compactMap(\.objectValue) else {
            throw ConfigurationError(.wrongType, "\(name): not an array")
        }
        return items
    }

    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}

@Suite("Base45 (RFC 9285)")
struct Base45Tests {
    @Test("the RFC's examples encode and decode")
    func rfcExamples() throws {
        let examples = try Vectors.json("rfc9285-base45.json").filter { $0["decoded"] != nil }
        #expect(examples.count == 4)
        for example in examples {
            let decoded = try #require(example["decoded"]?.stringValue)
            let encoded = try #require(example["encoded"]?.stringValue)
            #expect(Base45.encode(Array(decoded.utf8)) == encoded)
            #expect(try Base45.decode(encoded, source: "t") == Array(decoded.utf8))
        }
    }

    @Test(
        "invalid text is refused with its position",
        arguments: [
            ("GGW", "out of range"), ("BB", "out of range"), ("BB8B", "single character"), ("bb8", "not Base45"),
            ("BB8\n", "not Base45"),
        ])
    func invalid(text: String, why: String) throws {
        let invalid = try Vectors.json("rfc9285-base45.json").compactMap { $0["invalid"]?.arrayValue }.flatMap { $0 }
            .compactMap(\.stringValue)
        #expect(invalid.contains("GGW"))
        let error = #expect(throws: ConfigurationError.self) { try Base45.decode(text, source: "code.txt") }
        #expect(error?.code == .invalidBase45)
        #expect(error?.reason.contains(why) == true, "\(error?.reason ?? "")")
    }

    @Test("every byte pair survives a round trip")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base45.encode(bytes)
            #expect(text.utf8.allSatisfy(Base45.isAlphabet))
            #expect(try Base45.decode(text, source: "t") == bytes)
        }
    }
}

@Suite("CBOR (RFC 8949), strict profile")
struct CBORTests {
    static let reader = CBORReader(
        maxDepth: 16, maxItems: 1000, maxBytes: 1 << 16, allowedTags: [0, 1, 2, 3, 18, 23, 24, 32])

    @Test("Appendix A: every example outside the profile's exclusions reads and re-encodes to the same bytes")
    func appendixA() throws {
        let vectors = try Vectors.json("rfc8949-appendix-a.json")
        #expect(vectors.count >= 80)
        var read = 0
        var refused: [String: Int] = [:]
        for vector in vectors {
            let hex = try #require(vector["hex"]?.stringValue)
            let kind = vector["kind"]?.stringValue ?? ""
            let bytes = Vectors.bytes(hex: hex)
            let roundTrips = vector["roundtrip"] == .bool(true)
            do {
                let item = try Self.reader.read(bytes, what: "vector", source: hex)
                read += 1
                #expect(roundTrips, "\(hex) is not deterministic, yet it was read")
                #expect(item.encoded == bytes, "\(hex)")
            } catch let error as ConfigurationError {
                // Refused only for what the profile leaves out: floats, undefined and other simple
                // values, indefinite lengths (not deterministic).
                let reason = error.reason
                // A float inside a tag: 1(1363896240.5).
                let expected =
                    kind == "float" || kind == "simple" || !roundTrips || reason.contains("floating-point")
                #expect(expected, "\(hex) (\(kind)) refused: \(reason)")
                let why = ["floating-point", "simple value", "indefinite"].first { reason.contains($0) } ?? "other"
                refused[why, default: 0] += 1
            }
        }
        #expect(read >= 44, "\(read) read, refused \(refused)")
        #expect(refused["other"] == nil, "\(refused)")
        #expect(refused["floating-point"] ?? 0 >= 15 && refused["indefinite"] ?? 0 >= 10, "\(refused)")
    }

    @Test(
        "non-deterministic or hostile encodings are refused, each with its reason",
        arguments: [
            ("1817", "shortest form"),  // 23 in two bytes
            ("190017", "shortest form"),
            ("5f4101ff", "indefinite"),  // an indefinite byte string
            ("a201010102", "twice"),  // {1: 1, 1: 2}
            ("0101", "follow the end"),  // trailing byte
            ("1901", "ends in the middle"),  // a head cut short
            ("62c328", "not valid UTF-8"),
            ("f7", "simple value 23"),  // undefined
            ("f93c00", "floating-point"),
            ("d82a01", "tag 42 is not allowed"),
            ("9bffffffffffffffff", "runs past the end"),  // an array claiming 2⁶⁴−1 items
            ("bbffffffffffffffff", "runs past the end"),
            ("5bffffffffffffffff", "runs past the end"),
            ("1c", "reserved"),
        ])
    func refused(hex: String, why: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try Self.reader.read(Vectors.bytes(hex: hex), what: "the frame", source: "code")
        }
        #expect(error?.reason.contains(why) == true, "\(hex): \(error?.reason ?? "")")
        #expect(error?.reason.hasPrefix("code: the frame: ") == true)
    }

    @Test("depth, item and size limits hold, with the limit's own error code")
    func limits() throws {
        let deep = [UInt8](repeating: 0x81, count: 20) + [0x00]  // 20 nested one-element arrays
        do {
            _ = try CBORReader(maxDepth: 8, maxItems: 256, maxBytes: 4096).read(deep, what: "x", source: "s")
            Issue.record("20 levels were read past a limit of 8")
        } catch let error as ConfigurationError {
            #expect(error.code == .tooDeep)
        }
        let many: [UInt8] = [0x99, 0x01, 0x2C] + [UInt8](repeating: 0x00, count: 300)  // an array of 300 zeros
        do {
            _ = try CBORReader(maxDepth: 8, maxItems: 256, maxBytes: 4096).read(many, what: "x", source: "s")
            Issue.record("300 items were read past a limit of 256")
        } catch let error as ConfigurationError {
            #expect(error.code == .tooManyItems)
        }
        do {
            _ = try CBORReader(maxDepth: 8, maxItems: 256, maxBytes: 64).read(
                [UInt8](repeating: 0, count: 65), what: "x", source: "s")
            Issue.record("65 bytes were read past a limit of 64")
        } catch let error as ConfigurationError {
            #expect(error.code == .inputTooLarge)
        }
    }

    @Test("maps are written with keys sorted by their encoded bytes (RFC 8949 §4.2.1)")
    func deterministicMaps() {
        let map = CBOR.map([
            .init(.integer(-65537), .null), .init(.text("a"), .null), .init(.integer(10), .null),
            .init(.integer(1), .null),
        ])
        #expect(map.encoded == Vectors.bytes(hex: "a4" + "01f6" + "0af6" + "3a00010000f6" + "6161f6"))
    }
}

@Suite("Raw DEFLATE with a cap")
struct RawDeflateTests {
    @Test("compresses and expands back")
    func roundTrip() throws {
        let text = Array(String(repeating: "https://mobile.example.hana.ondemand.com/oauth2/api/v1/", count: 40).utf8)
        let packed = try RawDeflate.deflate(text)
        #expect(packed.count < text.count / 10)
        #expect(try RawDeflate.inflate(packed, limit: 32 << 10, what: "cfg", source: "s") == text)
    }

    @Test("a bomb stops at the cap; broken and trailing data are refused")
    func hostile() throws {
        let bomb = try RawDeflate.deflate([UInt8](repeating: 0, count: 10 << 20))
        #expect(bomb.count < 12_000)
        let error = #expect(throws: ConfigurationError.self) {
            try RawDeflate.inflate(bomb, limit: 32 << 10, what: "the code's configuration", source: "s")
        }
        #expect(error?.code == .inputTooLarge)
        #expect(error?.reason == "s: the code's configuration inflates to more than 32 KiB (the limit); refused")
        let good = try RawDeflate.deflate(Array("hello".utf8))
        #expect(throws: ConfigurationError.self) {
            try RawDeflate.inflate(good + [0], limit: 100, what: "x", source: "s")
        }
        #expect(throws: ConfigurationError.self) {
            try RawDeflate.inflate(Array(good.dropLast()), limit: 100, what: "x", source: "s")
        }
        #expect(throws: ConfigurationError.self) {
            try RawDeflate.inflate([0xFF, 0xFF], limit: 100, what: "x", source: "s")
        }
        #expect(throws: ConfigurationError.self) { try RawDeflate.inflate([], limit: 100, what: "x", source: "s") }
    }
}

@Suite("Compact configuration (inside AC1 codes)")
struct CompactConfigurationTests {
    static let documents = [
        "oauth-authorization-code.json", "android-basic.json", "apikey-and-unknown.json", "cross-context-sso.json",
        "legacy-flat-oauth2.json", "legacy-no-auth.json", "mdm-flattened.json", "saml-custom.json", "saml.json",
        "oauth-authorization-code.plist", "mdk-link.txt",
    ]

    @Test("every fixture document reads back as the same document", arguments: documents)
    func roundTrip(name: String) throws {
        let payload = try PayloadRecognizer().recognize(bytes: try Fixture.bytes("documents/\(name)"), source: name)
        let document = try #require(payload.document)
        let compact = try CompactConfiguration.encode(document, source: name)
        let reread = try CBORReader(maxDepth: 8, maxItems: 4096, maxBytes: 32 << 10).read(
            compact.encoded, what: "cfg", source: name)
        let value = try CompactConfiguration.decode(reread, source: name)
        #expect(try ConfigurationDocument(from: value, source: name) == document)
        // Smaller than the canonical JSON, before any compression.
        #expect(compact.encoded.count < document.canonicalJSON().utf8.count)
    }

    @Test("URLs on the server's origin are stored as paths; others stay absolute")
    func origins() throws {
        let document = ConfigurationDocument(
            host: "a.example.com", port: 8443,
            auth: [
                AuthItem(
                    method: .oauth2(
                        OAuth2Settings(
                            authorizationEndpoint: "https://a.example.com:8443/authorize",
                            tokenEndpoint: "https://a.example.com/token",
                            endUserUI: "https://a.example.com:8443",
                            clients: [OAuth2Client(clientID: "ABC", redirectURL: "com.example.app://cb")])))
            ])
        let item = try #require(try CompactConfiguration.encode(document, source: "s")[8]?.arrayValue?.first)
        #expect(item[2] == .text("/authorize"))
        #expect(item[3] == .text("https://a.example.com/token"))  // another port: another origin
        #expect(item[9] == .text(""))
        #expect(item[4] == .text("ABC"))
        #expect(item[5] == .text("com.example.app://cb"))
        let value = try CompactConfiguration.decode(try CompactConfiguration.encode(document, source: "s"), source: "s")
        #expect(try ConfigurationDocument(from: value, source: "s") == document)
    }

    @Test("a prefix of the host is not its origin")
    func lookalikeOrigin() throws {
        let document = ConfigurationDocument(
            host: "a.example.com",
            auth: [
                AuthItem(
                    method: .oauth2(
                        OAuth2Settings(
                            authorizationEndpoint: "https://a.example.com.evil.example/authorize",
                            tokenEndpoint: "https://a.example.com/token",
                            clients: [OAuth2Client(clientID: "c", redirectURL: "https://a.example.com")])))
            ])
        let compact = try CompactConfiguration.encode(document, source: "s")
        #expect(compact[8]?.arrayValue?.first?[2] == .text("https://a.example.com.evil.example/authorize"))
        #expect(
            try ConfigurationDocument(from: try CompactConfiguration.decode(compact, source: "s"), source: "s")
                == document)
    }

    @Test("unknown keys, wrong types and a newer format version are refused with the compact key path")
    func strict() throws {
        func decode(_ item: CBOR) -> ConfigurationError? {
            do {
                _ = try CompactConfiguration.decode(item, source: "code")
                return nil
            } catch {
                return error as? ConfigurationError
            }
        }
        let base: [CBOR.Entry] = [
            .init(.integer(1), .integer(1)), .init(.integer(2), .text("https")),
            .init(.integer(3), .text("a.example.com")),
        ]
        #expect(
            decode(.map(base + [.init(.integer(12), .null)]))?.reason == "code: compact configuration: unknown key 12")
        #expect(
            decode(.map([.init(.integer(1), .integer(2))] + base.dropFirst()))?.reason.contains("format version 2")
                == true)
        #expect(
            decode(.map(base + [.init(.integer(5), .integer(7))]))?.reason
                == "code: compact configuration: key 5 is an integer, not text")
        let item = CBOR.map([.init(.integer(1), .text("oauth2")), .init(.integer(14), .text("x"))])
        #expect(decode(.map(base + [.init(.integer(8), .array([item]))]))?.reason == "code: auth[0]: unknown key 14")
        let basic = CBOR.map([.init(.integer(1), .text("basic.default")), .init(.integer(2), .text("/x"))])
        #expect(
            decode(.map(base + [.init(.integer(8), .array([basic]))]))?.reason
                == #"code: auth[0]: key 2 belongs to oauth2 items, not "basic.default""#)
        let badUUID = CBOR.map([
            .init(.integer(1), .text("oauth2")), .init(.integer(4), .bytes([1, 2, 3])), .init(.integer(5), .text("")),
        ])
        #expect(
            decode(.map(base + [.init(.integer(8), .array([badUUID]))]))?.reason
                == "code: auth[0]: key 4 (client id) is 3 bytes, not a 16-byte UUID")
    }

    @Test("UUID client ids are 16 bytes only in their lower-case canonical spelling")
    func uuids() {
        #expect(UUIDBytes.bytes("3f2c9a1e-0000-4000-8000-000000000001")?.count == 16)
        #expect(
            UUIDBytes.text(UUIDBytes.bytes("3f2c9a1e-0000-4000-8000-000000000001") ?? [])
                == "3f2c9a1e-0000-4000-8000-000000000001")
        #expect(UUIDBytes.bytes("3F2C9A1E-0000-4000-8000-000000000001") == nil)
        #expect(UUIDBytes.bytes("3f2c9a1e00000-4000-8000-000000000001") == nil)
        #expect(UUIDBytes.bytes("3f2c9a1e-0000-4000-8000-00000000000g") == nil)
    }
}
