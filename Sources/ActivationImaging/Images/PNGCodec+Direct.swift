internal import CDeflate

/// The direct path for the PNGs nearly every camera, screenshot tool and code generator writes:
/// not interlaced, at most 8 bits a sample, in sRGB. The chunks are read here, the image data is
/// inflated in one piece by libdeflate (twice zlib's speed), and each row is unfiltered and turned
/// to gray while it is in cache. libpng's simplified API spends most of a PNG's time in zlib and in
/// a scalar Paeth filter, then hands over RGB for a second pass; this path loads the public corpus
/// in about half the time (0.31 s against 0.58 s; benchmarks/README.md).
///
/// It gives exactly the pixels of ``PNGCodec/decode(_:name:maxPixels:)``'s libpng path (the same
/// luma, the same compositing onto white, the same gamma conversion; `PNGDirectTests` and the
/// `png` and `png-direct` fuzz targets compare the two), and it declines, with `nil`, every file
/// it does not take whole: interlaced or 16-bit images, transparency together with a gamma other
/// than sRGB's, any chunk out of order, with a bad CRC or of an unknown critical kind, image data
/// that does not inflate to exactly the image. libpng then decodes the file, or names what is
/// wrong with it.
///
/// A gamma other than sRGB's (ImageMagick writes 1/3.67 for a darkened copy) libpng converts
/// sample by sample. The direct path asks libpng how: it decodes a one-row PNG with the file's
/// own chunks and every sample value (``DirectLayout/convertingGamma(_:)``), a few microseconds
/// where libpng's conversion of the whole image costs several times the direct path's decoding.
extension PNGCodec {
    /// The most filtered image data the direct path inflates in one piece: 64 MiB, a 21-megapixel
    /// RGB image. Larger images stream through libpng, a row at a time.
    static let directLimit = 64 << 20

    /// The image, or `nil` when the file is not one the direct path takes (see above).
    ///
    /// - Throws: ``ImagingError`` `imageTooLarge` when the image has more than `maxPixels` pixels.
    ///
    /// `colour` reduces colour samples and palette entries (the tools' view: zbarimg's luma);
    /// `alpha` says what becomes of an alpha channel or a tRNS chunk.
    static func decodeDirect(
        _ bytes: [UInt8], name: String, maxPixels: Int, colour: ColourReduction = .rec601,
        alpha: AlphaHandling = .compositedOntoWhite
    ) throws -> GrayImage? {
        try readDirect(bytes, name: name, maxPixels: maxPixels, colour: colour, alpha: alpha)?.image
    }

    /// ``decodeDirect(_:name:maxPixels:colour:alpha:)``, and the file's unfiltered samples, from
    /// which ``DirectSamples/asStored(colour:)`` makes the tools' view without inflating and
    /// unfiltering the file again.
    static func readDirect(
        _ bytes: [UInt8], name: String, maxPixels: Int, colour: ColourReduction = .rec601,
        alpha: AlphaHandling = .compositedOntoWhite
    ) throws -> (image: GrayImage, samples: DirectSamples)? {
        guard var layout = DirectLayout(bytes) else { return nil }
        let asRead = layout
        try ImageDecoder.checkPixels(width: layout.width, height: layout.height, limit: maxPixels, name: name)
        if alpha == .dropped { layout.dropTransparency() }
        if layout.convertsGamma {
            guard let converted = layout.convertingGamma(bytes) else { return nil }
            layout = converted
        }
        let stride = rowBytes(width: layout.width, colorType: layout.colorType, bitDepth: layout.bitDepth)
        let (rawCount, overflow) = (stride + 1).multipliedReportingOverflow(by: layout.height)
        guard !overflow, rawCount <= directLimit else { return nil }

        var raw = [UInt8](repeating: 0, count: rawCount)
        guard inflate(bytes, layout.imageData, into: &raw) else { return nil }
        var gray = [UInt8](repeating: 0, count: layout.width * layout.height)
        let converted = raw.withUnsafeMutableBufferPointer { raw in
            gray.withUnsafeMutableBufferPointer { gray in
                convertRows(raw, stride: stride, into: gray, layout, colour: colour, alpha: alpha, unfiltered: false)
            }
        }
        guard converted else { return nil }
        return (
            GrayImage(unchecked: layout.width, layout.height, gray),
            DirectSamples(layout: asRead, stride: stride, unfiltered: raw)
        )
    }

