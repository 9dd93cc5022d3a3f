import CDeflate
import Foundation
import TestSupport
import Testing

@testable import ActivationImaging

/// PNGCodec's direct path (own chunk reader, libdeflate, fused unfilter and gray conversion)
/// against its libpng path: the same pixels for every file it takes, and every other file left to
/// libpng. The test writes its PNGs itself, so that every colour type, bit depth, filter type and
/// transparency form appears, with real DEFLATE streams.
@Suite("PNG direct path")
struct PNGDirectTests {
    /// A PNG file, chunk by chunk, from unfiltered sample rows.
    struct Writer {
        var width: Int, height: Int, colorType: UInt8, bitDepth: UInt8
        var interlace: UInt8 = 0
        /// Chunks between IHDR and the image data (PLTE, tRNS, gAMA, text…).
        var before: [(String, [UInt8])] = [("tEXt", Array("Comment\0written by PNGDirectTests".utf8))]
        /// How many IDAT chunks the compressed data is cut into.
        var imageChunks = 1

        var channels: Int { PNGCodec.channels(colorType: Int(colorType)) }
        var stride: Int { PNGCodec.rowBytes(width: width, colorType: Int(colorType), bitDepth: Int(bitDepth)) }

        /// Rows filtered with `filters` (cycled; 0 None … 4 Paeth), then compressed.
        func imageData(_ rows: [[UInt8]], filters: [UInt8]) -> [UInt8] {
            let step = max(1, channels * Int(bitDepth) / 8)
            var filtered: [UInt8] = []
            for (y, row) in rows.enumerated() {
                let filter = filters[y % filters.count]
                let above = y == 0 ? [UInt8](repeating: 0, count: row.count) : rows[y - 1]
                filtered.append(filter)
                for i in row.indices {
                    let a = i >= step ? Int(row[i - step]) : 0
                    let b = Int(above[i])
                    let c = i >= step ? Int(above[i - step]) : 0
                    let predictor: Int
                    switch filter {
                    case 1: predictor = a
                    case 2: predictor = b
                    case 3: predictor = (a + b) / 2
                    case 4:
                        let pa = abs(b - c)
                        let pb = abs(a - c)
                        let pc = abs(a + b - 2 * c)
                        predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                    default: predictor = 0
                    }
                    filtered.append(row[i] &- UInt8(truncatingIfNeeded: predictor))
                }
            }
            return compressed(filtered)
        }

        func file(_ rows: [[UInt8]], filters: [UInt8] = [0, 1, 2, 3, 4]) -> [UInt8] {
            file(imageData: imageData(rows, filters: filters))
        }

        func file(imageData: [UInt8]) -> [UInt8] {
            PNGCodec.file(
                width: width, height: height, bitDepth: bitDepth, colorType: colorType, interlace: interlace,
                chunks: before.map { (type: $0.0, data: $0.1) }, imageData: imageData, imageChunks: imageChunks)
        }

        static func integer(_ value: Int) -> [UInt8] {
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }

