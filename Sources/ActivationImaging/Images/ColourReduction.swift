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
        case .rec601:
            return PNGCodec.luma(red, green, blue)
        case .imageMagick:
            // ImageMagick 6 at 16 bits (Debian's Q16): the luma of the samples scaled to 16 bits,
            // rounded to a quantum, then scaled back to 8 bits as its ScaleQuantumToChar does.
            let luma = 257 * (0.212656 * Double(red) + 0.715158 * Double(green) + 0.072186 * Double(blue))
            let quantum = UInt32(min(65535, max(0, luma + 0.5)))
            return ((quantum + 128) - ((quantum + 128) >> 8)) >> 8
        }
    }
}