    /// A PNG's samples as the direct path unfiltered them, each row after its filter byte.
    struct DirectSamples {
        /// The layout as read from the file: no gamma conversion learnt, transparency as stored.
        fileprivate let layout: DirectLayout
        fileprivate let stride: Int
        fileprivate let unfiltered: [UInt8]

        /// The image as ``PNGCodec/decodeAsStored(_:name:maxPixels:colour:samples:)`` decodes the file:
        /// the samples as stored (no gamma), alpha dropped, colour reduced by `colour`.
        func asStored(colour: ColourReduction) -> GrayImage {
            var layout = self.layout
            layout.gamma = nil
            layout.dropTransparency()
            var gray = [UInt8](repeating: 0, count: layout.width * layout.height)
            _ = unfiltered.withUnsafeBufferPointer { raw in
                gray.withUnsafeMutableBufferPointer { gray in
                    // Not written to: the rows are unfiltered already.
                    PNGCodec.convertRows(
                        UnsafeMutableBufferPointer(mutating: raw), stride: stride, into: gray, layout, colour: colour,
                        alpha: .dropped, unfiltered: true)
                }
            }
            return GrayImage(unchecked: layout.width, layout.height, gray)
        }
    }

    /// Inflates the zlib stream of the IDAT chunks into `raw`, which it must fill exactly.
    private static func inflate(_ bytes: [UInt8], _ parts: [Range<Int>], into raw: inout [UInt8]) -> Bool {
        guard let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        // One IDAT chunk (most encoders) inflates in place; several are joined first.
        let joined: [UInt8]? = parts.count == 1 ? nil : parts.reduce(into: []) { $0 += bytes[$1] }
        let range = parts.count == 1 ? parts[0] : 0..<(joined?.count ?? 0)
        let result = (joined ?? bytes).withUnsafeBufferPointer { input in
            raw.withUnsafeMutableBytes { output in
                // No size out: libdeflate then insists that the stream fills `output` exactly.
                libdeflate_zlib_decompress(
                    decompressor, input.baseAddress.map { $0 + range.lowerBound }, range.count,
                    output.baseAddress, output.count, nil)
            }
        }
        return result == LIBDEFLATE_SUCCESS
    }

    /// Unfilters each row of `raw` in place (unless it is `unfiltered` already, and then leaves
    /// it as it is) and writes its gray pixels; `false` on an unknown filter type.
    fileprivate static func convertRows(
        _ raw: UnsafeMutableBufferPointer<UInt8>, stride: Int,
        into gray: UnsafeMutableBufferPointer<UInt8>, _ layout: DirectLayout, colour: ColourReduction,
        alpha: AlphaHandling, unfiltered: Bool
    ) -> Bool {
        guard let raw = raw.baseAddress, let gray = gray.baseAddress else { return true }
        let width = layout.width
        let bytesPerPixel = max(1, layout.channels * layout.bitDepth / 8)
        let zeros = [UInt8](repeating: 0, count: stride)
        // An RGB row's samples as libpng shows them, where it converts a gamma: the stored row
        // stays as it is, the row below is unfiltered against it.
        var shownRow = [UInt8](repeating: 0, count: layout.shownChannels == nil ? 0 : stride)
        return zeros.withUnsafeBufferPointer { zeros in
            guard let zeros = zeros.baseAddress else { return false }
            let levels = layout.grayLevels(colour)
            return levels.withUnsafeBufferPointer { levels in
                var pairedRow = -1
                for y in 0..<layout.height {
                    let row = raw + (y &* (stride &+ 1) &+ 1)
                    let above = y == 0 ? zeros : UnsafePointer(row - (stride &+ 1))
                    if !unfiltered && y != pairedRow {
                        let next = row + (stride &+ 1)
                        if row[-1] == 4, y + 1 < layout.height, next[-1] == 4, bytesPerPixel == 3 || bytesPerPixel == 4
                        {
                            unfilterPaethPair(row, next, above: above, count: stride, bytesPerPixel: bytesPerPixel)
                            pairedRow = y + 1
                        } else {
                            guard
                                unfilter(
                                    row, above: above, count: stride, bytesPerPixel: bytesPerPixel, filter: row[-1])
                            else { return false }
                        }
                    }
                    let out = gray + (y &* width)
                    switch (layout.colorType, layout.bitDepth) {
                    case (2, _):
                        if let (red, green, blue) = layout.shownChannels {
                            shownRow.withUnsafeMutableBufferPointer { shown in
                                for x in 0..<width {
                                    let base = 3 &* x
                                    shown[base] = red[Int(row[base])]
                                    shown[base &+ 1] = green[Int(row[base &+ 1])]
                                    shown[base &+ 2] = blue[Int(row[base &+ 2])]
                                }
                                if let shown = shown.baseAddress {
                                    writeRGB(shown, out, width, transparent: nil, colour: colour)
                                }
                            }
                        } else {
                            writeRGB(row, out, width, transparent: layout.transparentRGB, colour: colour)
                        }
                    case (6, _):
                        writeRGBA(row, out, width, colour: colour, alpha: alpha)
                    case (4, _) where alpha == .dropped:
                        for x in 0..<width { out[x] = row[2 &* x] }
                    case (4, _):
                        for x in 0..<width { out[x] = composite(UInt32(row[2 &* x]), alpha: UInt32(row[2 &* x &+ 1])) }
                    case (_, 8):
                        // Gray or palette, a byte a pixel: the table says its gray.
                        for x in 0..<width { out[x] = levels[Int(row[x])] }
                    default:
                        // Gray or palette packed 1, 2 or 4 bits a pixel, the first in the high bits.
                        let depth = layout.bitDepth
                        let perByte = 8 / depth
                        let mask = (1 << depth) - 1
                        for x in 0..<width {
                            let shift = 8 &- depth &* (x % perByte &+ 1)
                            out[x] = levels[Int(row[x / perByte] >> shift) & mask]
                        }
                    }
                }
                return true
            }
        }
    }

