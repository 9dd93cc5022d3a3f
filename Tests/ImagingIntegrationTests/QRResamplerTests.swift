import Foundation
import TestSupport
import Testing

@testable import ActivationImaging

@Suite("QR resampler: codes whose grid zxing gets wrong")
struct QRResamplerTests {
    /// `image` bent like a code on cloth or a bottle: each column shifted down by
    /// `amplitude`·sin(π·x/width) pixels, then blurred.
    static func bent(_ image: GrayImage, amplitude: Double) -> GrayImage {
        var pixels = [UInt8](repeating: 255, count: image.pixels.count)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let shift = amplitude * sin(Double.pi * Double(x) / Double(image.width))
                let value = image.interpolated(at: (Double(x) + 0.5, Double(y) + 0.5 - shift)) ?? 255
                pixels[y * image.width + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return GrayImage(unchecked: image.width, image.height, pixels).boxBlurred(radius: 1)
    }

    static let text = "https://mobile.example.com/activate?code=7Q2X"

    static func code() throws -> GrayImage {
        try QRCodeEncoder(errorCorrection: .high).encode(Array(text.utf8)).grayImage(scale: 5, margin: 4)
    }

    @Test("a code bent by a module and a bit defeats zxing's grid; the resampler reads it, corners on the code")
    func bentCode() throws {
        let engine = try #require(ZXingEngine.shared, "zxing helper missing")
        let image = Self.bent(try Self.code(), amplitude: 6)
        #expect(engine.scan(image, options: .init(symbologies: [.qr])).isEmpty, "zxing-cpp alone, with all its retries")
        let symbols = QRResampler.read(image, with: engine)
        #expect(symbols.map(\.text) == [Self.text])
        // The symbol spans pixels 20…225 (41 modules of 5 after a 20-pixel margin), its corners
        // bent down by about 2 pixels. The fitted grid follows the modules' centres, so its
        // corners, extrapolated half a module out, are as good as a module and a half.
        let corners = try #require(symbols.first?.corners)
        for (corner, expected) in zip(corners, [(20, 21), (225, 21), (225, 227), (20, 227)]) {
            #expect(abs(corner.x - expected.0) <= 8 && abs(corner.y - expected.1) <= 8, "\(corners)")
        }
        // The pipeline reads it too (the resampler is its last pass; a cheaper one may come first).
        #expect(BarcodeScanner().scan(image).map(\.text) == [Self.text])
    }

    @Test("the grid of a flat code puts every module where the encoder drew it")
    func flatGrid() throws {
        let code = try Self.code()
        let finders = CodeEvidence.finderCentres(in: code)
        let triangle = try #require(CodeEvidence.finderTriangles(finders).first)
        let grid = try #require(QRGrid(triangle, size: 41))
        for (u, v) in [(0.0, 0.0), (41, 0), (41, 41), (20.5, 20.5)] {
            let point = grid.pixel(u, v)
            #expect(
                abs(point.x - (20 + 5 * u)) < 0.01 && abs(point.y - (20 + 5 * v)) < 0.01,
                "module \(u), \(v) at \(point)")
        }
        // Sampled at the module centres, the modules are the encoder's.
        let matrix = try QRCodeEncoder(errorCorrection: .high).encode(Array(Self.text.utf8))
        let values = try #require(grid.sample(code))
        let dark = QRResampler.classified(values, size: 41)
        #expect(dark == (0..<41 * 41).map { matrix[$0 % 41, $0 / 41] })
    }

    @Test("textures and a code bent beyond its error correction give nothing, never a wrong text")
    func nothingWrong() throws {
        guard let engine = ZXingEngine.shared else {
            Issue.record("zxing helper missing")
            return
        }
        let texture = try ImageDecoder().decodeFile(ImageFixture.path("corpus/falsepositives-2/13.png"))
        #expect(QRResampler.read(texture, with: engine).isEmpty)
        #expect(QRResampler.read(Self.bent(try Self.code(), amplitude: 16), with: engine).isEmpty)
    }
}
