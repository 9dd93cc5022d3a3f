import ActivationImaging
import Foundation
import TestSupport
import Testing

/// Generated codes come back byte-exact through `activate scan` and through a second, independent
/// reader (ZXingReader from zxing-cpp), so the codes work in apps that do not use zbar.
@Suite("Round trip: generate, then scan with activate and ZXingReader")
struct RoundTripTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var payload: [UInt8]
        var level: ErrorCorrection
        var scale: Int
        var testDescription: String { "\(name) (\(payload.count) bytes, EC \(level.rawValue), scale \(scale))" }
    }

    /// 216 payloads: ASCII, alphanumeric and numeric text, multilingual UTF-8 (CJK, emoji),
    /// ~2 KB JSON configurations, and arbitrary bytes including NUL, across every EC level and
    /// scales 2–8. Deterministic: the same cases every run.
    static let cases: [Case] = {
        var random = SplitMix64(seed: 0xAC71_7A7E)
        let levels = ErrorCorrection.allCases
        let scales = [2, 3, 4, 6, 8]
        var result: [Case] = []
        func add(_ name: String, _ payload: [UInt8]) {
            let index = result.count
            var level = levels[index % levels.count]
            // Keep each payload within what its level can hold.
            while payload.count > QREncodingMode.densest(for: payload).capacity(at: level) {
                level = levels[levels.firstIndex(of: level)! - 1]
            }
            result.append(Case(name: name, payload: payload, level: level, scale: scales[(index / 4) % scales.count]))
        }
        let words = [
            "mobile", "server", "onboarding", "oauth2", "token", "client", "https://", "?id=", "&x=1", " ", "/", "#",
        ]
        for index in 0..<50 {
            let text = (0..<(1 + index * 3)).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined()
            add("ascii-\(index)", Array(text.utf8))
        }
        for index in 0..<20 {
            let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
            let text = String((0..<(5 + index * 40)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            add("alphanumeric-\(index)", Array(text.utf8))
        }
        for index in 0..<10 {
            add(
                "numeric-\(index)",
                Array(String((0..<(1 + index * 97)).map { _ in Character(String(random.next() % 10)) }).utf8))
        }
        let multilingual = [
            "Zürich", "日本語のテキスト", "中文配置", "한국어", "Ελληνικά", "Привет", "עברית", "العربية",
            "🎉🚀✅", "👩‍💻 ok", "café ☕", "ß∂ƒ©", "漢字かなカナ", "🇩🇪🇯🇵",
        ]
        for index in 0..<50 {
            let text = (0...index % 9).map { _ in multilingual[Int(random.next() % UInt64(multilingual.count))] }
                .joined(separator: " ")
            add("utf8-\(index)", Array(text.utf8))
        }
        for index in 0..<16 {
            add("json-\(index)", Self.configuration(targetBytes: index < 8 ? 2048 : 600 + index * 40, seed: index))
        }
        for index in 0..<70 {
            let count = 1 + Int(random.next() % 900)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if index % 5 == 0 { bytes[0] = 0 }  // NUL is payload too
            add("bytes-\(index)", bytes)
        }
        return result
    }()

    /// A configuration document of about `targetBytes` bytes (compact JSON).
    static func configuration(targetBytes: Int, seed: Int) -> [UInt8] {
        var json =
            #"""
            {"host":"mobile-\#(seed).example.hana.ondemand.com","port":443,"protocol":"https","appID":\#
            "com.example.app\#(seed)","auth":[{"type":"oauth2","config":{"oauth2.clients":[
            """#
        var client = 0
        while json.utf8.count < targetBytes - 200 {
            if client > 0 { json += "," }
            json +=
                #"""
                {"clientID":"3f2c9a1e-0000-4000-8000-\#(String(format: "%012d", client))","redirectURL":"https://\#
                mobile.example.com/cb","grantType":"authorization_code"}
                """#
            client += 1
        }
        // A complete document, so that `scan` accepts it (a refused configuration makes it exit 2).
        json +=
            #"""
            ],"oauth2.authorizationEndpoint":"https://mobile.example.com/oauth2/api/v1/authorize",\#
            "oauth2.tokenEndpoint":"https://mobile.example.com/oauth2/api/v1/token"}}]}
            """#
        return Array(json.utf8)
    }

    @Test("200+ generated payloads come back byte-exact through activate scan and ZXingReader")
    func roundTrip() async throws {
        #expect(Self.cases.count >= 200)
        #expect(Set(Self.cases.map(\.level)) == Set(ErrorCorrection.allCases))
        #expect(Self.cases.contains { $0.payload.count >= 2000 && $0.name.hasPrefix("json") })

        let directory = try TemporaryFolder(prefix: "activate-cli")
        var files: [String] = []
        for (index, testCase) in Self.cases.enumerated() {
            let path = directory.file(String(format: "%03d.png", index))
            if index % 10 == 0 {
                // Every tenth through the CLI, payload on stdin: the whole user path.
                let result = try await ActivateCLI.run(
                    ["generate", "--output", path, "--ec", testCase.level.rawValue, "--scale", "\(testCase.scale)"],
                    stdin: testCase.payload)
                #expect(result.status == 0, "\(testCase.testDescription): \(result.stderr)")
            } else {
                let generator = QRCodeGenerator(
                    encoder: QRCodeEncoder(errorCorrection: testCase.level), scale: testCase.scale)
                try Data(try generator.generate(testCase.payload, as: .png).data).write(to: URL(fileURLWithPath: path))
            }
            files.append(path)
        }

        // One activate process scans them all.
        let scan = try await ActivateCLI.run(["scan", "--json"] + files)
        #expect(scan.status == 0, "\(scan.stderr)")
        let reports = try JSONDecoder().decode([ScanReport].self, from: Data(scan.stdout))
        #expect(reports.count == files.count)
        for (testCase, report) in zip(Self.cases, reports) {
            #expect(report.symbols.count == 1, "\(testCase.testDescription)")
            #expect(
                report.symbols.first.flatMap { Data(base64Encoded: $0.bytes) }.map(Array.init) == testCase.payload,
                "\(testCase.testDescription)")
        }

        // ZXingReader reads each PNG to the same bytes.
        let zxing = try #require(Tool.which("ZXingReader"), "ZXingReader is needed (apt-get install zxing-cpp-tools)")
        for (testCase, file) in zip(Self.cases, files) {
            let result = try await Tool.run(zxing, ["-bytes", file])
            #expect(result.stdout == testCase.payload, "ZXingReader: \(testCase.testDescription)")
        }
    }
}
