internal import CPNG
internal import CZlib

/// PNG through libpng's simplified `png_image_*` API, which reports errors by return value
/// (no setjmp) and converts every bit depth, palette and colour type for us.
enum PNGCodec {
    /// Decodes any PNG to 8-bit gray; transparent pixels are composited onto white, because a
    /// transparent QR code is dark modules on nothing and is meant to be read on a light page.
    ///
    /// Colour is reduced to luma with the Rec. 601 weights on the stored (gamma-encoded) values,
    /// as zbar's and zxing-cpp's own conversions do, rather than libpng's linear-light conversion,
    /// which darkens mid-tones and costs reads on photos.
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> GrayImage {
        if let image = try decodeDirect(bytes, name: name, maxPixels: maxPixels) { return image }
        return try decodeWithLibPNG(bytes, name: name, maxPixels: maxPixels)
    }

    /// A PNG's pixels as zbarimg (ImageMagick) or ZXingReader (stb_image) decodes them, where that
    /// differs from ``decode(_:name:maxPixels:)``: the samples as stored, without the gamma of a
    /// gAMA chunk (which libpng applies, as the PNG standard asks, and they ignore), with any
    /// alpha dropped instead of composited onto white (a pixel of alpha 254 is the colour stored to
    /// them), and colour reduced as the tool reduces it (`colour`). `nil` when the two are the
    /// same: no alpha, no tRNS, no gamma other than sRGB's, and gray or reduced as ours.
    ///
    /// `samples`, the direct path's unfiltered samples of the same file, make it without
    /// decoding the file again.
    static func decodeAsStored(
        _ bytes: [UInt8], name: String, maxPixels: Int, colour: ColourReduction = .rec601,
        samples: DirectSamples? = nil
    ) throws -> GrayImage? {
        guard let chunks = ChunkSummary(bytes), chunks.hasOwnView(colour) else { return nil }
        if let samples { return samples.asStored(colour: colour) }
        let stored = chunks.withoutGamma(bytes)
        // No gAMA chunk left: the samples as stored, their alpha dropped.
        if let image = try decodeDirect(stored, name: name, maxPixels: maxPixels, colour: colour, alpha: .dropped) {
            return image
        }
        return try decodeWithLibPNG(stored, name: name, maxPixels: maxPixels, alpha: .dropped, colour: colour)
    }

    /// ``decode(_:name:maxPixels:)``, and the tools' view of the file
    /// (``decodeAsStored(_:name:maxPixels:colour:samples:)``) made when asked: from the same
    /// decoding's unfiltered samples where the direct path read a file of at most `keepingUpTo`
    /// pixels that has a view of its own (the samples are kept until then: three bytes a pixel for
    /// RGB), else from the file.
    static func decodeKeepingSamples(_ bytes: [UInt8], name: String, maxPixels: Int, keepingUpTo: Int) throws -> (
        image: GrayImage, asStored: (ColourReduction) throws -> GrayImage?
    ) {
        guard let read = try readDirect(bytes, name: name, maxPixels: maxPixels) else {
            return (
                try decodeWithLibPNG(bytes, name: name, maxPixels: maxPixels),
                { try decodeAsStored(bytes, name: name, maxPixels: maxPixels, colour: $0) }
            )
        }
        // Kept only where some tool's view differs from ours (colour, alpha, another gamma): a
        // gray code's buffer is freed at once, as a decoding without views frees it.
        let differs =
            ChunkSummary(bytes).map { chunks in
                ImageDecoder.ReaderTool.allCases.contains { chunks.hasOwnView($0.colourReduction) }
            } ?? false
        let samples = differs && read.image.width * read.image.height <= keepingUpTo ? read.samples : nil
        return (
            read.image, { try decodeAsStored(bytes, name: name, maxPixels: maxPixels, colour: $0, samples: samples) }
        )
    }

    /// What becomes of a PNG's alpha in the gray image.
    enum AlphaHandling {
        /// Composited onto white (``decode(_:name:maxPixels:)``).
        case compositedOntoWhite
        /// Ignored: each pixel is the colour stored (``decodeAsStored(_:name:maxPixels:)``).
        case dropped
    }

