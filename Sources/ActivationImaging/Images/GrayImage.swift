/// An 8-bit grayscale image, row-major, one byte per pixel, no padding: what the scanner reads.
public struct GrayImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height` luminance values, 0 = black, 255 = white.
    public internal(set) var pixels: [UInt8]

    /// Creates an image from its pixels.
    ///
    /// - Throws: ``ImagingError`` (`invalidOption`) unless `pixels.count == width * height` and both
    ///   sides are positive.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height) == (pixels.count, false) else {
            throw ImagingError(
                .invalidOption, source: "image", "\(pixels.count) pixels do not make a \(width)×\(height) image")
        }
        self.init(unchecked: width, height, pixels)
    }

    init(unchecked width: Int, _ height: Int, _ pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The luminance at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 {
        pixels[y * width + x]
    }

    /// Whether every pixel has one value: an image without an edge, where no engine finds a
    /// code (a blank page, a one-pixel image). Stops at the first pixel that differs, so an
    /// image with content costs a few pixels.
    var isUniform: Bool {
        guard let first = pixels.first else { return true }
        return !pixels.contains { $0 != first }
    }
}
