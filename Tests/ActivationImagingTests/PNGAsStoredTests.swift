import Testing

@testable import ActivationImaging

/// A PNG's pixels as zbarimg and ZXingReader decode them (`PNGCodec.decodeAsStored`): the stored
/// samples, where our decoding applies a gAMA chunk or composites alpha onto white.
@Suite("PNG as the tools decode it")
struct PNGAsStoredTests {
    typealias Writer = PNGDirectTests.Writer

    static let gray = Writer(width: 16, height: 8, colorType: 0, bitDepth: 8)
    static func grayRows() -> [[UInt8]] { PNGDirectTests.rows(gray, seed: 35) }

    func asStored(_ bytes: [UInt8]) throws -> GrayImage? {
        try ImageDecoder().decode(bytes, name: "as-stored.png", as: .zxingReader)
    }

    @Test("a gamma other than sRGB's: libpng converts the samples, the tools' view keeps them")
    func otherGamma() throws {
        var writer = Self.gray
        writer.before = [("gAMA", Writer.integer(27_273))]  // 0.27: a darkened copy, as ImageMagick writes it
        let rows = Self.grayRows()
        let bytes = writer.file(rows)
        let stored = try #require(try asStored(bytes))
        #expect(stored.pixels == rows.flatMap { $0 })
        let shown = try ImageDecoder().decode(bytes, name: "gamma.png")
        #expect(shown.pixels != stored.pixels, "libpng applied no gamma: the case tests nothing")
    }

    @Test(
        "no alpha and no gamma but sRGB's: no second decoding",
        arguments: [[], [("gAMA", Writer.integer(45_455))], [("sRGB", [0])]] as [[(String, [UInt8])]])
    func sameAsShown(chunks: [(String, [UInt8])]) throws {
        var writer = Self.gray
        writer.before = chunks
        #expect(try asStored(writer.file(Self.grayRows())) == nil)
        var rgb = Writer(width: 8, height: 4, colorType: 2, bitDepth: 8)
        rgb.before = chunks
        #expect(try asStored(rgb.file(PNGDirectTests.rows(rgb, seed: 7))) == nil)
    }

    @Test("palette alpha: the tools take each entry's colour; we lay it on white")
    func paletteAlpha() throws {
        var writer = Writer(width: 4, height: 1, colorType: 3, bitDepth: 8)
        // Black at alpha 254 (a barcode's bars in ImageMagick's palette), black at 0, gray, opaque.
        writer.before = [("PLTE", [0, 0, 0, 0, 0, 0, 100, 100, 100]), ("tRNS", [254, 0, 128])]
        let bytes = writer.file([[0, 1, 2, 0]])
        #expect(try asStored(bytes)?.pixels == [0, 0, 100, 0])
        #expect(try ImageDecoder().decode(bytes, name: "palette.png").pixels == [1, 255, 177, 1])
    }

    @Test("RGBA and gray with alpha: the colour, whatever the alpha")
    func alphaChannel() throws {
        let rgba = Writer(width: 2, height: 1, colorType: 6, bitDepth: 8)
        let bytes = rgba.file([[10, 20, 30, 0, 200, 100, 50, 255]])
        #expect(try asStored(bytes)?.pixels == [18, 124])
        let grayAlpha = Writer(width: 2, height: 1, colorType: 4, bitDepth: 8)
        #expect(try asStored(grayAlpha.file([[40, 0, 90, 7]]))?.pixels == [40, 90])
    }

    @Test("colour: zbarimg's view takes ImageMagick's luma (Rec. 709 weights), ZXingReader's ours (Rec. 601)")
    func colourReduction() throws {
        let rgb = Writer(width: 3, height: 1, colorType: 2, bitDepth: 8)
        // Dark green and dark red of one Rec. 601 luma (59), far apart in Rec. 709's (72 and 42).
        let bytes = rgb.file([[0, 100, 0, 196, 0, 0, 255, 255, 255]])
        #expect(try ImageDecoder().decode(bytes, name: "rgb.png").pixels == [59, 59, 255])
        #expect(try ImageDecoder().decode(bytes, name: "rgb.png", as: .zbarimg)?.pixels == [72, 42, 255])
        #expect(try ImageDecoder().decode(bytes, name: "rgb.png", as: .zxingReader) == nil)
        // Gray has one luma in every formula: no second decoding for either tool.
        #expect(try ImageDecoder().decode(Self.gray.file(Self.grayRows()), name: "gray.png", as: .zbarimg) == nil)
    }

