/// How a colour pixel becomes a gray level: ours, or as a command-line reader's image library
/// makes it, for the tools' view of a file (``ImageDecoder/decode(_:name:as:)``).
enum ColourReduction: Sendable, Hashable {
    /// Rec. 601 weights on the stored values, rounded: our decoding's, and within a level of
    /// zxing-cpp's, which ZXingReader applies to stb_image's pixels.
    case rec601
    /// ImageMagick's luma (Rec. 709 weights on the stored values), which zbarimg reads: it asks
    /// ImageMagick for the image's intensity and hands zbar that gray. A red-on-green code whose
    /// colours have one Rec. 601 luma shows to zbarimg, and the other way round.
    case imageMagick

    /// The gray level of one pixel's stored 8-bit samples.
    @inline(__always)
    func gray(_ red: UInt32, _ green: UInt32, _ blue: UInt32) -> UInt32 {
        switch self {
        case .rec601: PNGCodec.luma(red, green, blue)
        case .imageMagick: Self.imageMagickLuma(red, green, blue)
        }
    }

    /// `count` pixels of 8-bit RGB samples (3 bytes each) from `rgb`, reduced into `gray`: a row
    /// of a PNG, a whole JPEG. The reduction is chosen once, outside the loop over the pixels.
    func reduce(rgb: UnsafePointer<UInt8>, into gray: UnsafeMutablePointer<UInt8>, count: Int) {
        switch self {
        case .rec601:
            for x in 0..<count {
                let base = 3 &* x
                gray[x] = UInt8(
                    truncatingIfNeeded: PNGCodec.luma(UInt32(rgb[base]), UInt32(rgb[base &+ 1]), UInt32(rgb[base &+ 2]))
                )
            }
        case .imageMagick:
            for x in 0..<count {
                let base = 3 &* x
                gray[x] = UInt8(
                    truncatingIfNeeded: Self.imageMagickLuma(
                        UInt32(rgb[base]), UInt32(rgb[base &+ 1]), UInt32(rgb[base &+ 2])))
            }
        }
    }

    /// ImageMagick 6 at 16 bits (Debian's Q16): GetPixelLuma's sum, in its order, of each weight
    /// times the sample scaled to 16 bits; ClampToQuantum's rounding; then ScaleQuantumToChar back
    /// to 8 bits.
    @inline(__always)
    private static func imageMagickLuma(_ red: UInt32, _ green: UInt32, _ blue: UInt32) -> UInt32 {
        let (r, g, b) = imageMagickTerms
        let luma = r[Int(red & 0xFF)] + g[Int(green & 0xFF)] + b[Int(blue & 0xFF)]
        let quantum: UInt32 = luma <= 0 ? 0 : luma >= 65535 ? 65535 : UInt32(luma + 0.5)
        return ((quantum + 128) - ((quantum + 128) >> 8)) >> 8
    }

    /// Each sample value's term of ImageMagick's luma, computed as it computes it (the weight times
    /// the 16-bit quantum), so that the sum and its rounding are its own.
    private static let imageMagickTerms: (red: [Double], green: [Double], blue: [Double]) = (
        (0...255).map { 0.212656 * Double(257 * $0) }, (0...255).map { 0.715158 * Double(257 * $0) },
        (0...255).map { 0.072186 * Double(257 * $0) }
    )
}
