import Testing

@testable import ActivationImaging

@Suite("QR encoding and rendering")
struct EncoderTests {
    @Test(
        "the densest exact mode is chosen",
        arguments: [
            ("0123456789", QREncodingMode.numeric),
            ("AC1:6BFOXN*TS0BI$ZD.P9", .alphanumeric),
            ("HTTPS://EXAMPLE.COM/A", .alphanumeric),
            ("https://example.com/a", .byte),
            ("", .byte),
        ])
    func mode(payload: String, mode: QREncodingMode) {
        #expect(QREncodingMode.densest(for: Array(payload.utf8)) == mode)
    }

    @Test("error-correction levels and minimum version are honoured")
    func levels() throws {
        for level in ErrorCorrection.allCases {
            let matrix = try QRCodeEncoder(errorCorrection: level).encode(Array("hello".utf8))
            #expect(matrix.errorCorrection == level)
            #expect(matrix.version == 1 && matrix.size == 21)
        }
        let large = try QRCodeEncoder(minimumVersion: 10).encode(Array("hello".utf8))
        #expect(large.version == 10 && large.size == 57)
    }

    @Test("a payload too large names its size and the most that fits")
    func tooLarge() throws {
        let payload = [UInt8](repeating: 0x61, count: 2332)
        let error = #expect(throws: ImagingError.self) { try QRCodeEncoder(errorCorrection: .medium).encode(payload) }
        #expect(error?.code == .payloadTooLarge)
        #expect(
            error?.reason
                == """
                payload: 2332 bytes do not fit in a QR code; at error-correction level M the largest byte payload is \
                2331 (level L holds 2953)
                """
        )
        // The largest payload the message promises really fits.
        #expect(try QRCodeEncoder(errorCorrection: .medium).encode(Array(payload.dropLast())).version == 40)
    }

    @Test("mixed payloads are split into the segments that take the fewest bits")
    func segments() throws {
        let json = try QRCodeEncoder().encode(
            Array(#"{"clientID":"3f2c9a1e-0000-4000-8000-000000000001","port":443}"#.utf8))
        #expect(json.mode == .mixed)
        #expect(try QRCodeEncoder().encode(Array("AC1:6BFOXN*TS0BI".utf8)).mode == .alphanumeric)
        #expect(try QRCodeEncoder().encode(Array("hello".utf8)).mode == .byte)
        // A short digit run inside text is not worth its own segment header.
        #expect(try QRCodeEncoder().encode(Array("abc12def".utf8)).mode == .byte)
    }

    @Test("the capacity table matches libqrencode at version 40", arguments: ErrorCorrection.allCases)
    func capacity(level: ErrorCorrection) throws {
        for (mode, unit) in [
            (QREncodingMode.numeric, UInt8(ascii: "7")), (.alphanumeric, UInt8(ascii: "A")), (.byte, UInt8(ascii: "a")),
        ] {
            let limit = mode.capacity(at: level)
            #expect(
                try QRCodeEncoder(errorCorrection: level).encode([UInt8](repeating: unit, count: limit)).version == 40)
            #expect(throws: ImagingError.self) {
                try QRCodeEncoder(errorCorrection: level).encode([UInt8](repeating: unit, count: limit + 1))
            }
        }
    }

    @Test("renderings: PNG reads back, SVG and text have the right geometry")
    func renderings() throws {
        let matrix = try QRCodeEncoder().encode(Array("render me".utf8))
        let png = try matrix.png(scale: 3, margin: 2)
        let image = try ImageDecoder().decode(png, name: "png")
        #expect(image.width == (21 + 4) * 3)
        #expect(BarcodeScanner().scan(image).map(\.text) == ["render me"])

        let svg = try matrix.svg(scale: 5, margin: 4)
        #expect(svg.contains(#"width="145" height="145" viewBox="0 0 29 29""#))
        let text = try matrix.text(margin: 1)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 23 && lines.allSatisfy { $0.count == 46 })
        #expect(lines[1].hasPrefix("  ##############"))  // margin, then the 7-module finder pattern
        let terminal = try matrix.terminal(margin: 4)
        #expect(terminal.split(separator: "\n").count == 15)  // 29 rows, two per line
    }

    @Test("renderers refuse a scale below 2 and absurd margins")
    func renderOptions() throws {
        let matrix = try QRCodeEncoder().encode(Array("x".utf8))
        #expect(throws: ImagingError.self) { try matrix.png(scale: 1, margin: 4) }
        #expect(throws: ImagingError.self) { try matrix.svg(scale: 4, margin: -1) }
    }

    @Test("the generator verifies its own output", arguments: QRRenderFormat.allCases)
    func generator(format: QRRenderFormat) throws {
        let code = try QRCodeGenerator().generate(Array("verified".utf8), as: format)
        #expect(code.format == format && !code.data.isEmpty)
    }

    @Test(
        "reading a code back: the packed 1-bit read, shrunk, equals libpng's full decode, shrunk",
        arguments: [2, 3, 4, 5, 8, 13, 20])
    func bilevelReadBack(scale: Int) throws {
        let matrix = try QRCodeEncoder().encode(Array("https://mobile.example.com/read-back?scale=\(scale)".utf8))
        let png = try matrix.png(scale: scale, margin: 4)
        let side = (matrix.size + 8) * scale
        let fast = try #require(
            try PNGCodec.decodeBilevel(png, width: side, height: side, shrinkingBy: scale / 2, name: "code.png"))
        #expect(fast == (try ImageDecoder().decode(png, name: "code.png").downsampled(by: scale / 2)))

        // Another size, another kind of PNG, or a damaged file is never taken for the code.
        #expect(try PNGCodec.decodeBilevel(png, width: side + 1, height: side, shrinkingBy: 1, name: "code.png") == nil)
        let gray = try GrayImage(width: side, height: side, pixels: [UInt8](repeating: 200, count: side * side)).png()
        #expect(try PNGCodec.decodeBilevel(gray, width: side, height: side, shrinkingBy: 1, name: "gray.png") == nil)
        var damaged = png
        damaged[damaged.count / 2] ^= 0x40
        #expect(throws: ImagingError.self) {
            try PNGCodec.decodeBilevel(damaged, width: side, height: side, shrinkingBy: 1, name: "code.png")
        }
        #expect(throws: ImagingError.self) {
            try PNGCodec.decodeBilevel(
                Array(png.prefix(png.count - 20)), width: side, height: side, shrinkingBy: 1, name: "code.png")
        }
    }

    @Test("format from file name")
    func formatFromName() {
        #expect(QRRenderFormat(fileName: "a/b.PNG") == .png)
        #expect(QRRenderFormat(fileName: "x.svg") == .svg)
        #expect(QRRenderFormat(fileName: "x.txt") == .text)
        #expect(QRRenderFormat(fileName: "x.jpg") == nil)
        #expect(QRRenderFormat(fileName: "dir.png/file") == nil)
    }
}
