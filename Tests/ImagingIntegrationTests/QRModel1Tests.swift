import TestSupport
import Testing

@testable import ActivationImaging

@Suite("QR Code Model 1 reader and its Reed–Solomon decoder")
struct QRModel1Tests {
    static let model1Text = "N023X-3431800-V034PG03X-3436010-A1125032918310706"

    static func model1Image() throws -> GrayImage {
        try ImageDecoder().decodeFile(ImageFixture.path("corpus/cpp-qrcode-2/940.png"))
    }

    @Test("a Model 1 symbol is read as printed (one pixel a module), enlarged, and turned")
    func readsModel1() throws {
        let image = try Self.model1Image()
        #expect(QRModel1Reader.read(image).map(\.text) == [Self.model1Text])
        let enlarged = image.scaled(by: 6)
        let symbols = QRModel1Reader.read(enlarged)
        #expect(symbols.map(\.text) == [Self.model1Text])
        // The symbol (37 modules, 2 of margin) spans pixels 12…234 of the enlarged image.
        #expect(symbols.first?.corners.map { [$0.x, $0.y] } == [[12, 12], [234, 12], [234, 234], [12, 234]])
        #expect(QRModel1Reader.read(enlarged.rotated(degrees: 30)).map(\.text) == [Self.model1Text])
        #expect(QRModel1Reader.read(enlarged.rotated(degrees: 180)).map(\.text) == [Self.model1Text])
    }

    @Test("the pipeline reads Model 1 with its own reader, after both engines failed")
    func pipeline() throws {
        let trace = BarcodeScanner().trace(try Self.model1Image())
        #expect(trace.symbols.map(\.text) == [Self.model1Text])
        #expect(trace.symbols.first?.symbology == .qr)
        #expect(trace.pass == "model1")
    }

    @Test("a Model 2 code is left to the engines: its format information is not Model 1's")
    func model2Refused() throws {
        let code = try QRCodeEncoder().encode(Array("model 2".utf8)).grayImage(scale: 4, margin: 4)
        #expect(CodeEvidence.finderPatterns(in: code) == 3)
        #expect(QRModel1Reader.read(code).isEmpty)
    }

    /// The enlarged symbol with `count` data modules (right of the timing column, below the
    /// top finders) turned to their opposite colour.
    static func damaged(_ count: Int) throws -> GrayImage {
        var image = try model1Image().scaled(by: 4)
        var flipped = 0
        // Module (column, row) of the 37-module symbol is pixels 4·(2 + column)… of the image.
        outer: for row in 9..<28 {
            for column in stride(from: 9 + row % 3, to: 36, by: 3) {
                for y in 4 * (2 + row)..<4 * (3 + row) {
                    for x in 4 * (2 + column)..<4 * (3 + column) {
                        image.pixels[y * image.width + x] = 255 - image.pixels[y * image.width + x]
                    }
                }
                flipped += 1
                if flipped == count { break outer }
            }
        }
        return image
    }

    @Test("damaged modules are corrected; beyond what the code can fix, nothing is read, never another text")
    func damage() throws {
        #expect(QRModel1Reader.read(try Self.damaged(12)).map(\.text) == [Self.model1Text])
        #expect(QRModel1Reader.read(try Self.damaged(300)).isEmpty)
    }

    /// Systematic Reed–Solomon encoding with the generator whose roots are α⁰…α^(ecc-1).
    static func encode(_ data: [UInt8], ecc: Int) -> [UInt8] {
        var generator: [UInt8] = [1]  // highest power first
        for power in 0..<ecc {
            var next = [UInt8](repeating: 0, count: generator.count + 1)
            for (index, coefficient) in generator.enumerated() {
                next[index] ^= coefficient
                next[index + 1] ^= ReedSolomon.multiply(coefficient, ReedSolomon.alpha(power))
            }
            generator = next
        }
        var remainder = data + [UInt8](repeating: 0, count: ecc)
        for index in data.indices where remainder[index] != 0 {
            let factor = remainder[index]
            for (offset, coefficient) in generator.enumerated() {
                remainder[index + offset] ^= ReedSolomon.multiply(coefficient, factor)
            }
        }
        return data + remainder[data.count...]
    }

    @Test("Reed–Solomon corrects up to the limit it is given, and refuses more", arguments: [7, 10, 22, 44])
    func reedSolomon(ecc: Int) {
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<200 {
            let data = (0..<(20 + trial % 30)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let clean = Self.encode(data, ecc: ecc)
            let errors = trial % (ecc / 2 + 1)
            var positions = Set<Int>()
            while positions.count < errors { positions.insert(Int.random(in: 0..<clean.count, using: &generator)) }
            var block = clean
            for position in positions { block[position] ^= UInt8.random(in: 1...255, using: &generator) }
            var limited = block
            #expect(ReedSolomon.correct(&block, eccCount: ecc, maximumErrors: ecc / 2) == errors)
            #expect(block == clean)
            if errors > 0 {
                #expect(ReedSolomon.correct(&limited, eccCount: ecc, maximumErrors: errors - 1) == nil)
            }
        }
    }

    @Test("bit stream segments: numeric, alphanumeric, byte and kanji, up to the terminator")
    func bitStream() {
        // mode, count, characters as bit strings (version 1 counts: 10, 9, 8, 8 bits).
        let bits =
            "0001" + "0000000101" + "0000001100" + "0100100"  // numeric "012", "36"
            + "0010" + "000000011" + "00111001110" + "101001"  // alphanumeric "AC-" (10·45+12, 41)
            + "0100" + "00000001" + "01111010"  // byte "z"
            + "1000" + "00000001" + "0000000000000"  // kanji 0x8140 (the ideographic space)
            + "0000"
        let text = Self.codewords(bits)
        #expect(QRBitStream.payload(text, version: 1) == Array("01236AC-z".utf8) + [0x81, 0x40])
        // A count past the end of the data is malformed, not a shorter text.
        #expect(QRBitStream.payload(Self.codewords("0100" + "11111111" + "01111010"), version: 1) == nil)
        #expect(QRBitStream.payload(Self.codewords("1111" + "0000"), version: 1) == nil)
    }

    static func codewords(_ bits: String) -> [UInt8] {
        let padded = bits + String(repeating: "0", count: (8 - bits.count % 8) % 8)
        return stride(from: 0, to: padded.count, by: 8).map { start in
            let slice = padded.dropFirst(start).prefix(8)
            return UInt8(slice, radix: 2) ?? 0
        }
    }
}
