import ActivationConfiguration
import Foundation
import TestSupport
import Testing

/// The two property-list readers against Foundation (what it writes, they read back), the existing
/// fixtures, and hostile files that must be refused quickly with a named error.
@Suite("Property-list readers")
struct PropertyListReaderTests {
    // MARK: Differential against Foundation

    @Test(
        "random documents written by Foundation read back to the same values",
        arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func differential(format: PropertyListSerialization.PropertyListFormat) throws {
        var random = SplitMix64(seed: format == .xml ? 0x5EED_0001 : 0x5EED_0002)
        for index in 0..<300 {
            let (object, expected) = RandomDocument.make(&random, depth: 0, root: true)
            let bytes = Array(try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0))
            let value = try PropertyListReader.parse(
                bytes, source: "random-\(index).plist", limits: ConfigurationLimits(maxDocumentBytes: 1 << 20))
            #expect(value.sortedKeys == expected.sortedKeys, "document \(index)")
        }
    }

    @Test("dictionaries keep the order of an XML file")
    func documentOrder() throws {
        let xml =
            #"<plist version="1.0"><dict><key>b</key><true/><key>a</key><false/><key>c</key><dict/></dict></plist>"#
        let value = try PropertyListReader.parse(Array(xml.utf8), source: "x.plist")
        #expect(value.objectValue?.keys == ["b", "a", "c"])
    }

    // MARK: Fixtures

