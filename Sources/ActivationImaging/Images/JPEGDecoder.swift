internal import CTurboJPEG

/// JPEG (baseline and progressive) through the TurboJPEG API of libjpeg-turbo, which handles
/// libjpeg's longjmp error path internally and reports errors by return value.
enum JPEGDecoder {
    /// The most scans (SOS segments) a JPEG may have: a progressive image from a camera, an
    /// editor or libjpeg has about 10. Decoding time grows with pixels × scans, and both are capped.
    static let maxScans = 100

    /// Decodes `bytes` to gray; with `reduction` 2, 4 or 8 at that fraction of the size, which
    /// libjpeg-turbo does in the inverse DCT (much faster than decoding in full and shrinking).
    /// The pixel limit applies to the full size either way.
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int, reduction: Int = 1) throws -> GrayImage {
        // Without a colour reduction asked, the gray plane is always given.
        try decode(bytes, name: name, maxPixels: maxPixels, reduction: reduction, colour: nil)
            ?? GrayImage(unchecked: 0, 0, [])
    }

    /// A colour JPEG's pixels as libjpeg-turbo's RGB reduced to gray by `colour` (the tools' view:
    /// zbarimg's ImageMagick decodes to RGB with libjpeg and takes its luma); `nil` for a gray
    /// JPEG, which every reader sees as ``decode(_:name:maxPixels:reduction:)`` does. ImageMagick
    /// asks libjpeg for its floating-point inverse DCT, which TurboJPEG does not offer; the
    /// accurate integer one used here is a level apart from it at some pixels.
    static func decodeColour(
        _ bytes: [UInt8], name: String, maxPixels: Int, colour: ColourReduction
    ) throws -> GrayImage? {
        try decode(bytes, name: name, maxPixels: maxPixels, reduction: 1, colour: colour)
    }

    /// The gray plane, or with `colour` the RGB pixels reduced by it (`nil` for a gray JPEG).
    private static func decode(
        _ bytes: [UInt8], name: String, maxPixels: Int, reduction: Int, colour: ColourReduction?
    ) throws -> GrayImage? {
        guard let handle = tjInitDecompress() else {
            throw ImagingError(.libraryFailure, source: name, "cannot start the JPEG decoder")
        }
        defer { tjDestroy(handle) }
        // TurboJPEG pads a truncated stream with gray silently, which would pass a damaged photo
        // off as "no code found": walk the markers first and demand an end-of-image marker.
        let structure = markers(bytes)
        guard structure.isComplete else {
            throw ImagingError(
                .corruptImage, source: name, "JPEG is damaged or truncated (the file ends before the image does)")
        }
        // Each progressive scan is a pass over the whole image: thousands of tiny scans make a
        // small file decode for minutes. Real encoders write about 10.
        guard structure.scans <= maxScans else {
            throw ImagingError(
                .imageTooLarge, source: name,
                """
                JPEG has \(structure.scans) scans, more than the \(maxScans) a real image needs \
                (a decoding-time attack?)
                """
            )
        }
        return try bytes.withUnsafeBufferPointer { input -> GrayImage? in
            var width: Int32 = 0
            var height: Int32 = 0
            var subsampling: Int32 = 0
            var colorspace: Int32 = 0
            guard
                tjDecompressHeader3(
                    handle, input.baseAddress, UInt(input.count), &width, &height, &subsampling, &colorspace) == 0
            else {
                throw failure(handle, name)
            }
            try ImageDecoder.checkPixels(width: Int(width), height: Int(height), limit: maxPixels, name: name)
            // TurboJPEG picks the largest of its scaling factors (1/2, 1/4, 1/8, …) that fits the
            // size asked for; these sizes are exactly those factors' (rounded up).
            let divisor = Int32([1, 2, 4, 8].contains(reduction) ? reduction : 1)
            width = (width + divisor - 1) / divisor
            height = (height + divisor - 1) / divisor
            let rgb = colour != nil
            if rgb && colorspace == Int32(TJCS_GRAY.rawValue) { return nil }
            var samples = [UInt8](repeating: 255, count: Int(width) * Int(height) * (rgb ? 3 : 1))
            let status = samples.withUnsafeMutableBufferPointer {
                tjDecompress2(
                    handle, input.baseAddress, UInt(input.count), $0.baseAddress, width, 0, height,
                    Int32((rgb ? TJPF_RGB : TJPF_GRAY).rawValue), TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS)
            }
            // Warnings (TJERR_WARNING, e.g. extraneous bytes) leave a usable image.
            if status != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
                throw failure(handle, name)
            }
            guard let colour else { return GrayImage(unchecked: Int(width), Int(height), samples) }
            var gray = [UInt8](repeating: 0, count: Int(width) * Int(height))
            samples.withUnsafeBufferPointer { rgb in
                gray.withUnsafeMutableBufferPointer { gray in
                    guard let rgb = rgb.baseAddress, let out = gray.baseAddress else { return }
                    colour.reduce(rgb: rgb, into: out, count: gray.count)
                }
            }
            return GrayImage(unchecked: Int(width), Int(height), gray)
        }
    }

    /// The image size its header declares, or `nil` when there is no readable header.
    static func size(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    private static func errorMessage(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "libjpeg error" }
        return String(cString: text)
    }

    private static func failure(_ handle: tjhandle, _ name: String) -> ImagingError {
        let message = errorMessage(handle)
        return ImagingError(.corruptImage, source: name, "JPEG is damaged or truncated (\(message))")
    }

    /// What the marker walk found: whether an EOI marker ends the image, and how many scans it has.
    struct Markers: Equatable {
        var isComplete: Bool
        var scans: Int
    }

    /// Walks the JPEG segments from SOI, counting scans, up to the EOI marker.
    /// Entropy-coded data after SOS cannot contain a marker (0xFF is stuffed as FF 00), so the
    /// next FF xx with xx not 00 or RSTn is the next segment. Bytes after EOI (phone makers append
    /// data there) are ignored.
    static func markers(_ bytes: [UInt8]) -> Markers {
        var index = 2  // after SOI
        var scans = 0
        while index + 1 < bytes.count {
            guard bytes[index] == 0xFF else { return Markers(isComplete: false, scans: scans) }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1  // fill byte
            case 0xD9:
                return Markers(isComplete: true, scans: scans)
            case 0x01, 0xD0...0xD7:
                index += 2  // standalone markers
            default:
                guard index + 3 < bytes.count else { return Markers(isComplete: false, scans: scans) }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                index += 2 + length
                if marker == 0xDA {
                    scans += 1
                    // Skip entropy-coded data up to the next real marker.
                    while index + 1 < bytes.count {
                        if bytes[index] == 0xFF, bytes[index + 1] != 0x00, !(0xD0...0xD7).contains(bytes[index + 1]) {
                            break
                        }
                        index += 1
                    }
                }
            }
        }
        return Markers(isComplete: false, scans: scans)
    }
}