    @Test("zbarimg's view of colour without alpha: the direct path and libpng's give the same pixels")
    func colourDirect() throws {
        var palette = Writer(width: 16, height: 8, colorType: 3, bitDepth: 8)
        palette.before = [("PLTE", (0..<768).map { UInt8(truncatingIfNeeded: $0 &* 37) })]
        for writer in [Writer(width: 16, height: 8, colorType: 2, bitDepth: 8), palette] {
            let bytes = writer.file(PNGDirectTests.rows(writer, seed: 44))
            let direct = try #require(
                try PNGCodec.decodeDirect(bytes, name: "c.png", maxPixels: 1 << 20, colour: .imageMagick))
            let libpng = try PNGCodec.decodeWithLibPNG(bytes, name: "c.png", maxPixels: 1 << 20, colour: .imageMagick)
            #expect(direct.pixels == libpng.pixels, "colour type \(writer.colorType)")
            #expect(try ImageDecoder().decode(bytes, name: "c.png", as: .zbarimg)?.pixels == direct.pixels)
            #expect(direct.pixels != (try ImageDecoder().decode(bytes, name: "c.png")).pixels, "the views differ")
        }
    }

    @Test("the tools' views from the first decoding's samples are the views decoded from the file")
    func viewsFromSamples() throws {
        var files: [(String, [UInt8])] = []
        for (label, colorType, bitDepth, chunks) in [
            ("gray, gamma 0.27", 0, 8, [("gAMA", Writer.integer(27_273))]),
            ("gray 2-bit, gamma 1.0", 0, 2, [("gAMA", Writer.integer(100_000))]),
            ("RGB, gamma 0.27", 2, 8, [("gAMA", Writer.integer(27_273))]),
            ("RGB", 2, 8, []),
            ("RGBA", 6, 8, []),
            ("gray+alpha", 4, 8, []),
            ("RGB with tRNS", 2, 8, [("tRNS", [0, 9, 0, 9, 0, 9])]),
            ("palette with tRNS", 3, 8, [("PLTE", (0..<768).map { UInt8(($0 * 11) % 256) }), ("tRNS", [0, 200])]),
            (
                "palette 4-bit, gamma 0.27", 3, 4,
                [("gAMA", Writer.integer(27_273)), ("PLTE", (0..<48).map(UInt8.init))]
            ),
        ] as [(String, UInt8, UInt8, [(String, [UInt8])])] {
            let writer = Writer(width: 29, height: 7, colorType: colorType, bitDepth: bitDepth, before: chunks)
            files.append((label, writer.file(PNGDirectTests.rows(writer, seed: 61))))
        }
        var compared = 0
        for (label, bytes) in files {
            for keepingUpTo in [1 << 20, 0] {
                let decoded = try ImageDecoder().decodeWithToolsViews(bytes, name: label, keepingUpTo: keepingUpTo)
                #expect(decoded.image == (try ImageDecoder().decode(bytes, name: label)), "\(label)")
                for tool in [ImageDecoder.ReaderTool.zbarimg, .zxingReader] {
                    let fromFile = try ImageDecoder().decode(bytes, name: label, as: tool)
                    #expect(
                        decoded.asTheToolsDecode(tool) == fromFile, "\(label), \(tool), keeping up to \(keepingUpTo)")
                    compared += fromFile == nil ? 0 : 1
                }
            }
        }
        #expect(compared >= 24, "too few files have a view of their own: the test compares little")
    }

    @Test("a damaged file is refused as the first decoding refuses it; JPEG and PNM have no second")
    func refusals() throws {
        var writer = Self.gray
        writer.before = [("gAMA", Writer.integer(100_000))]
        var bytes = writer.file(Self.grayRows())
        bytes.removeLast(30)  // into the image data
        #expect(throws: ImagingError.self) { try asStored(bytes) }
        #expect(try asStored(Array("P5 1 1 255 ".utf8) + [7]) == nil)
        #expect(try asStored([0x89, 0x50, 0x4E, 0x47]) == nil)
    }
}