    /// The libpng path of ``decode(_:name:maxPixels:)``: every PNG the direct path declines.
    static func decodeWithLibPNG(
        _ bytes: [UInt8], name: String, maxPixels: Int, alpha: AlphaHandling = .compositedOntoWhite,
        colour: ColourReduction = .rec601
    ) throws -> GrayImage {
        let shown = try libpngSamples(bytes, name: name, maxPixels: maxPixels)
        // Plain gray (every generated code): libpng's samples are the pixels.
        guard shown.isColour || shown.hasAlpha else {
            return GrayImage(unchecked: shown.width, shown.height, shown.samples)
        }
        let channels = (shown.isColour ? 3 : 1) + (shown.hasAlpha ? 1 : 0)
        var gray = [UInt8](repeating: 255, count: shown.width * shown.height)
        gray.withUnsafeMutableBufferPointer { out in
            shown.samples.withUnsafeBufferPointer { source in
                for index in 0..<out.count {
                    let base = index * channels
                    let value =
                        shown.isColour
                        ? colour.gray(UInt32(source[base]), UInt32(source[base + 1]), UInt32(source[base + 2]))
                        : UInt32(source[base])
                    out[index] =
                        shown.hasAlpha && alpha == .compositedOntoWhite
                        ? composite(value, alpha: UInt32(source[base + channels - 1]))
                        : UInt8(truncatingIfNeeded: value)
                }
            }
        }
        return GrayImage(unchecked: shown.width, shown.height, gray)
    }

    /// A PNG's 8-bit samples as libpng's simplified API shows them (a gAMA chunk's gamma turned
    /// into sRGB's): gray, gray and alpha, RGB or RGBA, whichever holds what the file holds (most
    /// photos are plain RGB: nothing to blend).
    static func libpngSamples(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> (
        width: Int, height: Int, samples: [UInt8], isColour: Bool, hasAlpha: Bool
    ) {
        try checkChunkLengths(bytes, name: name)
        // libpng keeps the pointer from begin_read until finish_read: both run inside one closure.
        return try bytes.withUnsafeBytes { raw in
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            defer { png_image_free(&image) }
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                throw failure(&image, name)
            }
            let width = Int(image.width)
            let height = Int(image.height)
            try ImageDecoder.checkPixels(width: width, height: height, limit: maxPixels, name: name)
            let isColour = image.format & png_uint_32(PNG_FORMAT_FLAG_COLOR) != 0
            let hasAlpha = image.format & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
            image.format =
                (isColour ? png_uint_32(PNG_FORMAT_FLAG_COLOR) : 0)
                | (hasAlpha ? png_uint_32(PNG_FORMAT_FLAG_ALPHA) : 0)
            var samples = [UInt8](repeating: 0, count: width * height * ((isColour ? 3 : 1) + (hasAlpha ? 1 : 0)))
            let finished = samples.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            guard finished != 0 else { throw failure(&image, name) }
            return (width, height, samples, isColour, hasAlpha)
        }
    }

    /// Refuses a PNG with a chunk, before IEND, that claims more bytes than the file has left.
    /// libpng would refuse it too, but only after allocating the claimed length for a text chunk
    /// (up to 2 GiB, for a file of a few hundred bytes).
    ///
    /// - Throws: ``ImagingError`` `corruptImage`, naming the chunk.
    static func checkChunkLengths(_ bytes: [UInt8], name: String) throws {
        guard bytes.count >= 8, bytes[0..<8].elementsEqual(signature) else { return }  // libpng names it
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = integer(bytes, at: offset)
            let type = String(
                decoding: bytes[offset + 4..<offset + 8].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
            guard length <= bytes.count - offset - 12 else {
                throw ImagingError(
                    .corruptImage, source: name,
                    "PNG is damaged or truncated (its \(type) chunk claims \(length) bytes, more than the file has left)"
                )
            }
            if type == "IEND" { return }
            offset += 12 + length
        }
    }