        func compressed(_ data: [UInt8]) -> [UInt8] {
            let compressor = libdeflate_alloc_compressor(6)
            defer { libdeflate_free_compressor(compressor) }
            var output = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, data.count))
            let count = output.withUnsafeMutableBytes {
                libdeflate_zlib_compress(compressor, data, data.count, $0.baseAddress, $0.count)
            }
            return Array(output.prefix(count))
        }
    }

    /// Sample rows of random bytes, padding bits past the last pixel included (decoders ignore them).
    static func rows(_ writer: Writer, seed: UInt64, values: ClosedRange<UInt8> = 0...255) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        return (0..<writer.height).map { _ in
            (0..<writer.stride).map { _ in
                // Runs of equal bytes beside noise, so that every filter meets both.
                UInt8.random(in: values, using: &generator) & (Bool.random(using: &generator) ? 0xFF : 0xF0)
            }
        }
    }

    /// Both paths over `bytes`: the direct one must take the file and give libpng's pixels.
    static func expectSamePixels(
        _ bytes: [UInt8], _ label: String, alpha: PNGCodec.AlphaHandling = .compositedOntoWhite,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let direct = try PNGCodec.decodeDirect(bytes, name: label, maxPixels: 1 << 26, alpha: alpha)
        let reference = try PNGCodec.decodeWithLibPNG(bytes, name: label, maxPixels: 1 << 26, alpha: alpha)
        #expect(direct != nil, "\(label): the direct path declined it", sourceLocation: sourceLocation)
        guard let direct else { return }
        #expect(
            direct.width == reference.width && direct.height == reference.height, "\(label)",
            sourceLocation: sourceLocation)
        let differing = zip(direct.pixels, reference.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(label): \(differing) pixels differ from libpng's", sourceLocation: sourceLocation)
    }

    @Test(
        "gray at 1, 2, 4 and 8 bits, with and without a transparent level, every filter type",
        arguments: [1, 2, 4, 8] as [UInt8])
    func gray(bitDepth: UInt8) throws {
        for width in [1, 7, 37] {
            let writer = Writer(width: width, height: 11, colorType: 0, bitDepth: bitDepth)
            let rows = Self.rows(writer, seed: UInt64(width) * 31 + UInt64(bitDepth))
            try Self.expectSamePixels(writer.file(rows), "gray \(bitDepth)-bit ×\(width)")
            var transparent = writer
            transparent.before = [("tRNS", [0, UInt8((1 << bitDepth) - 1) / 3])]
            try Self.expectSamePixels(transparent.file(rows), "gray \(bitDepth)-bit ×\(width) with tRNS")
        }
    }

    @Test("palettes at 1, 2, 4 and 8 bits, with partial transparency", arguments: [1, 2, 4, 8] as [UInt8])
    func palette(bitDepth: UInt8) throws {
        let entries = 1 << Int(bitDepth)
        var generator = SplitMix64(seed: UInt64(bitDepth))
        let palette = (0..<entries * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for width in [1, 9, 40] {
            var writer = Writer(width: width, height: 9, colorType: 3, bitDepth: bitDepth, before: [("PLTE", palette)])
            let rows = Self.rows(writer, seed: UInt64(width) + 100 * UInt64(bitDepth))
            try Self.expectSamePixels(writer.file(rows), "palette \(bitDepth)-bit ×\(width)")
            writer.before.append(("tRNS", (0..<max(1, entries / 2)).map { UInt8(($0 * 97) % 256) }))
            try Self.expectSamePixels(writer.file(rows), "palette \(bitDepth)-bit ×\(width) with tRNS")
        }
    }

    @Test("indices past a short palette read as libpng reads them")
    func shortPalette() throws {
        let writer = Writer(
            width: 16, height: 16, colorType: 3, bitDepth: 8,
            before: [("PLTE", [255, 255, 255, 0, 0, 0, 200, 10, 10]), ("tRNS", [128])])
        let rows = (0..<16).map { y in (0..<16).map { x in UInt8((x * 16 + y) % 7) } }
        try Self.expectSamePixels(writer.file(rows), "indices 0…6 of a 3-entry palette")
    }

    @Test("RGB, RGB with a transparent colour, gray with alpha and RGBA, every filter type, several IDAT chunks")
    func colorAndAlpha() throws {
        for (colorType, label) in [(2, "RGB"), (4, "gray+alpha"), (6, "RGBA")] as [(UInt8, String)] {
            for width in [1, 5, 64] {
                var writer = Writer(width: width, height: 13, colorType: colorType, bitDepth: 8)
                let rows = Self.rows(writer, seed: UInt64(width) * 7 + UInt64(colorType))
                try Self.expectSamePixels(writer.file(rows), "\(label) ×\(width)")
                // Paeth rows in a row are unfiltered two at a time; 13 rows leave one over.
                try Self.expectSamePixels(writer.file(rows, filters: [4]), "\(label) ×\(width), every row Paeth")
                try Self.expectSamePixels(
                    writer.file(rows, filters: [4, 4, 4, 2]), "\(label) ×\(width), Paeth runs of three")
                writer.imageChunks = 5
                try Self.expectSamePixels(writer.file(rows, filters: [4, 3, 1]), "\(label) ×\(width), 5 IDAT chunks")
            }
        }
        // A tRNS colour that occurs: the rows are made of it and one other.
        var writer = Writer(width: 20, height: 6, colorType: 2, bitDepth: 8, before: [("tRNS", [0, 10, 0, 20, 0, 30])])
        let rows = (0..<6).map { y in
            (0..<20).flatMap { x in (x + y) % 3 == 0 ? [10, 20, 30] : [200, 100, 0] as [UInt8] }
        }
        try Self.expectSamePixels(writer.file(rows), "RGB with a transparent colour")
        writer.before.append(("gAMA", Writer.integer(45_455)))
        try Self.expectSamePixels(writer.file(rows), "RGB with sRGB's gamma")
    }

    @Test(
        "a gamma other than sRGB's: libpng's conversion, learnt from a probe, for gray, RGB and palettes",
        arguments: [27_273, 100_000, 22_727, 50_000, 1, 0, 1_000_000_000])
    func otherGamma(gamma: Int) throws {
        let gAMA = ("gAMA", Writer.integer(gamma))
        for bitDepth in [1, 2, 4, 8] as [UInt8] {
            var writer = Writer(width: 23, height: 7, colorType: 0, bitDepth: bitDepth, before: [gAMA])
            try Self.expectSamePixels(writer.file(Self.rows(writer, seed: 5)), "gray \(bitDepth)-bit, gAMA \(gamma)")
            var generator = SplitMix64(seed: UInt64(bitDepth) + 50)
            let palette = (0..<3 * (1 << Int(bitDepth))).map { _ in UInt8.random(in: 0...255, using: &generator) }
            writer.colorType = 3
            // Before the palette, as the standard asks; after it, where libpng ignores it.
            for chunks in [[gAMA, ("PLTE", palette)], [("PLTE", palette), gAMA]] {
                writer.before = chunks
                try Self.expectSamePixels(
                    writer.file(Self.rows(writer, seed: 6)), "palette \(bitDepth)-bit, \(chunks.map(\.0))")
            }
        }
        for before in [[gAMA], [gAMA, ("sRGB", [0])], [("cHRM", (0..<32).map { UInt8($0 * 5) }), gAMA]] {
            let writer = Writer(width: 31, height: 9, colorType: 2, bitDepth: 8, before: before)
            try Self.expectSamePixels(writer.file(Self.rows(writer, seed: 8)), "RGB, \(before.map(\.0)) \(gamma)")
        }
    }

    @Test("transparency with another gamma is libpng's; with alpha dropped, the colour as stored")
    func transparencyAndGamma() throws {
        let writer = Writer(width: 9, height: 5, colorType: 6, bitDepth: 8, before: [("gAMA", Writer.integer(27_273))])
        let bytes = writer.file(Self.rows(writer, seed: 4))
        #expect(try PNGCodec.decodeDirect(bytes, name: "rgba.png", maxPixels: 1 << 20) == nil)
        var palette = Writer(
            width: 9, height: 5, colorType: 3, bitDepth: 8,
            before: [("gAMA", Writer.integer(27_273)), ("PLTE", (0..<768).map { UInt8($0 % 256) }), ("tRNS", [9, 99])])
        #expect(
            try PNGCodec.decodeDirect(palette.file(Self.rows(palette, seed: 4)), name: "p.png", maxPixels: 1 << 20)
                == nil)
        palette.before.removeFirst()
        try Self.expectSamePixels(palette.file(Self.rows(palette, seed: 4)), "palette with tRNS", alpha: .dropped)
    }

    @Test("alpha dropped (the tools' view): each pixel the colour stored, as libpng gives it")
    func alphaDropped() throws {
        var layouts: [(String, Writer)] = [
            ("gray+alpha", Writer(width: 17, height: 6, colorType: 4, bitDepth: 8)),
            ("RGBA", Writer(width: 17, height: 6, colorType: 6, bitDepth: 8)),
            ("gray with tRNS", Writer(width: 17, height: 6, colorType: 0, bitDepth: 4, before: [("tRNS", [0, 3])])),
            (
                "RGB with tRNS",
                Writer(width: 17, height: 6, colorType: 2, bitDepth: 8, before: [("tRNS", [0, 9, 0, 9, 0, 9])])
            ),
        ]
        layouts.append(
            (
                "palette with tRNS",
                Writer(
                    width: 17, height: 6, colorType: 3, bitDepth: 8,
                    before: [("PLTE", (0..<768).map { UInt8(($0 * 7) % 256) }), ("tRNS", [0, 128, 254])])
            ))
        for (label, writer) in layouts {
            try Self.expectSamePixels(writer.file(Self.rows(writer, seed: 12)), label, alpha: .dropped)
        }
    }

    @Test("every PNG fixture and sample code reads the same both ways")
    func fixtures() throws {
        let roots = [
            ImageFixture.directory,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleCodes")
                .path,
        ]
        var count = 0
        for root in roots {
            let files =
                FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter {
                    $0.hasSuffix(".png")
                } ?? []
            for file in files.sorted() {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(file)")))
                guard (try? PNGCodec.decodeWithLibPNG(bytes, name: file, maxPixels: 1 << 26)) != nil else { continue }
                // 16-bit and interlaced files, and those with transparency and a gamma libpng
                // converts, are libpng's; every other one the direct path takes.
                let layout = (bytes[24], bytes[28])
                let chunks = PNGCodec.ChunkSummary(bytes)
                if layout.0 == 16 || layout.1 != 0 || (chunks?.hasOtherGamma == true && chunks?.hasAlpha == true) {
                    #expect(try PNGCodec.decodeDirect(bytes, name: file, maxPixels: 1 << 26) == nil, "\(file)")
                } else {
                    try Self.expectSamePixels(bytes, file)
                }
                count += 1
            }
        }
        #expect(count >= 30)
    }

    @Test("files the direct path does not take go to libpng, which reads them or names the fault")
    func declined() throws {
        let writer = Writer(width: 12, height: 4, colorType: 0, bitDepth: 8)
        let rows = Self.rows(writer, seed: 9)
        let good = writer.file(rows)
        let idat = try #require(Self.offset(of: "IDAT", in: good))
        var cases: [(String, [UInt8], Bool?)] = []  // name, file, whether libpng reads it (nil: its call)

        var sixteen = Writer(width: 12, height: 4, colorType: 0, bitDepth: 16)
        cases.append(("16-bit", sixteen.file(Self.rows(sixteen, seed: 1)), true))
        sixteen.colorType = 2
        cases.append(("16-bit RGB", sixteen.file(Self.rows(sixteen, seed: 2)), true))
        var transparent = writer
        transparent.before = [("gAMA", Writer.integer(100_000)), ("tRNS", [0, 7])]
        cases.append(("gamma 1.0 and a transparent level", transparent.file(rows), true))
        var badCRC = good
        badCRC[idat + 9] ^= 0xFF  // a byte of the compressed data
        cases.append(("IDAT with a bad CRC", badCRC, false))
        var unknown = writer
        unknown.before = [("ABCD", [1, 2, 3])]
        cases.append(("unknown critical chunk", unknown.file(rows), false))
        cases.append(("cut inside IDAT", Array(good.prefix(idat + 20)), false))
        // A text chunk that claims 1.9 GB of a file of a few hundred bytes: refused before libpng
        // allocates the claim.
        var claiming = good
        let text = try #require(Self.offset(of: "tEXt", in: good))
        claiming.replaceSubrange(text..<text + 4, with: Writer.integer(1_966_080_037))
        cases.append(("a tEXt chunk claiming 1.9 GB", claiming, false))
        #expect(throws: ImagingError.self) {
            do { _ = try PNGCodec.decodeWithLibPNG(claiming, name: "claim.png", maxPixels: 1 << 26) } catch {
                #expect("\(error)".contains("tEXt chunk claims 1966080037 bytes"))
                throw error
            }
        }
        let short = writer.imageData(Array(rows.prefix(3)), filters: [1])
        cases.append(("a row short", writer.file(imageData: short), false))
        let badFilter = writer.compressed(
            [5] + [UInt8](repeating: 0, count: writer.stride) + Array(repeating: 0, count: 3 * (writer.stride + 1)))
        cases.append(("filter type 5", writer.file(imageData: badFilter), false))
        var interlaced = writer
        interlaced.interlace = 1
        cases.append(("interlaced (as if not)", interlaced.file(rows), nil))

        for (name, bytes, readable) in cases {
            #expect(
                try PNGCodec.decodeDirect(bytes, name: name, maxPixels: 1 << 26) == nil,
                "\(name): taken by the direct path")
            let viaDecode = Result { try PNGCodec.decode(bytes, name: name, maxPixels: 1 << 26) }
            let viaLibPNG = Result { try PNGCodec.decodeWithLibPNG(bytes, name: name, maxPixels: 1 << 26) }
            switch (viaDecode, viaLibPNG) {
            case (.success(let image), .success(let reference)):
                #expect(readable != false, "\(name): libpng read it")
                #expect(image == reference, "\(name)")
            case (.failure(let error), .failure(let reference)):
                #expect(readable != true, "\(name): libpng refused it: \(reference)")
                #expect("\(error)" == "\(reference)", "\(name)")
            default:
                Issue.record("\(name): decode and libpng disagree")
            }
        }
    }

    @Test("the pixel limit holds on the direct path")
    func pixelLimit() throws {
        let writer = Writer(width: 100, height: 100, colorType: 2, bitDepth: 8)
        let bytes = writer.file(Self.rows(writer, seed: 3))
        #expect(throws: ImagingError.self) { try PNGCodec.decodeDirect(bytes, name: "big.png", maxPixels: 9_999) }
        #expect(try PNGCodec.decodeDirect(bytes, name: "big.png", maxPixels: 10_000) != nil)
    }

    static func offset(of type: String, in bytes: [UInt8]) -> Int? {
        let pattern = Array(type.utf8)
        return (4..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(pattern) }.map { $0 - 4 }
    }
}