    /// Reverses one row's filter (PNG specification, section 9) in place; `above` is the
    /// unfiltered row before it (zeros for the first).
    private static func unfilter(
        _ row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int,
        bytesPerPixel: Int, filter: UInt8
    ) -> Bool {
        switch filter {
        case 0:
            return true
        case 1:  // Sub: the byte a pixel to the left
            for i in Swift.stride(from: bytesPerPixel, to: count, by: 1) { row[i] &+= row[i &- bytesPerPixel] }
        case 2:  // Up: the byte above
            for i in 0..<count { row[i] &+= above[i] }
        case 3:  // Average of left and above
            for i in 0..<min(bytesPerPixel, count) { row[i] &+= above[i] >> 1 }
            for i in Swift.stride(from: bytesPerPixel, to: count, by: 1) {
                row[i] &+= UInt8(truncatingIfNeeded: (Int(row[i &- bytesPerPixel]) &+ Int(above[i])) >> 1)
            }
        case 4:  // Paeth: left, above or above-left, whichever is nearest to left + above − above-left
            for i in 0..<min(bytesPerPixel, count) { row[i] &+= above[i] }
            // Each byte depends on the one a pixel to its left: each channel is a chain, its left
            // and above-left bytes held in locals rather than reloaded from the bytes just stored.
            // RGB and RGBA (most photos) run their three or four chains side by side.
            if bytesPerPixel == 3 || bytesPerPixel == 4 {
                let alpha = bytesPerPixel == 4
                var left0 = Int(row[0])
                var left1 = Int(row[1])
                var left2 = Int(row[2])
                var left3 = alpha ? Int(row[3]) : 0
                var corner0 = Int(above[0])
                var corner1 = Int(above[1])
                var corner2 = Int(above[2])
                var corner3 = alpha ? Int(above[3]) : 0
                var i = bytesPerPixel
                while i < count {
                    let up0 = Int(above[i])
                    let up1 = Int(above[i &+ 1])
                    let up2 = Int(above[i &+ 2])
                    left0 = (Int(row[i]) &+ paeth(left0, up0, corner0)) & 0xFF
                    left1 = (Int(row[i &+ 1]) &+ paeth(left1, up1, corner1)) & 0xFF
                    left2 = (Int(row[i &+ 2]) &+ paeth(left2, up2, corner2)) & 0xFF
                    row[i] = UInt8(truncatingIfNeeded: left0)
                    row[i &+ 1] = UInt8(truncatingIfNeeded: left1)
                    row[i &+ 2] = UInt8(truncatingIfNeeded: left2)
                    corner0 = up0
                    corner1 = up1
                    corner2 = up2
                    if alpha {
                        let up3 = Int(above[i &+ 3])
                        left3 = (Int(row[i &+ 3]) &+ paeth(left3, up3, corner3)) & 0xFF
                        row[i &+ 3] = UInt8(truncatingIfNeeded: left3)
                        corner3 = up3
                    }
                    i &+= bytesPerPixel
                }
            } else {
                for channel in 0..<min(bytesPerPixel, count) {
                    var left = Int(row[channel])
                    var corner = Int(above[channel])
                    var i = channel &+ bytesPerPixel
                    while i < count {
                        let up = Int(above[i])
                        left = (Int(row[i]) &+ paeth(left, up, corner)) & 0xFF
                        row[i] = UInt8(truncatingIfNeeded: left)
                        corner = up
                        i &+= bytesPerPixel
                    }
                }
            }
        default:
            return false
        }
        return true
    }