    /// Encodes an 8-bit gray image as PNG.
    static func encode(_ gray: GrayImage) throws -> [UInt8] {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(gray.width)
        image.height = png_uint_32(gray.height)
        image.format = png_uint_32(PNG_FORMAT_GRAY)
        defer { png_image_free(&image) }
        var size: png_alloc_size_t = 0
        // First call measures, second call writes.
        let measured = gray.pixels.withUnsafeBytes {
            png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil)
        }
        guard measured != 0, size > 0 else { throw failure(&image, "png") }
        var output = [UInt8](repeating: 0, count: Int(size))
        let written = gray.pixels.withUnsafeBytes { pixels in
            output.withUnsafeMutableBytes {
                png_image_write_to_memory(&image, $0.baseAddress, &size, 0, pixels.baseAddress, 0, nil)
            }
        }
        guard written != 0 else { throw failure(&image, "png") }
        return Array(output.prefix(Int(size)))
    }

    /// A 1-bit gray PNG from filtered rows (each a filter byte and the packed bits). libpng's
    /// simplified API writes only 8-bit images, so the few chunks are written here, with zlib.
    static func encodeBilevel(width: Int, height: Int, rows: [UInt8]) throws -> [UInt8] {
        // Level 2: a fifth of level 6's time (the long zero runs of repeated rows make zlib's
        // deeper match search slow) for a file about 30 % larger, still under 2 KB for a typical code.
        try file(width: width, height: height, bitDepth: 1, colorType: 0, imageData: imageData(rows, level: 2))
    }

    /// Filtered rows as a PNG's image data: a zlib stream, at zlib's compression `level`.
    ///
    /// - Throws: ``ImagingError`` `libraryFailure` when zlib fails.
    static func imageData(_ rows: [UInt8], level: Int32) throws -> [UInt8] {
        var compressedSize = compressBound(uLong(rows.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        let status = compressed.withUnsafeMutableBufferPointer { output in
            rows.withUnsafeBufferPointer {
                compress2(output.baseAddress, &compressedSize, $0.baseAddress, uLong($0.count), level)
            }
        }
        guard status == Z_OK else {
            throw ImagingError(.libraryFailure, source: "png", "zlib could not compress the image (\(status))")
        }
        return Array(compressed.prefix(Int(compressedSize)))
    }

    /// A PNG file from its parts: the IHDR fields, the chunks between IHDR and the image data
    /// (PLTE, tRNS…), and the zlib-compressed, filtered image data, cut into `imageChunks` IDAT
    /// chunks. ``encodeBilevel(width:height:rows:)`` writes its files with it, the tests and the
    /// fuzz targets their PNGs of every layout.
    static func file(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, interlace: UInt8 = 0,
        chunks: [(type: String, data: [UInt8])] = [], imageData: [UInt8], imageChunks: Int = 1
    ) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] {
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            let body = Array(type.utf8) + data
            file += bigEndian(data.count) + body
            file += bigEndian(Int(body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }))
        }
        // Deflate compression, filter method 0.
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, interlace])
        for (type, data) in chunks { chunk(type, data) }
        let size = max(1, (imageData.count + imageChunks - 1) / max(1, imageChunks))
        for start in stride(from: 0, to: max(1, imageData.count), by: size) {
            chunk("IDAT", Array(imageData[start..<min(imageData.count, start + size)]))
        }
        chunk("IEND", [])
        return file
    }

    /// Decodes a 1-bit gray PNG of exactly `width`×`height` pixels straight to 8-bit gray shrunk by
    /// `factor` (each output pixel the mean of a `factor`×`factor` block, as
    /// ``GrayImage/downsampled(by:)``), without widening the full-size image first: how a generated
    /// code is read back. `nil` when the file is a valid PNG of another kind or size.
    static func decodeBilevel(_ bytes: [UInt8], width: Int, height: Int, shrinkingBy factor: Int, name: String) throws
        -> GrayImage?
    {
        let factor = max(1, factor)
        guard width >= factor, height >= factor, width <= 10_000, height <= 10_000 else { return nil }
        let rowBytes = (width + 7) / 8
        var rows = [UInt8](repeating: 0, count: rowBytes * height)
        let status = bytes.withUnsafeBufferPointer { data in
            rows.withUnsafeMutableBufferPointer {
                activate_png_read_bilevel(data.baseAddress, data.count, $0.baseAddress, UInt32(width), UInt32(height))
            }
        }
        guard status >= 0 else { throw ImagingError(.corruptImage, source: name, "PNG is damaged or truncated") }
        guard status == 1 else { return nil }

        let newWidth = width / factor
        let newHeight = height / factor
        let area = factor * factor
        var output = [UInt8](repeating: 0, count: newWidth * newHeight)
        // For a factor that divides 8: the white pixels of each block of each byte value.
        let perByte = 8 % factor == 0 ? 8 / factor : 0
        let counts: [UInt8] =
            perByte == 0
            ? []
            : (0..<256 * perByte).map { index in
                let byte = UInt8(index / perByte)
                let group = index % perByte
                return UInt8(((byte << UInt8(group * factor)) >> UInt8(8 - factor)).nonzeroBitCount)
            }
        // The gray level of a block with n white pixels (no division per pixel).
        let levels = (0...area).map { UInt8($0 * 255 / area) }
        rows.withUnsafeBufferPointer { rows in
            counts.withUnsafeBufferPointer { counts in
                output.withUnsafeMutableBufferPointer { output in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: newWidth) { whites in
                        guard let first = rows.baseAddress else { return }
                        for y in 0..<newHeight {
                            whites.initialize(repeating: 0)
                            for row in y * factor..<(y + 1) * factor {
                                let line = first + row * rowBytes
                                if perByte > 0 {
                                    // Blocks that tile bytes (factor 1, 2, 4 or 8): a table lookup per block.
                                    var byte = 0
                                    var group = 0
                                    for x in 0..<newWidth {
                                        whites[x] &+= Int(counts[Int(line[byte]) &* perByte &+ group])
                                        group &+= 1
                                        if group == perByte {
                                            group = 0
                                            byte &+= 1
                                        }
                                    }
                                } else {
                                    var pixel = 0
                                    for x in 0..<newWidth {
                                        // The block's pixels in this row, a byte's worth at a time.
                                        var count = 0
                                        var next = pixel
                                        let end = pixel &+ factor
                                        while next < end {
                                            let offset = next & 7
                                            let take = min(8 &- offset, end &- next)
                                            // Shift out the pixels before `next` (the high bits), keep the next `take`.
                                            count &+= Int(
                                                ((line[next >> 3] << UInt8(offset)) >> UInt8(8 &- take)).nonzeroBitCount
                                            )
                                            next &+= take
                                        }
                                        whites[x] &+= count
                                        pixel = end
                                    }
                                }
                            }
                            for x in 0..<newWidth { output[y &* newWidth &+ x] = levels[whites[x]] }
                        }
                    }
                }
            }
        }
        return GrayImage(unchecked: newWidth, newHeight, output)
    }

    /// The chunks of a PNG that make its stored samples differ from how libpng shows them.
    struct ChunkSummary {
        /// An alpha channel (gray or colour with alpha) or a tRNS chunk.
        var hasAlpha = false
        /// A gAMA chunk that libpng converts (not within 5 % of sRGB's 1/2.2, see `DirectLayout`).
        var hasOtherGamma = false
        /// Colour samples (colour types 2 and 6) or a palette (3).
        var isColour = false
        /// Where the gAMA chunks lie, whole (length, type, data and CRC).
        var gammaChunks: [Range<Int>] = []

        /// `nil` when `bytes` is no PNG with an IHDR chunk first; libpng judges the rest.
        init?(_ bytes: [UInt8]) {
            guard bytes.count >= 33, bytes[0..<8].elementsEqual(PNGCodec.signature) else { return nil }
            var offset = 8
            while offset + 12 <= bytes.count {
                let length = PNGCodec.integer(bytes, at: offset)
                guard length <= bytes.count - offset - 12 else { break }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                let data = offset + 8
                switch type {
                case "IHDR" where offset == 8 && length == 13:
                    hasAlpha = [4, 6].contains(bytes[data + 9])
                    isColour = [2, 3, 6].contains(bytes[data + 9])
                case "tRNS":
                    hasAlpha = true
                case "gAMA" where length == 4:
                    hasOtherGamma = hasOtherGamma || !DirectLayout.sRGBGamma.contains(PNGCodec.integer(bytes, at: data))
                    gammaChunks.append(offset..<data + length + 4)
                case "IDAT", "IEND":
                    return  // the chunks that change how samples show come before the image data
                default:
                    guard offset > 8 else { return nil }
                }
                offset = data + length + 4
            }
        }

        /// Whether a tool that reduces colour by `colour` sees the file otherwise than libpng shows it:
        /// alpha or tRNS (dropped by the tool), a gamma libpng converts (ignored by the tool), or
        /// colour reduced otherwise than ours.
        func hasOwnView(_ colour: ColourReduction) -> Bool {
            hasAlpha || hasOtherGamma || (isColour && colour != .rec601)
        }

        /// `bytes` without their gAMA chunks: libpng then takes the samples as sRGB and leaves them.
        func withoutGamma(_ bytes: [UInt8]) -> [UInt8] {
            var result = bytes
            for chunk in gammaChunks.reversed() { result.removeSubrange(chunk) }
            return result
        }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The big-endian 32-bit integer at `offset` (chunk lengths, sizes, CRCs); the caller checks
    /// that four bytes are there.
    static func integer(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    private static func failure(_ image: inout png_image, _ name: String) -> ImagingError {
        let message = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ImagingError(
            .corruptImage, source: name, "PNG is damaged or truncated (\(message.isEmpty ? "libpng error" : message))")
    }
}

extension GrayImage {
    /// The image as an 8-bit gray PNG file.
    public func png() throws -> [UInt8] {
        try PNGCodec.encode(self)
    }
}
