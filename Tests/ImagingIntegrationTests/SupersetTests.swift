import CDeflate
import CTurboJPEG
import Foundation
import TestSupport
import Testing

@testable import ActivationImaging

/// The superset property over the images in the checkout (benchmarks/superset.py checks it over
/// the whole corpus and its variants): what zbarimg or ZXingReader reads correctly on its own,
/// with its defaults, the scanner reads too, and it reads nothing that neither tool nor the
/// expected text supports.
@Suite("What zbarimg or ZXingReader reads alone, activate reads too")
struct SupersetTests {
    /// The tools as a user runs them, each with the way its output is read.
    static let tools: [(name: String, command: [String], texts: @Sendable (String) -> [String])] = [
        ("zbarimg", ["zbarimg", "-q", "--raw", "--nodbus"], zbarTexts),
        ("zbarimg UPC", ["zbarimg", "-q", "--raw", "--nodbus", "-Supca.enable", "-Supce.enable"], zbarTexts),
        ("ZXingReader", ["ZXingReader"], zxingTexts),
    ]

    /// zbarimg --raw: a line per symbol.
    @Sendable static func zbarTexts(_ output: String) -> [String] {
        output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// ZXingReader: `Text:       "…"` per symbol.
    @Sendable static func zxingTexts(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("Text:       \""), line.hasSuffix("\"") else { return nil }
            return String(line.dropFirst("Text:       \"".count).dropLast())
        }
    }

