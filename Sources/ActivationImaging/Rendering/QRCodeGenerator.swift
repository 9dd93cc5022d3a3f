/// The formats a QR code is rendered to.
public enum QRRenderFormat: String, Sendable, Hashable, CaseIterable {
    /// An 8-bit gray PNG image.
    case png
    /// A scalable SVG document.
    case svg
    /// Unicode half blocks for a terminal (two module rows per line).
    case terminal
    /// Plain text, `##` per dark module.
    case text

    /// The format a file name's extension names (`.png`, `.svg`, `.txt`), if any.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[dot...].contains("/") else { return nil }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "png": self = .png
        case "svg": self = .svg
        case "txt", "text": self = .text
        default: return nil
        }
    }
}

/// A QR code ready to be written: the matrix, the rendered bytes, and the proof that it reads back.
public struct GeneratedQRCode: Sendable, Hashable {
    /// The encoded modules.
    public let matrix: QRMatrix
    /// The rendering (PNG bytes, or UTF-8 text for the other formats).
    public let data: [UInt8]
    /// The format of ``data``.
    public let format: QRRenderFormat
    /// Image side in pixels (PNG and SVG), including the quiet zone.
    public let pixelSide: Int
}

/// Encodes a payload, renders it, and scans the rendering again before handing it out: a code
/// that does not give back the exact payload bytes is an error, never a file.
public struct QRCodeGenerator: Sendable, Hashable {
    /// Turns the payload into modules: error-correction level and smallest version.
    public var encoder: QRCodeEncoder
    /// Pixels per module (PNG, SVG), at least ``QRMatrix/minimumScale``.
    public var scale: Int
    /// Quiet zone in modules (the standard asks for 4).
    public var margin: Int
    /// Terminal format: draw dark modules (for light-background terminals).
    public var darkOnLight: Bool

    /// A generator; by default 8 pixels per module, the standard quiet zone, and light modules
    /// drawn in the terminal. Scale and margin are checked by ``generate(_:as:)``, not here.
    public init(encoder: QRCodeEncoder = QRCodeEncoder(), scale: Int = 8, margin: Int = 4, darkOnLight: Bool = false) {
        self.encoder = encoder
        self.scale = scale
        self.margin = margin
        self.darkOnLight = darkOnLight
    }

    /// Encodes, renders and verifies `payload`.
    ///
    /// - Throws: ``ImagingError``: `payloadTooLarge`, `invalidOption`, or `verificationFailed` when
    ///   the rendering does not read back to exactly `payload`.
    public func generate(_ payload: [UInt8], as format: QRRenderFormat) throws -> GeneratedQRCode {
        let matrix = try encoder.encode(payload)
        let side = (matrix.size + 2 * margin) * scale
        let data: [UInt8]
        let check: GrayImage
        let moduleSize: Int  // pixels per module of `check`
        switch format {
        case .png:
            data = try matrix.png(scale: scale, margin: margin)
            // Check the file itself, read again by libpng, not the bitmap it was made from; read
            // straight to 2 px per module, which zbar reads as surely and several times faster.
            let factor = max(1, scale / 2)
            guard
                let read = try PNGCodec.decodeBilevel(
                    data, width: side, height: side, shrinkingBy: factor, name: "rendered PNG")
            else {
                throw ImagingError(
                    .verificationFailed, source: "rendered code",
                    "the PNG written is not a \(side)×\(side) 1-bit image")
            }
            check = read
            moduleSize = scale / factor
        case .svg:
            data = Array(try matrix.svg(scale: scale, margin: margin).utf8)
            moduleSize = max(scale, 4)
            check = try matrix.grayImage(scale: moduleSize, margin: margin)
        case .text:
            data = Array(try matrix.text(margin: margin).utf8)
            moduleSize = 4
            check = try matrix.grayImage(scale: moduleSize, margin: margin)
        case .terminal:
            data = Array(try matrix.terminal(margin: margin, darkOnLight: darkOnLight).utf8)
            moduleSize = 4
            check = try matrix.grayImage(scale: moduleSize, margin: margin)
        }
        try Self.verify(check, reads: payload, moduleSize: moduleSize)
        return GeneratedQRCode(matrix: matrix, data: data, format: format, pixelSide: side)
    }

    /// Scans `image` and demands exactly one QR code carrying exactly `payload`.
    ///
    /// - Parameters:
    ///   - image: the rendered code, as a gray bitmap.
    ///   - payload: the exact bytes the code must carry.
    ///   - moduleSize: pixels per module, when known: a large rendering is first shrunk
    ///     by area averaging (every pixel counts) to 2 pixels per module, which zbar reads as surely
    ///     and several times faster (`generate --batch`).
    /// - Throws: ``ImagingError`` (`verificationFailed`) saying what was read instead.
    public static func verify(_ image: GrayImage, reads payload: [UInt8], moduleSize: Int = 1) throws {
        let checked = moduleSize >= 4 ? image.downsampled(by: moduleSize / 2) : image
        let found = ZBarEngine(symbologies: [.qr], testInverted: false).scan(checked)
        guard found.count == 1, found[0].bytes == payload else {
            let what = found.isEmpty ? "no code" : found.count > 1 ? "\(found.count) codes" : "different bytes"
            throw ImagingError(
                .verificationFailed, source: "rendered code",
                "reading it back gave \(what); try a larger scale or another error-correction level")
        }
    }
}
