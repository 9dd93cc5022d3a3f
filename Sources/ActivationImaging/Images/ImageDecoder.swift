import ActivationConfiguration
import FileAccess

/// Turns image files (PNG, JPEG, PNM) into ``GrayImage``s, refusing oversized inputs before any
/// pixel is decoded.
public struct ImageDecoder: Sendable, Hashable {
    /// The default pixel cap: 50 megapixels, more than any phone camera and about 50 MB of gray.
    public static let defaultMaxPixels = 50_000_000
    /// The default cap on an image file's size: 64 MiB.
    public static let defaultMaxBytes = 64 << 20

    /// Images with more pixels than this are refused before decoding.
    public var maxPixels: Int
    /// Files larger than this are refused before they are read.
    public var maxBytes: Int

    /// A decoder with these caps (default ``defaultMaxPixels`` and ``defaultMaxBytes``).
    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels, maxBytes: Int = ImageDecoder.defaultMaxBytes) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
    }

    /// Decodes an image held in memory.
    ///
    /// - Parameters:
    ///   - bytes: the encoded image file (PNG, JPEG or PNM), at most ``maxBytes`` long.
    ///   - name: how errors name the input (a file name, or `-`).
    /// - Throws: ``ImagingError``: `unsupportedFormat` (says what the bytes are, e.g. GIF),
    ///   `imageTooLarge`, `corruptImage`.
    public func decode(_ bytes: [UInt8], name: String) throws -> GrayImage {
        if bytes.isEmpty {
            throw ImagingError(.unsupportedFormat, source: name, "the file is empty")
        }
        if bytes.count > maxBytes {
            throw ImagingError(
                .imageTooLarge, source: name, "\(ByteCount(bytes.count)) exceeds the \(ByteCount(maxBytes)) limit")
        }
        switch ImageFormat.sniff(bytes) {
        case .png: return try PNGCodec.decode(bytes, name: name, maxPixels: maxPixels)
        case .jpeg: return try JPEGDecoder.decode(bytes, name: name, maxPixels: maxPixels)
        case .pnm: return try PNMDecoder.decode(bytes, name: name, maxPixels: maxPixels)
        case let format?:
            throw ImagingError(
                .unsupportedFormat, source: name, "\(format.rawValue) is not supported; convert it to PNG or JPEG")
        case nil:
            throw ImagingError(.unsupportedFormat, source: name, "not an image (PNG, JPEG or PNM expected)")
        }
    }

    /// Reads and decodes an image file; `-` reads standard input.
    ///
    /// - Throws: ``ImagingError``; `unreadable` when the file cannot be read.
    public func decodeFile(_ path: String) throws -> GrayImage {
        try decode(readFile(path), name: path)
    }

    /// The bytes of an image file (at most ``maxBytes``); `-` reads standard input.
    func readFile(_ path: String) throws -> [UInt8] {
        do {
            return try FileIO.read(path, limit: maxBytes)
        } catch let error as ConfigurationError {
            throw ImagingError(
                error.code == .inputTooLarge ? .imageTooLarge : .unreadable, source: error.source,
                error.keyPath.map { "\($0): \(error.message)" } ?? error.message)
        }
    }

    /// The command-line readers whose view of a file the pipeline's last passes take.
    enum ReaderTool: Sendable, Hashable, CaseIterable {
        /// zbarimg: ImageMagick decodes the file and hands zbar its luma.
        case zbarimg
        /// ZXingReader: stb_image decodes the file and zxing-cpp reduces its colour.
        case zxingReader

        /// How the tool turns colour into gray.
        var colourReduction: ColourReduction { self == .zbarimg ? .imageMagick : .rec601 }
    }

    /// The image as `tool` decodes the file, where that differs from ``decode(_:name:)``; `nil`
    /// when it does not. What the pipeline's last passes read, which promise to read what the
    /// tools read: both take a PNG's samples as stored (no gamma conversion, alpha dropped), and
    /// zbarimg sees a colour PNG or JPEG through ImageMagick's luma, with Rec. 709 weights where
    /// ours and zxing-cpp's are Rec. 601's (``ColourReduction``).
    ///
    /// - Throws: ``ImagingError`` as ``decode(_:name:)`` does for the same bytes.
    func decode(_ bytes: [UInt8], name: String, as tool: ReaderTool) throws -> GrayImage? {
        guard bytes.count <= maxBytes else { return nil }
        let colour = tool.colourReduction
        switch ImageFormat.sniff(bytes) {
        case .png: return try PNGCodec.decodeAsStored(bytes, name: name, maxPixels: maxPixels, colour: colour)
        case .jpeg where colour != .rec601:
            return try JPEGDecoder.decodeColour(bytes, name: name, maxPixels: maxPixels, colour: colour)
        default: return nil
        }
    }

    /// ``decode(_:name:)``, and how each tool decodes the file (``decode(_:name:as:)``), made when
    /// asked: for a PNG of at most `keepingUpTo` pixels from the first decoding's unfiltered
    /// samples, not from the file again (the pipeline's tools' stage of an image no pass reads).
    ///
    /// - Throws: ``ImagingError`` as ``decode(_:name:)`` does.
    func decodeWithToolsViews(_ bytes: [UInt8], name: String, keepingUpTo: Int) throws -> (
        image: GrayImage, asTheToolsDecode: (ReaderTool) -> GrayImage?
    ) {
        guard !bytes.isEmpty, bytes.count <= maxBytes, ImageFormat.sniff(bytes) == .png else {
            return (try decode(bytes, name: name), { try? decode(bytes, name: name, as: $0) })
        }
        let decoded = try PNGCodec.decodeKeepingSamples(
            bytes, name: name, maxPixels: maxPixels, keepingUpTo: keepingUpTo)
        return (decoded.image, { try? decoded.asStored($0.colourReduction) })
    }

    /// A JPEG of more than `pixels` decoded at half its size (libjpeg-turbo's DCT scaling, a
    /// fraction of a full decode); `nil` for smaller JPEGs and other formats, which gain nothing.
    ///
    /// - Throws: ``ImagingError`` as ``decode(_:name:)`` does for the same bytes.
    func decodeHalfSize(_ bytes: [UInt8], name: String, above pixels: Int) throws -> GrayImage? {
        guard bytes.count <= maxBytes, ImageFormat.sniff(bytes) == .jpeg,
            let size = JPEGDecoder.size(bytes), size.width * size.height > pixels
        else { return nil }
        return try JPEGDecoder.decode(bytes, name: name, maxPixels: maxPixels, reduction: 2)
    }

    static func checkPixels(width: Int, height: Int, limit: Int, name: String) throws {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit {
            let megapixels = Double(width) * Double(height) / 1_000_000
            throw ImagingError(
                .imageTooLarge, source: name,
                "\(width)×\(height) pixels (\(formatMegapixels(megapixels)) MP) exceeds the limit of "
                    + "\(formatMegapixels(Double(limit) / 1_000_000)) MP")
        }
    }

    private static func formatMegapixels(_ value: Double) -> String {
        value >= 10 ? String(Int(value.rounded())) : String((value * 10).rounded() / 10)
    }
}
