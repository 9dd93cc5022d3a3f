import TestSupport
import Testing

@testable import ActivationImaging

@Suite("Scanning")
struct ScannerTests {
    @Test("corpus samples give their exact expected text", arguments: try ImageFixture.corpusSamples())
    func corpus(sample: (image: String, expected: [UInt8])) throws {
        let symbols = try BarcodeScanner().scanFile(ImageFixture.path(sample.image))
        let expected = String(decoding: sample.expected, as: UTF8.self)
        #expect(symbols.map(\.text).contains(expected), "\(sample.image): \(symbols.map(\.text))")
    }

    @Test("UPC-A and UPC-E are reported as UPC, not folded into EAN-13")
    func upc() throws {
        #expect(try BarcodeScanner().scanFile(ImageFixture.path("corpus/upca-2/01.png")).first?.symbology == .upca)
        #expect(try BarcodeScanner().scanFile(ImageFixture.path("corpus/upce-2/01.png")).first?.symbology == .upce)
    }

    @Test("Codabar comes without its start/stop characters")
    func codabar() throws {
        let symbol = try #require(try BarcodeScanner().scanFile(ImageFixture.path("corpus/codabar-1/01.png")).first)
        #expect(symbol.symbology == .codabar)
        #expect(symbol.text == "1234567890")
        #expect(ZBarEngine.strippingCodabarGuards(Array("A40156B".utf8)) == Array("40156".utf8))
    }

    @Test("no code is found in an image without one")
    func falsePositive() throws {
        #expect(try BarcodeScanner().scanFile(ImageFixture.path("corpus/falsepositives-2/13.png")).isEmpty)
    }

    @Test("zbar reads ITF codes of eight digits and more, zxing-cpp (which checks the quiet zones) six too")
    func shortITF() throws {
        #expect(ZBarEngine(symbologies: [.itf]).scan(Self.itf("12345670")).map(\.text) == ["12345670"])
        #expect(ZBarEngine(symbologies: [.itf]).scan(Self.itf("123456")).isEmpty)
        #expect(BarcodeScanner(symbologies: [.itf]).scan(Self.itf("123456")).map(\.text) == ["123456"])
    }

    /// An Interleaved 2 of 5 code of `digits` (an even number of them): narrow elements 3 pixels,
    /// wide 8, a quiet zone of 12 narrow ones on each side.
    static func itf(_ digits: String) -> GrayImage {
        let patterns = ["nnwwn", "wnnnw", "nwnnw", "wwnnn", "nnwnw", "wnwnn", "nwwnn", "nnnww", "wnnwn", "nwnwn"]
        let values = digits.compactMap(\.wholeNumberValue)
        var elements = "nnnn"  // start: bar, space, bar, space
        for pair in stride(from: 0, to: values.count - 1, by: 2) {
            for (bar, space) in zip(patterns[values[pair]], patterns[values[pair + 1]]) {
                elements += String([bar, space])
            }
        }
        elements += "wnn"  // stop: bar, space, bar
        var row = [UInt8](repeating: 255, count: 36)
        for (index, element) in elements.enumerated() {
            row += [UInt8](repeating: index % 2 == 0 ? 0 : 255, count: element == "w" ? 8 : 3)
        }
        row += [UInt8](repeating: 255, count: 36)
        let height = 60
        return GrayImage(unchecked: row.count, height, Array((0..<height).map { _ in row }.joined()))
    }

    @Test("--symbology restricts what is scanned")
    func restriction() throws {
        let file = ImageFixture.path("corpus/ean13-1/1.png")
        #expect(try BarcodeScanner(symbologies: [.qr]).scanFile(file).isEmpty)
        #expect(try BarcodeScanner(symbologies: [.ean13]).scanFile(file).count == 1)
    }

    @Test("several codes in one image come out in reading order with their corners")
    func multipleCodes() throws {
        let first = try QRCodeEncoder().encode(Array("top left".utf8)).grayImage(scale: 4, margin: 4)
        let second = try QRCodeEncoder().encode(Array("bottom right".utf8)).grayImage(scale: 4, margin: 4)
        let side = first.width + second.width
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<first.height { for x in 0..<first.width { pixels[y * side + x] = first[x, y] } }
        for y in 0..<second.height {
            for x in 0..<second.width { pixels[(y + first.height) * side + x + first.width] = second[x, y] }
        }
        let symbols = BarcodeScanner().scan(try GrayImage(width: side, height: side, pixels: pixels))
        #expect(symbols.map(\.text) == ["top left", "bottom right"])
        let corners = try #require(symbols.first?.corners)
        #expect(corners.count == 4)
        // Clockwise from top left: x grows along the top edge, y down the right edge.
        #expect(corners[0].x < corners[1].x && corners[1].y < corners[2].y && corners[3].x < corners[2].x)
        #expect(abs(corners[0].x - 16) <= 2 && abs(corners[0].y - 16) <= 2)
    }

    @Test("an inverted (light on dark) code is read")
    func inverted() throws {
        var image = try QRCodeEncoder().encode(Array("inverted".utf8)).grayImage(scale: 4, margin: 4)
        image = try GrayImage(width: image.width, height: image.height, pixels: image.pixels.map { 255 - $0 })
        #expect(BarcodeScanner().scan(image).map(\.text) == ["inverted"])
    }
}