    /// Reverses the Paeth filter of two rows in a row, `first` and `second`, of RGB or RGBA
    /// pixels. Each pixel waits for the one to its left, which makes one row a chain of
    /// dependent steps; the second row's pixel x needs only the first row's pixels up to x, so
    /// the two rows advance together, two chains side by side, each pixel's channels in the
    /// lanes of one vector.
    private static func unfilterPaethPair(
        _ first: UnsafeMutablePointer<UInt8>, _ second: UnsafeMutablePointer<UInt8>,
        above: UnsafePointer<UInt8>, count: Int, bytesPerPixel: Int
    ) {
        let alpha = bytesPerPixel == 4
        @inline(__always) func pixel(_ bytes: UnsafePointer<UInt8>, _ at: Int) -> SIMD4<Int16> {
            SIMD4(Int16(bytes[at]), Int16(bytes[at &+ 1]), Int16(bytes[at &+ 2]), alpha ? Int16(bytes[at &+ 3]) : 0)
        }
        @inline(__always) func store(_ value: SIMD4<Int16>, _ bytes: UnsafeMutablePointer<UInt8>, _ at: Int) {
            bytes[at] = UInt8(truncatingIfNeeded: value[0])
            bytes[at &+ 1] = UInt8(truncatingIfNeeded: value[1])
            bytes[at &+ 2] = UInt8(truncatingIfNeeded: value[2])
            if alpha { bytes[at &+ 3] = UInt8(truncatingIfNeeded: value[3]) }
        }
        @inline(__always) func predict(_ left: SIMD4<Int16>, _ up: SIMD4<Int16>, _ corner: SIMD4<Int16>) -> SIMD4<Int16>
        {
            let p = up &- corner
            let q = left &- corner
            let r = p &+ q
            let toLeft = pointwiseMax(p, 0 &- p)
            let toUp = pointwiseMax(q, 0 &- q)
            let toCorner = pointwiseMax(r, 0 &- r)
            return corner.replacing(with: up, where: toUp .<= toCorner).replacing(
                with: left, where: (toLeft .<= toUp) .& (toLeft .<= toCorner))
        }
        // The first pixel of each row has no left or corner: its prediction is the pixel above.
        var firstLeft = (pixel(first, 0) &+ pixel(above, 0)) & 0xFF
        store(firstLeft, first, 0)
        var firstCorner = pixel(above, 0)
        var secondLeft = (pixel(second, 0) &+ firstLeft) & 0xFF
        store(secondLeft, second, 0)
        var secondCorner = firstLeft
        var i = bytesPerPixel
        while i < count {
            // The second row's pixel waits for the first row's above it, made in this same step,
            // not for the first row's next: the processor runs the two chains overlapped.
            let up = pixel(above, i)
            firstLeft = (pixel(first, i) &+ predict(firstLeft, up, firstCorner)) & 0xFF
            store(firstLeft, first, i)
            firstCorner = up
            secondLeft = (pixel(second, i) &+ predict(secondLeft, firstLeft, secondCorner)) & 0xFF
            store(secondLeft, second, i)
            secondCorner = firstLeft
            i &+= bytesPerPixel
        }
    }