    /// What `command` prints for `image` on standard output.
    static func run(_ command: [String], _ image: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command + [image]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The images: the corpus samples and the turned QR codes of the fixtures, and each linear
    /// sample turned by 90° and by 270° (bars across the image), written to `folder`.
    static func images(in folder: TemporaryFolder) throws -> [(path: String, expected: String)] {
        var images: [(path: String, expected: String)] = try ImageFixture.corpusSamples().map {
            (ImageFixture.path($0.image), String(decoding: $0.expected, as: UTF8.self))
        }
        for fixtures in ["rotated", "as-the-tools-decode", "unprepared-pixels"] {
            let folder = ImageFixture.path(fixtures)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            where file.hasSuffix(".png") {
                let text = try String(contentsOfFile: "\(folder)/\(file.dropLast(4)).txt", encoding: .utf8)
                images.append(("\(folder)/\(file)", text))
            }
        }
        let linear = images.filter { image in
            !["qrcode", "microqr", "falsepositives", "rotated", "as-the-tools-decode", "unprepared-pixels"].contains {
                image.path.contains($0)
            }
        }
        for (index, image) in linear.enumerated() {
            let decoded = try ImageDecoder().decodeFile(image.path)
            for degrees in [90.0, 270.0] {
                let path = try folder.write("\(index)-rot\(Int(degrees)).png", decoded.rotated(degrees: degrees).png())
                images.append((path, image.expected))
            }
        }
        return images
    }

    /// Whether `texts` hold `expected` (one trailing newline forgiven, as the corpus's scorer does).
    static func holds(_ texts: [String], _ expected: String) -> Bool {
        texts.contains(expected) || (expected.hasSuffix("\n") && texts.contains(String(expected.dropLast())))
    }

    @Test("every text a tool reads correctly is read, and nothing neither a tool nor the expected text supports")
    func superset() throws {
        let folder = try TemporaryFolder()
        let images = try Self.images(in: folder)
        var readByTools = 0
        var turnedReadByTools = 0
        var problems: [String] = []
        for image in images {
            let toolTexts = try Self.tools.map { tool in (tool.name, tool.texts(try Self.run(tool.command, image.path)))
            }
            let ours = try BarcodeScanner().scanFile(image.path).map(\.text)
            let readers = toolTexts.filter { Self.holds($0.1, image.expected) }.map(\.0)
            guard image.path.contains("falsepositives") == false else {
                let unsupported = ours.filter { text in !toolTexts.contains { $0.1.contains(text) } }
                if !unsupported.isEmpty { problems.append("\(image.path): read \(unsupported), no code expected") }
                continue
            }
            if !readers.isEmpty {
                readByTools += 1
                if image.path.hasPrefix(folder.path) { turnedReadByTools += 1 }
                if !Self.holds(ours, image.expected) {
                    problems.append(
                        "\(image.path): \(readers.joined(separator: ", ")) read \(image.expected), activate \(ours)")
                }
            }
            for text in ours
            where !Self.holds([text], image.expected) && !toolTexts.contains(where: { $0.1.contains(text) }) {
                problems.append("\(image.path): \(text) is neither expected nor read by a tool")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // Not vacuous: the tools read most images, the turned linear codes among them.
        #expect(readByTools * 2 > images.count && turnedReadByTools > 10, "\(readByTools), \(turnedReadByTools)")
    }

    @Test(
        "where only the tools read a code and read it differently, both readings are printed, the right one among them")
    func toolsDisagree() throws {
        // zbar reads Code 128's extended characters (FNC4) as their base characters; turned
        // across the image, only the tools' passes read this code at all.
        let image = try ImageDecoder().decodeFile(ImageFixture.path("corpus/code128-1/6.png")).rotated(degrees: 90)
        let trace = BarcodeScanner().trace(image)
        #expect(Set(trace.symbols.map(\.text)) == ["óóóó1234óóabózz", "ssss1234ssabszz"])
        let pass = try #require(ScanPass.passes(for: .normal).first { $0.name == trace.pass })
        #expect(pass.readsAsItsTool)
    }

    @Test("where the file's stored samples differ from how libpng shows them, the tools' stage reads them as stored")
    func asTheToolsDecode() throws {
        let folder = ImageFixture.path("as-the-tools-decode")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }.sorted()
        #expect(files.count == 3)
        for file in files {
            let path = "\(folder)/\(file)"
            let expected = try String(contentsOfFile: "\(folder)/\(file.dropLast(4)).txt", encoding: .utf8)
            let bytes = try ImageDecoder().readFile(path)
            // These files have a view of their own for the tools, other than our decoding.
            let stored = try #require(try ImageDecoder().decode(bytes, name: file, as: .zxingReader))
            #expect(stored.pixels != (try ImageDecoder().decode(bytes, name: file)).pixels, "\(file)")
            let toolTexts = try Self.tools.flatMap { $0.texts(try Self.run($0.command, path)) }
            #expect(Self.holds(toolTexts, expected), "\(file): no tool reads it, the case tests nothing")
            let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
            #expect(Self.holds(trace.symbols.map(\.text), expected), "\(file): \(trace.symbols.map(\.text))")
        }
    }

    @Test(
        "a code in colours that ImageMagick's luma tells apart and Rec. 601's does not: read as zbarimg reads it",
        arguments: ["png", "jpg"])
    func zbarimgColours(format: String) throws {
        let folder = try TemporaryFolder()
        let code = try QRCodeEncoder().encode(Array("colours as zbarimg sees them".utf8)).grayImage(scale: 8, margin: 4)
        // Dark red modules on dark green: one gray to us and to zxing-cpp (Rec. 601: 58.6 and
        // 58.7), 42 and 72 to ImageMagick, whose luma zbarimg reads.
        let rgb = code.pixels.flatMap { $0 < 128 ? [196, 0, 0] : [0, 100, 0] as [UInt8] }
        let path = try folder.write(
            "colours.\(format)",
            format == "png"
                ? try Self.rgbPNG(rgb, width: code.width, height: code.height)
                : try Self.rgbJPEG(rgb, width: code.width, height: code.height))
        #expect(try Self.zbarTexts(Self.run(Self.tools[0].command, path)) == ["colours as zbarimg sees them"])
        let ours = try ImageDecoder().decodeFile(path)
        #expect(BarcodeScanner().trace(ours).symbols.isEmpty, "our gray shows the code: the case tests nothing")
        #expect(try BarcodeScanner().scanFile(path).map(\.text) == ["colours as zbarimg sees them"])
    }

    @Test(
        "zbarimg's view of a colour file is ImageMagick's intensity, as `stream -map i` exports it",
        arguments: ["png", "jpg"])
    func imageMagickIntensity(format: String) throws {
        let folder = try TemporaryFolder()
        var generator = SplitMix64(seed: 709)
        let (width, height) = (96, 64)
        // Noise over smooth colour: every weight and every rounding is met.
        let rgb = (0..<width * height * 3).map { index -> UInt8 in
            let smooth = (index / 3 % width) * 255 / width
            return UInt8(truncatingIfNeeded: smooth / 2 + Int(UInt8.random(in: 0...127, using: &generator)))
        }
        let bytes =
            format == "png"
            ? try Self.rgbPNG(rgb, width: width, height: height)
            : try Self.rgbJPEG(rgb, width: width, height: height)
        let path = try folder.write("noise.\(format)", bytes)
        let exported = folder.path + "/intensity.raw"
        _ = try Self.run(["stream", "-map", "i", "-storage-type", "char", path], exported)
        let theirs = try ImageDecoder().readFile(exported)
        let ours = try #require(try ImageDecoder().decode(bytes, name: path, as: .zbarimg)).pixels
        #expect(ours.count == theirs.count)
        let differing = zip(ours, theirs).filter { $0 != $1 }
        if format == "png" {
            #expect(differing.isEmpty, "\(differing.count) pixels differ")
        } else {
            // ImageMagick's libjpeg runs the floating-point inverse DCT, TurboJPEG the integer one.
            #expect(
                differing.allSatisfy { abs(Int($0) - Int($1)) <= 1 } && differing.count * 20 < ours.count,
                "\(differing.count) pixels differ")
        }
    }

    /// 8-bit RGB samples as a PNG: rows of filter type 0, zlib-compressed by libdeflate.
    static func rgbPNG(_ rgb: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let stride = width * 3
        var rows: [UInt8] = []
        for row in 0..<height { rows += [0] + rgb[row * stride..<(row + 1) * stride] }
        let compressor = try #require(libdeflate_alloc_compressor(6))
        defer { libdeflate_free_compressor(compressor) }
        var data = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, rows.count))
        let count = data.withUnsafeMutableBytes {
            libdeflate_zlib_compress(compressor, rows, rows.count, $0.baseAddress, $0.count)
        }
        try #require(count > 0)
        return PNGCodec.file(
            width: width, height: height, bitDepth: 8, colorType: 2, interlace: 0, chunks: [],
            imageData: Array(data.prefix(count)), imageChunks: 1)
    }

    /// 8-bit RGB samples as a JPEG without chroma subsampling (libjpeg-turbo), quality 95.
    static func rgbJPEG(_ rgb: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &buffer, &size,
                Int32(TJSAMP_444.rawValue), 95, 0)
        }
        defer { tjFree(buffer) }
        try #require(status == 0)
        return Array(UnsafeBufferPointer(start: try #require(buffer), count: Int(size)))
    }

    @Test("in an image of several codes, what a tool reads beside the codes of the first pass is added")
    func severalCodes() throws {
        let path = ImageFixture.path("several-codes/multi-qrcode-perspective.png")
        let toolTexts = Set(try Self.tools.flatMap { $0.texts(try Self.run($0.command, path)) })
        let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
        let first = try #require(ScanPass.passes(for: .normal).first)
        #expect(trace.pass == first.name, "the case needs the first pass to read some of the codes")
        #expect(toolTexts.count == 4 && Set(trace.symbols.map(\.text)) == toolTexts, "\(trace.symbols.map(\.text))")
    }

    @Test("a product code read at the first attempt is checked by ZXingReader's read; zbar reads where that finds more")
    func productCodeChecks() throws {
        let first = try #require(ScanPass.passes(for: .normal).first)
        // One sharp EAN-13: ZXingReader's harder read finds nothing else, and zbar is not asked.
        let single = try BarcodeScanner().traceFile(ImageFixture.path("corpus/ean13-1/1.png"), stop: StopFlag())
        #expect(single.pass == first.name && single.symbols.map(\.text) == ["8413000065504"])
        #expect(single.checks.map(\.what) == ["as-tool:zxing/products"])
        // A book's ISBN and its price code: the first pass reads one, ZXingReader's read both, and
        // zbar reads too.
        let book = try BarcodeScanner().traceFile(ImageFixture.path("corpus/ean13-2/20.png"), stop: StopFlag())
        #expect(book.pass == first.name)
        #expect(Set(book.checks.map(\.what)) == ["as-tool:zxing/products", "as-tool:zbar/products"])
        #expect(Set(book.symbols.map(\.text)) == ["9784872348880", "1920081045006"])
        let zbarTexts = try Self.zbarTexts(Self.run(Self.tools[0].command, ImageFixture.path("corpus/ean13-2/20.png")))
        #expect(Set(zbarTexts) == ["9784872348880", "1920081045006"], "zbarimg reads both codes")
    }

    @Test("a product code misread on a sharpened copy yields to the reading its cut-out gives, prepared and unprepared")
    func sharpenedMisread() throws {
        // A 12 MP photo's candidate cut-out (a book's back on carpet): the carpet sways zxing-cpp's
        // threshold along the rows, so neither tool reads the ISBN, and the row-sharpened copy
        // reads it with six wrong digits.
        let path = ImageFixture.path("unprepared-pixels/isbn-photo.png")
        for tool in Self.tools {
            #expect(
                try tool.texts(Self.run(tool.command, path)).isEmpty, "\(tool.name) reads it: the case tests nothing")
        }
        let image = try ImageDecoder().decodeFile(path)
        let pass = try #require(ScanPass.passes(for: .normal).first { $0.preparation == "deblur-rows" })
        #expect(pass.settlesOnUnpreparedPixels)
        let prepared = try #require(pass.prepare(image))
        let sharpened = try #require(BarcodeScanner().decode(pass, prepared))
        #expect(sharpened.map(\.text) == ["7184728752847"], "the sharpened copy's reading")
        let trace = BarcodeScanner().trace(image)
        #expect(trace.pass == pass.name && trace.checks.map(\.what).contains("unprepared"))
        #expect(trace.symbols.map(\.text) == ["9780201752847"])
        // The same with 900 rows of gray below (zxing-cpp then tries other rows of the whole).
        let tall = try GrayImage(
            width: image.width, height: image.height + 900,
            pixels: image.pixels + [UInt8](repeating: 128, count: image.width * 900))
        let tallTrace = BarcodeScanner().trace(tall)
        #expect(
            tallTrace.symbols.map(\.text) == ["9780201752847"] && tallTrace.checks.map(\.what).contains("unprepared"))
        // The check leaves a right reading of a widened copy whose unprepared pixels zxing-cpp
        // misreads (04904144, as ZXingReader reads the whole image; both are printed): the
        // widened cut-out gives the pass's reading.
        let upce = try BarcodeScanner().traceFile(
            ImageFixture.path("unprepared-pixels/upce-blurred.png"), stop: StopFlag())
        #expect(upce.checks.map(\.what).contains("unprepared") && upce.symbols.map(\.text) == ["04904144", "04963406"])
        // A reading a tool confirms is one the tools read alone: it is not asked about.
        let upca = try BarcodeScanner().traceFile(ImageFixture.path("corpus/upca-2/01.png"), stop: StopFlag())
        #expect(upca.pass?.hasPrefix("zxing-stretch") == true && upca.symbols.map(\.text) == ["890444000335"])
        #expect(!upca.checks.map(\.what).contains("unprepared"))
    }

    @Test("a linear code turned across the image is read at the tools' stage, after the passes along the rows")
    func turnedLinearCode() throws {
        let image = try ImageDecoder().decodeFile(ImageFixture.path("corpus/ean13-1/1.png"))
        for degrees in [90.0, 270.0] {
            let trace = BarcodeScanner().trace(image.rotated(degrees: degrees))
            #expect(trace.symbols.map(\.text) == ["8413000065504"], "\(degrees)°")
            let names = ScanPass.passes(for: .normal).filter(\.readsAsItsTool).map(\.name)
            #expect(names.contains(trace.pass ?? ""), "read by \(trace.pass ?? "none")")
        }
    }
}
