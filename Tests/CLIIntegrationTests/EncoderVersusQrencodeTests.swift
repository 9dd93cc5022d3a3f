import ActivationImaging
import Testing

/// Mixed-mode segmentation against qrencode, the encoder administrators know.
@Suite("QR encoding against qrencode")
struct EncoderVersusQrencodeTests {
    @Test("never a larger version than qrencode picks for the same text", arguments: ErrorCorrection.allCases)
    func versusQrencode(level: ErrorCorrection) async throws {
        let qrencode = try #require(Tool.which("qrencode"), "qrencode is installed by scripts/setup.sh --test")
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "https://mobile.example.hana.ondemand.com/", "3f2c9a1e-0000-4000-8000-000000000001", "0123456789012345",
            "ABCDEFGH:/", "{\"appID\":\"com.example\"}", "Zürich ", "port=443&", "AC1:6BFOXN*TS0BI$ZD.P9", " ",
        ]
        var texts = (0..<60).map { _ in
            (0..<Int.random(in: 1...25, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined()
        }
        texts.append(String(repeating: "1234567890", count: 40) + "abc")
        texts.append("a" + String(repeating: "A1B2C3", count: 60))
        var worse: [String] = []
        for text in texts {
            let ours = try QRCodeEncoder(errorCorrection: level).encode(Array(text.utf8)).version
            let theirs = try await Tool.run(
                qrencode, ["-l", level.rawValue, "-t", "ASCII", "-m", "0", "-o", "-", text])
            let side = (theirs.text.split(separator: "\n").first?.count ?? 0) / 2
            #expect(side >= 21, "qrencode: \(theirs.stderr)")
            if ours > (side - 17) / 4 { worse.append("\(text.prefix(60))…: \(ours) > \((side - 17) / 4)") }
        }
        #expect(worse.isEmpty, "\(worse)")
    }
}
