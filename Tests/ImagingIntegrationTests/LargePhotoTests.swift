import CTurboJPEG
import Foundation
import TestSupport
import Testing

@testable import ActivationImaging

@Suite("Large photos: read at half size first, at full resolution around candidates")
struct LargePhotoTests {
    /// `image` as a grayscale JPEG (libjpeg-turbo).
    static func jpeg(_ image: GrayImage, quality: Int32 = 90) throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_GRAY.rawValue),
                &buffer, &size, Int32(TJSAMP_GRAY.rawValue), quality, 0)
        }
        defer { tjFree(buffer) }
        try #require(status == 0)
        let bytes = try #require(buffer)
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    }

    /// A 2600×1800 photo-sized image (4.7 MP): a light gradient (or noise, detail everywhere),
    /// and a QR code at (1000, 700) with `module`-pixel modules when `payload` is given.
    static func photo(code payload: String?, module: Int = 8, noise: Bool = false) throws -> GrayImage {
        let width = 2600
        let height = 1800
        var generator = SplitMix64(seed: 5)
        var pixels = (0..<width * height).map {
            noise ? UInt8.random(in: 0...255, using: &generator) : UInt8(180 + ($0 % width) * 60 / width)
        }
        if let payload {
            let code = try QRCodeEncoder().encode(Array(payload.utf8)).grayImage(scale: module, margin: 4)
            for y in 0..<code.height {
                for x in 0..<code.width { pixels[(700 + y) * width + 1000 + x] = code.pixels[y * code.width + x] }
            }
        }
        return try GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("libjpeg-turbo's half-size decode has the halved size (rounded up) and the same picture")
    func halfSizeDecode() throws {
        let full = try Self.photo(code: "half size")
        let bytes = try Self.jpeg(full)
        let half = try JPEGDecoder.decode(bytes, name: "photo.jpg", maxPixels: 100_000_000, reduction: 2)
        #expect(half.width == 1300 && half.height == 900)
        let odd = try JPEGDecoder.decode(
            Self.jpeg(GrayImage(width: 101, height: 51, pixels: [UInt8](repeating: 90, count: 101 * 51))),
            name: "odd.jpg", maxPixels: 100_000_000, reduction: 2)
        #expect(odd.width == 51 && odd.height == 26)
        // Against the full decode shrunk by block averages: the same picture within JPEG's noise.
        let shrunk = try ImageDecoder().decode(bytes, name: "photo.jpg").downsampled(by: 2)
        let difference = zip(half.pixels, shrunk.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(half.pixels.count) < 6)
        // The pixel limit is the full size's, whatever the reduction.
        #expect(throws: ImagingError.self) {
            try JPEGDecoder.decode(bytes, name: "photo.jpg", maxPixels: 2_000_000, reduction: 2)
        }
    }

    @Test(
        """
        the code of a large JPEG is read at half size, without decoding the full image; its corners are the full image's
        """
    )
    func readAtHalfSize() throws {
        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("code.jpg", Self.jpeg(Self.photo(code: "read at half size")))
        let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
        #expect(trace.symbols.map(\.text) == ["read at half size"])
        #expect(trace.pass == "zxing/once@half" && trace.attempts == 1)
        // The code (margin 4 modules of 8 pixels) starts at 1032, 732 of the full image.
        let corner = try #require(trace.symbols.first?.corners.first)
        #expect(abs(corner.x - 1032) <= 4 && abs(corner.y - 732) <= 4, "top left corner \(corner)")
    }

    @Test(
        """
        without a code or anything as dense in edges as one, the full image is never decoded: the pipeline reads the \
        half-size copy
        """
    )
    func nothingCodeLike() throws {
        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("nocode.jpg", Self.jpeg(Self.photo(code: nil)))
        let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
        #expect(trace.symbols.isEmpty)
        #expect(trace.timings.first?.pass == "zxing/once@half")
        #expect(
            trace.timings.count > 2 && trace.timings.allSatisfy { $0.pass.hasSuffix("@half") },
            "\(trace.timings.map(\.pass))")
    }

    @Test(
        """
        a code too small to read at half size is read at full resolution around it (the pipeline on the crop), with \
        the full image's corners
        """
    )
    func readAroundCandidates() throws {
        let photo = try Self.photo(code: "small in a large photo", module: 2)
        let half = photo.downsampled(by: 2)
        // At half size its modules are a pixel wide: the first pass cannot read it there.
        #expect(BarcodeScanner().decode(ScanPass.passes(for: .normal)[0], half)?.isEmpty == true)
        let regions = try #require(CodeEvidence.candidateRegions(in: half))
        #expect(regions.count == 1)
        let region = try #require(regions.first)
        // The code spans (1000, 700)…(1000 + 2 × (25 + 8), …) at full size: inside the region, with room.
        #expect(
            region.x * 2 < 1000 && region.y * 2 < 700 && (region.x + region.width) * 2 > 1066
                && (region.y + region.height) * 2 > 766)
        #expect(region.width * region.height < half.width * half.height / 20)

        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("small.jpg", Self.jpeg(photo))
        let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
        #expect(trace.symbols.map(\.text) == ["small in a large photo"])
        #expect(
            trace.pass == "zxing/once@candidates"
                && trace.timings.map(\.pass) == ["zxing/once@half", "zxing/once@candidates"])
        // The code's margin is 4 modules of 2 pixels: it starts at 1008, 708 of the full image.
        let corner = try #require(trace.symbols.first?.corners.first)
        #expect(abs(corner.x - 1008) <= 2 && abs(corner.y - 708) <= 2, "top left corner \(corner)")
    }

    @Test(
        """
        a large PNG and a large image in memory take the same way: half size first, then full resolution around the \
        candidates
        """
    )
    func largePNGAndMemory() throws {
        let photo = try Self.photo(code: "small in a large screenshot", module: 2)
        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("small.png", photo.png())
        for trace in [try BarcodeScanner().traceFile(path, stop: StopFlag()), BarcodeScanner().trace(photo)] {
            #expect(trace.symbols.map(\.text) == ["small in a large screenshot"])
            #expect(trace.timings.map(\.pass) == ["zxing/once@half", "zxing/once@candidates"])
            let corner = try #require(trace.symbols.first?.corners.first)
            #expect(abs(corner.x - 1008) <= 2 && abs(corner.y - 708) <= 2, "top left corner \(corner)")
        }
    }

    @Test(
        """
        scattered specks of detail are no candidates: past 64 separate parts the whole image is the candidate, before \
        any merging
        """
    )
    func scatteredSpecks() throws {
        // 100 specks 3 blocks apart in one corner: after widening they would merge into one part
        // of the corner, but so many separate parts is texture, and merging them costs their cube.
        var pixels = [UInt8](repeating: 128, count: 2000 * 1500)
        var generator = SplitMix64(seed: 7)
        for row in 0..<10 {
            for column in 0..<10 {
                for y in row * 48..<row * 48 + 16 {
                    for x in column * 48..<column * 48 + 16 {
                        pixels[y * 2000 + x] = UInt8.random(in: 0...255, using: &generator)
                    }
                }
            }
        }
        #expect(CodeEvidence.candidateRegions(in: try GrayImage(width: 2000, height: 1500, pixels: pixels)) == nil)
        // 40 of them are still candidates: one merged part around the corner.
        for y in 5 * 48..<1500 { for x in 0..<2000 { pixels[y * 2000 + x] = 128 } }
        for y in 0..<5 * 48 { for x in 8 * 48..<2000 { pixels[y * 2000 + x] = 128 } }
        let regions = try #require(
            CodeEvidence.candidateRegions(in: try GrayImage(width: 2000, height: 1500, pixels: pixels)))
        #expect(regions.count == 1)
    }

    @Test(
        """
        where detail is everywhere there are no candidates to single out: the full image is read whole, the rest at \
        half size
        """
    )
    func detailEverywhere() throws {
        let photo = try Self.photo(code: nil, noise: true)
        #expect(CodeEvidence.candidateRegions(in: photo.downsampled(by: 2)) == nil)
        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("noise.jpg", Self.jpeg(photo))
        let trace = try BarcodeScanner().traceFile(path, stop: StopFlag())
        #expect(trace.symbols.isEmpty)
        #expect(trace.timings.map(\.pass).prefix(2) == ["zxing/once@half", "zxing/once"])
        #expect(trace.timings.map(\.pass).dropFirst(2).allSatisfy { $0.hasSuffix("@half") })
    }

    @Test("small JPEGs and other formats are decoded in full; a damaged large JPEG fails as it would in full")
    func onlyLargeJPEG() throws {
        let decoder = ImageDecoder()
        #expect(
            try decoder.decodeHalfSize(
                ImageFixture.bytes("baseline.jpg"), name: "baseline.jpg", above: BarcodeScanner.reduceAbovePixels)
                == nil)
        #expect(try decoder.decodeHalfSize(ImageFixture.bytes("base.png"), name: "base.png", above: 0) == nil)
        let bytes = try Self.jpeg(Self.photo(code: nil))
        let truncated = Array(bytes.prefix(bytes.count / 2))
        #expect(throws: ImagingError.self) {
            try decoder.decodeHalfSize(truncated, name: "cut.jpg", above: BarcodeScanner.reduceAbovePixels)
        }
        let folder = try TemporaryFolder(prefix: "activate-photo")
        let path = try folder.write("cut.jpg", truncated)
        #expect(throws: ImagingError.self) { try BarcodeScanner().scanFile(path) }
    }
}