    /// The Paeth predictor: `left`, `up` or `corner`, whichever is nearest to left + up − corner
    /// (ties in that order). Written as selects, not branches: on noise the choice is a coin toss.
    @inline(__always)
    private static func paeth(_ left: Int, _ up: Int, _ corner: Int) -> Int {
        let p = up &- corner
        let q = left &- corner
        let r = p &+ q
        let toLeft = p < 0 ? 0 &- p : p
        let toUp = q < 0 ? 0 &- q : q
        let toCorner = r < 0 ? 0 &- r : r
        let upOrCorner = toUp <= toCorner ? up : corner
        return toLeft <= toUp && toLeft <= toCorner ? left : upOrCorner
    }

    /// The samples of a pixel of each colour type: gray 1, RGB 3, palette index 1, gray and alpha
    /// 2, RGBA 4.
    static func channels(colorType: Int) -> Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }

    /// The bytes of a row's samples, without its filter byte.
    static func rowBytes(width: Int, colorType: Int, bitDepth: Int) -> Int {
        (width * channels(colorType: colorType) * bitDepth + 7) / 8
    }

    /// Rec. 601 luma of stored values, rounded, as zbar's and zxing-cpp's own conversions reduce
    /// colour (both paths; ``ColourReduction/rec601``).
    @inline(__always)
    static func luma(_ red: UInt32, _ green: UInt32, _ blue: UInt32) -> UInt32 {
        (299 &* red &+ 587 &* green &+ 114 &* blue &+ 500) / 1000
    }

    /// A gray level with this alpha, composited onto white, rounded (both paths).
    @inline(__always)
    static func composite(_ value: UInt32, alpha: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (value &* alpha &+ 255 &* (255 &- alpha) &+ 127) / 255)
    }

    private static func writeRGB(
        _ row: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ width: Int,
        transparent: (UInt8, UInt8, UInt8)?, colour: ColourReduction
    ) {
        colour.reduce(rgb: row, into: out, count: width)
        // A tRNS colour: the pixels of exactly that colour are transparent, so white.
        guard let (red, green, blue) = transparent else { return }
        for x in 0..<width where row[3 &* x] == red && row[3 &* x &+ 1] == green && row[3 &* x &+ 2] == blue {
            out[x] = 255
        }
    }

    private static func writeRGBA(
        _ row: UnsafeMutablePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ width: Int,
        colour: ColourReduction, alpha: AlphaHandling
    ) {
        for x in 0..<width {
            let base = 4 &* x
            let value = colour.gray(UInt32(row[base]), UInt32(row[base &+ 1]), UInt32(row[base &+ 2]))
            out[x] =
                alpha == .dropped
                ? UInt8(truncatingIfNeeded: value) : composite(value, alpha: UInt32(row[base &+ 3]))
        }
    }
}

/// What the direct path needs of a PNG's chunks, when it takes the file (``PNGCodec/decodeDirect``).
struct DirectLayout {
    var width = 0, height = 0, bitDepth = 0, colorType = 0
    /// Where the IDAT chunks' data lie in the file, in order.
    var imageData: [Range<Int>] = []
    /// PLTE as (red, green, blue) entries.
    var palette: [(UInt8, UInt8, UInt8)] = []
    /// tRNS: the alpha of each palette entry (the rest opaque), the transparent gray sample, or
    /// the transparent colour.
    var paletteAlpha: [UInt8] = []
    var transparentGray: Int?
    var transparentRGB: (UInt8, UInt8, UInt8)?
    /// The gAMA chunk's value (gamma × 100,000), if there is one.
    var gamma: Int?
    /// The chunks between IHDR and the image data, in order: what a probe of the file's gamma
    /// conversion copies (``convertingGamma(_:)``).
    var chunks: [(type: String, data: Range<Int>)] = []
    /// Where libpng converts the gamma: the level it shows for each gray sample value, or the
    /// value for each colour sample, by channel (``convertingGamma(_:)``).
    var shownGray: [UInt8]?
    var shownChannels: (red: [UInt8], green: [UInt8], blue: [UInt8])?

    var channels: Int { PNGCodec.channels(colorType: colorType) }