    static let fixtures: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixture.path("documents"))) ?? []
        return names.filter { $0.hasSuffix(".plist") || $0.hasSuffix(".bplist") }.sorted()
    }()

    @Test("every fixture reads as Foundation reads it", arguments: fixtures)
    func fixture(name: String) throws {
        let bytes = try Fixture.bytes("documents/\(name)")
        let foundation = try FoundationPropertyList.value(
            PropertyListSerialization.propertyList(from: Data(bytes), format: nil))
        #expect(try PropertyListReader.parse(bytes, source: name).sortedKeys == foundation)
    }

    @Test("every truncation of a fixture is refused with a ConfigurationError", arguments: fixtures)
    func truncated(name: String) throws {
        let bytes = try Fixture.bytes("documents/\(name)")
        let whole = try PropertyListReader.parse(bytes, source: name)
        let end =
            name.hasSuffix(".bplist") ? bytes.count : try #require(Self.range(of: "</plist>", in: bytes)).upperBound
        for length in 0..<bytes.count {
            do {
                let value = try PropertyListReader.parse(Array(bytes.prefix(length)), source: name)
                // Only the white space after </plist> may go.
                #expect(length >= end && value == whole, "\(name) cut to \(length) bytes was accepted")
            } catch is ConfigurationError {
            } catch {
                Issue.record("\(name) cut to \(length) bytes: \(error)")
            }
        }
    }

    @Test("random byte mutations of the fixtures never crash or hang")
    func mutations() throws {
        let inputs = try Self.fixtures.map { try Fixture.bytes("documents/\($0)") }
        var random = SplitMix64(seed: 0xBAD_B17E5)
        let start = ThreadCPUTime.now()
        var refused = 0
        for round in 0..<4000 {
            var bytes = inputs[round % inputs.count]
            for _ in 0...Int.random(in: 0..<4, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
                case 1: bytes.remove(at: position)
                case 2: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                // Interesting bytes: markup, markers, and the top of a count or offset.
                default:
                    bytes[position] =
                        [0x00, 0x0F, 0x1F, 0xFF, 0x3C, 0x3E, 0x26, 0x2F, 0xAF, 0xDF, 0x7F, 0x80].randomElement(
                            using: &random) ?? 0
                }
            }
            do {
                _ = try PropertyListReader.parse(bytes, source: "mutated.plist")
            } catch is ConfigurationError {
                refused += 1
            } catch {
                Issue.record("round \(round): \(error)")
            }
        }
        #expect(refused > 2000)
        #expect(ThreadCPUTime.now() - start < .seconds(20))
    }

    // MARK: Hostile XML

    static func xml(_ body: String) -> [UInt8] {
        Array(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">\#(body)</plist>"#.utf8)
    }

    @Test("a duplicate key in XML is refused, naming its key path")
    func xmlDuplicateKey() throws {
        let body =
            "<dict><key>auth</key><array><dict><key>config</key><dict>"
            + "<key>oauth2.tokenEndpoint</key><string>a</string><key>oauth2.tokenEndpoint</key><string>b</string>"
            + "</dict></dict></array></dict>"
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Self.xml(body), source: "file.plist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(
            error?.reason.hasPrefix(
                #"file.plist: auth[0].config: the key "oauth2.tokenEndpoint" appears twice (line 1, column "#) == true,
            "\(error?.reason ?? "")")
    }

    @Test("10,000 nested XML arrays are too deep, quickly")
    func xmlDeep() throws {
        let body = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        let start = ThreadCPUTime.now()
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Self.xml(body), source: "deep.plist")
        }
        #expect(error?.code == .tooDeep)
        #expect(error?.reason == "deep.plist: nesting deeper than 32 levels")
        #expect(ThreadCPUTime.now() - start < .seconds(1))
        // 32 levels are fine.
        let fine = String(repeating: "<array>", count: 32) + String(repeating: "</array>", count: 32)
        #expect(throws: Never.self) { try PropertyListReader.parse(Self.xml(fine), source: "deep.plist") }
    }

    @Test(
        "entity declarations and internal subsets are refused",
        arguments: [
            #"""
            <!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><plist \#
            version="1.0"><string>&b;</string></plist>
            """#,
            #"""
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd" \#
            [<!ENTITY a "x">]><plist version="1.0"><string>&a;</string></plist>
            """#,
            #"<!ENTITY a "x"><plist version="1.0"><string>&a;</string></plist>"#,
            #"<plist version="1.0"><string>&a;</string></plist>"#,
        ])
    func entities(input: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Array(input.utf8), source: "e.plist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(error?.reason.contains("entit") == true, "\(error?.reason ?? "")")
    }

    @Test(
        "malformed XML gets a named error with line and column",
        arguments: [
            (
                "<plist version=\"1.0\">\n<dict>\n  <key>a</key>\n  <string>x</strin>\n</dict></plist>",
                "x.plist: invalid property list at line 4, column 12: expected </string>, found </strin>"
            ),
            ("<plist><dict><key>a</key><strong>x</strong></dict></plist>", "unknown element <strong>"),
            ("<plist><dict><key>a</key></dict></plist>", #"the key "a" has no value"#),
            ("<plist><dict><string>x</string></dict></plist>", "expected <key> before a value in <dict>"),
            ("<plist><array>hello</array></plist>", #"text outside a value, found "hello</array></plist>""#),
            ("<plist><string a=\"1\">x</string></plist>", "<string> takes no attribute a"),
            ("<plist><true/><true/></plist>", "<plist> holds more than one value"),
            ("<plist></plist>", "<plist> holds no value"),
            ("<plist><true/></plist><plist><true/></plist>", #"nothing may follow </plist>, found "<plist>"#),
            ("<plist><dict>", "x.plist: invalid property list at line 1, column 14: the document ends inside <dict>"),
            ("<plist><string>abc", "the document ends inside <string>"),
            (
                "<plist><integer>99999999999999999999</integer></plist>",
                "the integer 99999999999999999999 is out of range"
            ),
            ("<plist><integer>0x10</integer></plist>", #"<integer> holds "0x10", not a decimal integer"#),
            ("<plist><real>nan</real></plist>", #"<real> holds "nan", not a finite decimal number"#),
            ("<plist><real>1e999</real></plist>", #"<real> holds "1e999""#),
            ("<plist><date>2024-02-30T00:00:00Z</date></plist>", #"<date> holds "2024-02-30T00:00:00Z""#),
            ("<plist><data>AAA</data></plist>", "<data> does not hold valid base64"),
            ("<plist><string>&#xD800;</string></plist>", "&#xD800; is not a valid character reference"),
            ("<plist><string>&#0;</string></plist>", "&#0; is not a valid character reference"),
            ("<plist><string>a & b</string></plist>", "'&' starts no entity or character reference"),
            ("<plist><string>a<b/></string></plist>", #"<string> holds text only, found "<b/></string></plist>""#),
            ("<plist><!-- a -- b --><true/></plist>", "'--' inside a comment"),
            ("<plist><true/></plist><?pi x?>", "processing instructions are not allowed"),
            (
                "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><true/></plist>",
                "the encoding UTF-16 is not supported"
            ),
            ("<dict></dict>", "expected <plist>, found <dict>"),
            ("<plist><key>a</key></plist>", "<key> outside a <dict>"),
        ])
    func malformedXML(input: String, reason: String) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Array(input.utf8), source: "x.plist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(error?.reason.hasPrefix("x.plist: invalid property list at line ") == true)
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "") does not contain \(reason)")
    }

    @Test("XML features: BOM, DOCTYPE, comments, CDATA, references, empty forms, dates, data")
    func xmlFeatures() throws {
        let text =
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n<!-- before -->\n"
                + """
                <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST \
                1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n
                """
            + "<plist version=\"1.0\"><dict>\n"
                + """
                <key>s</key><string>a&lt;b&gt;&amp;&quot;&apos;&#65;&#x1F600;<![CDATA[<not markup>&amp;]]><!-- gone \
                -->!</string>\n
                """
            + "<key>e</key><string/><key>d</key><dict/><key>a</key><array/><key>a2</key><array></array>\n"
            + "<key>i</key><integer> -9223372036854775808 </integer><key>r</key><real>-1.5e3</real>\n"
            + "<key>t</key><true/><key>f</key><false></false>\n"
            + "<key>date</key><date>2024-01-31T12:34:56Z</date>\n"
            + "<key>data</key><data>\n\tAAEC\n\t/w==\n</data>\n"
            + "</dict></plist>\n<!-- after -->\n"
        let value = try PropertyListReader.parse(Array(text.utf8), source: "x.plist")
        let expected: ConfigurationValue = .object([
            "s": .string("a<b>&\"'A😀<not markup>&amp;!"), "e": .string(""), "d": .object([:]), "a": .array([]),
            "a2": .array([]),
            "i": .integer(Int.min), "r": .number(-1500), "t": .bool(true), "f": .bool(false),
            "date": .string("2024-01-31T12:34:56Z"), "data": .data([0, 1, 2, 0xFF]),
        ])
        #expect(value == expected)
    }

    @Test("control and bidi characters of the input are escaped in an error, and it is cut at 40 characters")
    func escapedErrors() throws {
        let hostile =
            "<plist><array>\u{1B}[2J\u{202E}evil\u{7}" + String(repeating: "x", count: 100) + "</array></plist>"
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Array(hostile.utf8), source: "x.plist")
        }
        let reason = try #require(error?.reason)
        #expect(reason.contains(#"found "\u{1B}[2J\u{202E}evil\u{7}xxx"#), "\(reason)")
        #expect(reason.hasSuffix("x…\""))
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })

        let key = "k\u{1B}]0;title\u{7}"
        let duplicate = BPlist.file([BPlist.dict([1, 1], [2, 2]), BPlist.ascii(key), [0x09]])
        let binaryError = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(duplicate, source: "x.bplist")
        }
        #expect(binaryError?.reason == #"x.bplist: the key "k\u{1B}]0;title\u{7}" appears twice (object 0)"#)
    }

    @Test("the value count of an XML document is capped")
    func xmlValueCount() throws {
        let body = "<array>" + String(repeating: "<true/>", count: 11) + "</array>"
        let limits = ConfigurationLimits(maxValues: 10)
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(Self.xml(body), source: "x.plist", limits: limits)
        }
        #expect(error?.code == .tooManyItems)
        #expect(error?.reason == "x.plist: more than 10 values (the limit for a configuration document)")
        #expect(throws: Never.self) {
            try PropertyListReader.parse(Self.xml(body), source: "x.plist", limits: ConfigurationLimits(maxValues: 12))
        }
    }

    // MARK: Hostile binary

    @Test("a duplicate key in a binary list is refused, naming its key path")
    func binaryDuplicateKey() throws {
        // {auth: [{config: {oauth2.tokenEndpoint: true, oauth2.tokenEndpoint: true}}]}
        let file = BPlist.file([
            BPlist.dict([1], [2]), BPlist.ascii("auth"), BPlist.array([3]), BPlist.dict([4], [5]),
            BPlist.ascii("config"),
            BPlist.dict([6, 7], [8, 8]), BPlist.ascii("oauth2.tokenEndpoint"), BPlist.ascii("oauth2.tokenEndpoint"),
            [0x09],
        ])
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(file, source: "file.bplist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(
            error?.reason == #"file.bplist: auth[0].config: the key "oauth2.tokenEndpoint" appears twice (object 5)"#)
    }

    @Test("a shared-reference bplist that expands exponentially is refused in well under a second")
    func exponential() throws {
        // Object 0 is true, object n the array [n-1, n-1]: 30 objects, 2^30 values once expanded.
        let file = BPlist.file([[0x09]] + (1..<30).map { BPlist.array([$0 - 1, $0 - 1]) }, top: 29)
        #expect(file.count < 160)
        let start = ThreadCPUTime.now()
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(file, source: "laughs.bplist")
        }
        let elapsed = ThreadCPUTime.now() - start
        #expect(error?.code == .tooManyItems)
        #expect(error?.reason == "laughs.bplist: more than 100000 values (the limit for a configuration document)")
        #expect(elapsed < .seconds(1), "\(elapsed)")
    }

    @Test("a shared string cannot expand beyond the document limit")
    func sharedString() throws {
        let file = BPlist.file([
            BPlist.array(Array(repeating: 1, count: 1000)), BPlist.ascii(String(repeating: "x", count: 1000)),
        ])
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(file, source: "wide.bplist")
        }
        #expect(error?.code == .inputTooLarge)
        #expect(
            error?.reason
                == """
                wide.bplist: its strings and data add up to more than 256 KiB, the limit for a configuration document
                """
        )
    }

    @Test(
        "reference cycles are named",
        arguments: [
            [BPlist.array([0])],
            [BPlist.array([1]), BPlist.dict([2], [0]), BPlist.ascii("k")],
        ])
    func cycle(objects: [[UInt8]]) throws {
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(BPlist.file(objects, top: 0), source: "c.bplist")
        }
        #expect(error?.code == .invalidPropertyList)
        #expect(
            error?.reason.hasPrefix("c.bplist: invalid binary property list: object 0 contains itself") == true,
            "\(error?.reason ?? "")")
    }

    @Test("a deep binary chain is too deep")
    func binaryDeep() throws {
        // Object n is [n+1]; the last is empty. 2000 objects need 2-byte references.
        let objects = (0..<1999).map { BPlist.array([$0 + 1], referenceSize: 2) } + [BPlist.array([])]
        let error = #expect(throws: ConfigurationError.self) {
            try PropertyListReader.parse(BPlist.file(objects, top: 0, referenceSize: 2), source: "d.bplist")
        }
        #expect(error?.code == .tooDeep)
        #expect(error?.reason == "d.bplist: nesting deeper than 32 levels")
    }

    static let valid = BPlist.file([BPlist.array([1, 2]), BPlist.ascii("a"), [0x09]])

    /// `valid` with its trailer changed.
    static func patched(_ change: (inout [UInt8], Int) -> Void) -> [UInt8] {
        var bytes = valid
        change(&bytes, bytes.count - 32)
        return bytes
    }

    @Test(
        "broken binary structure gets a named error",
        arguments: [
            (
                patched { $0.replaceSubrange($1 + 24..<$1 + 32, with: BPlist.bigEndian(1 << 40, 8)) },
                "the offset table (at byte 1099511627776"
            ),
            (
                patched { $0.replaceSubrange($1 + 24..<$1 + 32, with: BPlist.bigEndian($0.count - 33, 8)) },
                "lies outside the file"
            ),
            (
                patched { $0.replaceSubrange($1 + 8..<$1 + 16, with: BPlist.bigEndian(1 << 62, 8)) },
                "the trailer's object count 4611686018427387904 does not fit"
            ),
            (
                patched { $0.replaceSubrange($1 + 16..<$1 + 24, with: BPlist.bigEndian(3, 8)) },
                "the top object 3 is not one of the 3 objects"
            ),
            (patched { $0[$1 + 6] = 3 }, "the trailer gives 3 bytes as the offset size"),
            (patched { $0[$1 + 7] = 0 }, "the trailer gives 0 bytes as the object reference size"),
            (patched { bytes, _ in bytes[bytes.count - 33] = 0xF0 }, "object 2 lies at byte 240, outside the objects"),
            (patched { bytes, _ in bytes[9] = 7 }, "object 0 refers to object 7, but there are 3"),
            (patched { bytes, _ in bytes[7] = 0x31 }, #"the version "bplist01" is not bplist00"#),
            (
                BPlist.file([[0x14] + BPlist.bigEndian(1, 8) + BPlist.bigEndian(0, 8)]),
                "the 128-bit integer does not fit in 64 bits"
            ),
            (BPlist.file([[0x23] + BPlist.bigEndian(Int(Double.infinity.bitPattern), 8)]), "a real that is not finite"),
            (BPlist.file([[0x33] + BPlist.bigEndian(Int((1e13).bitPattern), 8)]), "a date outside years 1 to 9999"),
            (BPlist.file([BPlist.utf16([0x41, 0xD800])]), "a UTF-16 string with a lone surrogate"),
            (BPlist.file([BPlist.utf16([0xDC00, 0x41])]), "a UTF-16 string with a lone surrogate"),
            (BPlist.file([[0x52, 0x41, 0xC3]]), "an ASCII string with a byte above 0x7F"),
            (BPlist.file([[0x80, 0x01]]), "a UID"),
            (BPlist.file([[0xC1, 0x01], [0x09]]), "a set"),
            (
                BPlist.file([[0x5F, 0x13] + BPlist.bigEndian(Int.max, 8)]),
                "a count of 9223372036854775807, more than the file holds"
            ),
            (BPlist.file([[0x5F, 0x10, 0x05, 0x41]]), "its 5 bytes run past the objects"),
            (BPlist.file([BPlist.dict([1], [1]), [0x09]]), "a key of object 0 is object 1, which is not a string"),
            (BPlist.file([[0x0F]]), "the marker 0x0F is not a value"),
            (Array("bplist00".utf8) + [0x09], "9 bytes are too short"),
        ])
    func brokenBinary(bytes: [UInt8], reason: String) throws {
        let error = #expect(throws: ConfigurationError.self) { try PropertyListReader.parse(bytes, source: "b.bplist") }
        #expect(error?.code == .invalidPropertyList)
        #expect(error?.reason.hasPrefix("b.bplist: invalid binary property list: ") == true)
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "") does not contain \(reason)")
    }

    @Test("binary scalars: 16-byte integers that fit, floats, dates, UTF-16, extended counts")
    func binaryScalars() throws {
        let long = String(repeating: "y", count: 20)
        let file = BPlist.file([
            BPlist.array([1, 2, 3, 4, 5, 6, 7, 8]),
            [0x14] + BPlist.bigEndian(-1, 8) + BPlist.bigEndian(-5, 8),
            [0x14] + BPlist.bigEndian(0, 8) + BPlist.bigEndian(7, 8),
            [0x22] + BPlist.bigEndian(Int(Float(0.5).bitPattern), 4),
            [0x33] + BPlist.bigEndian(Int(Double(725_760_000.9).bitPattern), 8),
            BPlist.utf16([0xD83D, 0xDE00, 0x4E2D]),
            BPlist.ascii(long),
            [0x00],
            [0x12] + BPlist.bigEndian(0xFFFF_FFFF, 4),
        ])
        let value = try PropertyListReader.parse(file, source: "s.bplist")
        #expect(
            value
                == .array([
                    .integer(-5), .integer(7), .number(0.5), .string("2024-01-01T00:00:00Z"), .string("😀中"),
                    .string(long), .null, .integer(0xFFFF_FFFF),
                ]))
    }

    // MARK: JSON

    @Test("a JSON document with too many values is refused")
    func jsonValueCount() throws {
        let text = "[" + String(repeating: "0,", count: 150_000) + "0]"
        let error = #expect(throws: ConfigurationError.self) {
            try JSONReader(maxBytes: 1 << 20).parse(Array(text.utf8), source: "config.json")
        }
        #expect(error?.code == .tooManyItems)
        #expect(error?.reason == "config.json: more than 100000 values (the limit for a configuration document)")
        #expect(throws: Never.self) {
            try JSONReader(maxBytes: 1 << 20, maxValues: 150_002).parse(Array(text.utf8), source: "config.json")
        }
    }

    static func range(of text: String, in bytes: [UInt8]) -> Range<Int>? {
        let pattern = Array(text.utf8)
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where Array(bytes[start..<start + pattern.count]) == pattern {
            return start..<start + pattern.count
        }
        return nil
    }
}

// MARK: - Helpers

/// Hand-built binary property lists: objects as bytes, references by index.
enum BPlist {
    static func bigEndian(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func file(_ objects: [[UInt8]], top: Int = 0, referenceSize: Int = 1) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let offsetSize = bytes.count < 1 << 8 ? 1 : bytes.count < 1 << 16 ? 2 : 4
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(offset, offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        return bytes + bigEndian(objects.count, 8) + bigEndian(top, 8) + bigEndian(table, 8)
    }

    static func header(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF, 0x13] + bigEndian(count, 8)
    }

    static func ascii(_ text: String) -> [UInt8] { header(0x5, text.utf8.count) + Array(text.utf8) }
    static func utf16(_ units: [UInt16]) -> [UInt8] {
        header(0x6, units.count) + units.flatMap { bigEndian(Int($0), 2) }
    }

    static func array(_ references: [Int], referenceSize: Int = 1) -> [UInt8] {
        header(0xA, references.count) + references.flatMap { bigEndian($0, referenceSize) }
    }

    static func dict(_ keys: [Int], _ values: [Int], referenceSize: Int = 1) -> [UInt8] {
        header(0xD, keys.count) + (keys + values).flatMap { bigEndian($0, referenceSize) }
    }
}
/// Random nested documents as Foundation objects, with the value the readers must give.
enum RandomDocument {
    static let pieces = [
        "a", "Z", "0", " ", "<", ">", "&", "\"", "'", "]]>", "&amp;", "é", "ß", "中文", "😀", "👍🏽", "\t", "\n", "\u{85}",
        "\u{202E}",
        "ﬁ", "\u{7F}", "key", "Ω",
    ]
    static let integers = [
        0, 1, -1, 14, 15, 16, 127, 128, 255, 256, 65535, 65536, Int(Int32.max), Int(Int32.max) + 1, Int(Int32.min),
        Int(UInt32.max), Int(UInt32.max) + 1, Int(Int64.max), Int(Int64.min), -129,
    ]

    static func string(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }

    static func make(_ random: inout SplitMix64, depth: Int, root: Bool = false) -> (Any, ConfigurationValue) {
        let kind =
            root ? Int.random(in: 7...8, using: &random) : Int.random(in: 0..<(depth < 4 ? 9 : 7), using: &random)
        switch kind {
        case 0:
            let text = string(&random)
            return (text, .string(text))
        case 1:
            let value: Int =
                Bool.random(using: &random)
                ? integers.randomElement(using: &random) ?? 0 : Int.random(in: Int.min...Int.max, using: &random)
            return (value, .integer(value))
        case 2:
            let special: [Double] = [
                0.5, -0.25, 0.1, 1e300, -1e-300, .leastNonzeroMagnitude, 3.0, .greatestFiniteMagnitude,
            ]
            let value: Double = special.randomElement(using: &random) ?? 0
            let scaled: Double = Bool.random(using: &random) ? value : Double.random(in: -1e6...1e6, using: &random)
            return (scaled, .number(scaled))
        case 3:
            let flag = Bool.random(using: &random)
            return (flag, .bool(flag))
        case 4:
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            return (Data(bytes), .data(bytes))
        case 5:
            let date = Date(
                timeIntervalSinceReferenceDate: Double(Int.random(in: -3_000_000_000...3_000_000_000, using: &random)))
            return (date, .string(ISO8601DateFormatter().string(from: date)))
        case 6:
            return ("", .string(""))
        case 7:
            var items: [Any] = []
            var values: [ConfigurationValue] = []
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let (item, value) = make(&random, depth: depth + 1)
                items.append(item)
                values.append(value)
            }
            return (items, .array(values))
        default:
            var dictionary: [String: Any] = [:]
            var values: [String: ConfigurationValue] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let key = string(&random)
                let (item, value) = make(&random, depth: depth + 1)
                dictionary[key] = item
                values[key] = value
            }
            return (
                dictionary, ConfigurationValue.object(ConfigurationObject(values.map { ($0.key, $0.value) })).sortedKeys
            )
        }
    }
}

/// What Foundation's `PropertyListSerialization` gives, as the reader before this one converted it.
enum FoundationPropertyList {
    static func value(_ value: Any) throws -> ConfigurationValue {
        switch value {
        case let flag as Bool where type(of: value) == Bool.self: return .bool(flag)
        case let text as String: return .string(text)
        case let data as Data: return .data(Array(data))
        case let date as Date: return .string(ISO8601DateFormatter().string(from: date))
        case let items as [Any]: return .array(try items.map(Self.value))
        case let dictionary as [String: Any]:
            return .object(
                ConfigurationObject(
                    try dictionary.sorted { $0.key < $1.key }.map { ($0.key, try Self.value($0.value)) }))
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? .number(number.doubleValue) : .integer(number.intValue)
        default:
            throw ConfigurationError(.invalidPropertyList, "unsupported \(type(of: value))")
        }
    }
}

extension ConfigurationValue {
    /// The value with every object's keys sorted, to compare with Foundation, whose dictionaries
    /// have no order.
    var sortedKeys: ConfigurationValue {
        switch self {
        case .array(let items): .array(items.map(\.sortedKeys))
        case .object(let object):
            .object(
                ConfigurationObject(object.entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value.sortedKeys) }))
        default: self
        }
    }
}