    /// Forgets a tRNS chunk's alpha entries, gray level or colour: each pixel is then the colour
    /// stored (the tools' view, alpha dropped). An alpha channel the caller ignores itself.
    mutating func dropTransparency() {
        paletteAlpha = []
        transparentGray = nil
        transparentRGB = nil
    }

    /// Whether libpng converts the samples: a gamma other than sRGB's.
    var convertsGamma: Bool { gamma.map { !Self.sRGBGamma.contains($0) } ?? false }

    /// The gamma values libpng treats as sRGB's 1/2.2 (and so does not convert): within 5 % of it
    /// (png_gamma_not_sRGB). Any other makes libpng re-encode the samples, so the file goes there.
    static let sRGBGamma = 43_182...47_727

    /// Reads the chunks; `nil` when the direct path does not take the file.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual(PNGCodec.signature) else { return nil }
        func integer(_ at: Int) -> Int { PNGCodec.integer(bytes, at: at) }
        var offset = 8
        var ended = false
        var seen: Set<String> = []
        var previous = ""
        while !ended {
            guard offset + 12 <= bytes.count else { return nil }
            let length = integer(offset)
            guard length < 1 << 31, length <= bytes.count - offset - 12 else { return nil }
            let typeBytes = bytes[offset + 4..<offset + 8]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let data = offset + 8..<offset + 8 + length
            let crc = bytes.withUnsafeBufferPointer {
                libdeflate_crc32(0, $0.baseAddress.map { $0 + offset + 4 }, length + 4)
            }
            guard crc == UInt32(integer(data.upperBound)) else { return nil }
            // IHDR first; PLTE, tRNS and gAMA once each, before the image data, which comes in
            // one run of IDAT chunks.
            guard seen.isEmpty == (type == "IHDR") else { return nil }
            if ["IHDR", "PLTE", "tRNS", "gAMA"].contains(type) {
                guard seen.insert(type).inserted, imageData.isEmpty else { return nil }
            }
            guard type != "IDAT" || imageData.isEmpty || previous == "IDAT" else { return nil }
            switch type {
            case "IHDR":
                guard length == 13 else { return nil }
                width = integer(data.lowerBound)
                height = integer(data.lowerBound + 4)
                bitDepth = Int(bytes[data.lowerBound + 8])
                colorType = Int(bytes[data.lowerBound + 9])
                // Compression 0, filter method 0, no interlace: anything else is libpng's to judge.
                // libpng's own limits on either side (PNG_USER_WIDTH_MAX, PNG_USER_HEIGHT_MAX).
                guard (1...1_000_000).contains(width), (1...1_000_000).contains(height),
                    bytes[data.lowerBound + 10] == 0, bytes[data.lowerBound + 11] == 0, bytes[data.lowerBound + 12] == 0
                else { return nil }
                switch colorType {
                case 0, 3: guard [1, 2, 4, 8].contains(bitDepth) else { return nil }
                case 2, 4, 6: guard bitDepth == 8 else { return nil }
                default: return nil
                }
            case "PLTE":
                guard !seen.contains("tRNS"), length % 3 == 0, length > 0, colorType != 0, colorType != 4,
                    length / 3 <= (colorType == 3 ? 1 << bitDepth : 256)
                else { return nil }
                palette = Swift.stride(from: data.lowerBound, to: data.upperBound, by: 3).map {
                    (bytes[$0], bytes[$0 + 1], bytes[$0 + 2])
                }
            case "tRNS":
                switch colorType {
                case 0:
                    guard length == 2 else { return nil }
                    // Masked to the bit depth as libpng does (png_do_expand): an out-of-range
                    // level names the level of its low bits.
                    transparentGray =
                        (Int(bytes[data.lowerBound]) << 8 | Int(bytes[data.lowerBound + 1])) & ((1 << bitDepth) - 1)
                case 2:
                    guard length == 6 else { return nil }
                    // The low byte of each 16-bit sample, as libpng compares them.
                    func sample(_ index: Int) -> UInt8 { bytes[data.lowerBound + 2 * index + 1] }
                    transparentRGB = (sample(0), sample(1), sample(2))
                case 3:
                    guard !palette.isEmpty, length > 0, length <= palette.count else { return nil }
                    paletteAlpha = Array(bytes[data])
                default:
                    return nil
                }
            case "gAMA":
                guard length == 4 else { return nil }
                gamma = integer(data.lowerBound)
            case "IDAT":
                imageData.append(data)
            case "IEND":
                ended = true
            default:
                // Ancillary chunks (text, time, physical size, colour profiles) change no pixel;
                // an unknown critical one is libpng's to refuse.
                guard typeBytes.first.map({ $0 >= 0x61 }) == true else { return nil }
            }
            if type != "IHDR" && imageData.isEmpty && !ended { chunks.append((type, data)) }
            previous = type
            offset = data.upperBound + 4
        }
        guard !imageData.isEmpty, colorType != 3 || !palette.isEmpty else { return nil }
    }

    /// The gray level of each sample value (gray) or index (palette, its colour reduced by
    /// `colour`), tRNS composited onto white; 256 entries, so that any byte indexes it.
    func grayLevels(_ colour: ColourReduction = .rec601) -> [UInt8] {
        var levels = [UInt8](repeating: 0, count: 256)
        let maximum = (1 << bitDepth) - 1
        for value in 0...255 {
            if colorType == 3 {
                // Indices past the palette read as opaque black, as libpng's zeroed 256-entry palette does.
                guard value < palette.count else { continue }
                let (red, green, blue) = palette[value]
                let gray = colour.gray(UInt32(red), UInt32(green), UInt32(blue))
                levels[value] = PNGCodec.composite(
                    gray, alpha: value < paletteAlpha.count ? UInt32(paletteAlpha[value]) : 255)
            } else if value <= maximum {
                levels[value] = value == transparentGray ? 255 : shownGray?[value] ?? UInt8(value * 255 / maximum)
            }
        }
        return levels
    }

    /// This layout with libpng's gamma conversion of each sample value or palette entry
    /// (``shownGray``, ``shownChannels``, the palette as shown), read off a one-row PNG with the
    /// file's own chunks before the image data and every value once, which libpng decodes:
    /// whatever it makes of the gAMA chunk (and of any other chunk beside it), it makes of the
    /// probe's samples too. `nil` (the file is libpng's) where transparency comes with the gamma:
    /// libpng converts such pixels by more than their samples.
    ///
    /// - Parameter bytes: the file this layout was read from.
    func convertingGamma(_ bytes: [UInt8]) -> DirectLayout? {
        guard [0, 2, 3].contains(colorType), bitDepth <= 8 else { return nil }
        let count = colorType == 0 ? 1 << bitDepth : colorType == 2 ? 256 : palette.count
        guard count > 0 else { return nil }
        // Every value once, in order, packed as the file packs its samples.
        var row: [UInt8]
        if colorType == 2 {
            row = (0..<256).flatMap { [UInt8($0), UInt8($0), UInt8($0)] }
        } else if bitDepth == 8 {
            row = (0..<count).map { UInt8($0) }
        } else {
            row = [UInt8](repeating: 0, count: (count * bitDepth + 7) / 8)
            for value in 0..<count {
                let bit = value * bitDepth
                row[bit / 8] |= UInt8(value << (8 - bitDepth - bit % 8))
            }
        }
        guard let imageData = try? PNGCodec.imageData([0] + row, level: 1) else { return nil }
        let probe = PNGCodec.file(
            width: count, height: 1, bitDepth: UInt8(bitDepth), colorType: UInt8(colorType),
            chunks: chunks.map { (type: $0.type, data: Array(bytes[$0.data])) }, imageData: imageData)
        guard let shown = try? PNGCodec.libpngSamples(probe, name: "probe", maxPixels: count), !shown.hasAlpha,
            shown.samples.count == count * (shown.isColour ? 3 : 1), shown.isColour == (colorType != 0)
        else { return nil }
        var layout = self
        layout.gamma = nil
        switch colorType {
        case 0:
            layout.shownGray = shown.samples
        case 2:
            layout.shownChannels = (
                Swift.stride(from: 0, to: 768, by: 3).map { shown.samples[$0] },
                Swift.stride(from: 1, to: 768, by: 3).map { shown.samples[$0] },
                Swift.stride(from: 2, to: 768, by: 3).map { shown.samples[$0] }
            )
        default:
            layout.palette = (0..<count).map {
                (shown.samples[3 * $0], shown.samples[3 * $0 + 1], shown.samples[3 * $0 + 2])
            }
        }
        return layout
    }
}
