internal import CTurboJPEG

/// JPEG (baseline and progressive) through the TurboJPEG API of libjpeg-turbo, which handles
/// libjpeg's longjmp error path internally and reports errors by return value.
enum JPEGDecoder {
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> GrayImage {
        guard let handle = tjInitDecompress() else {
            throw ImagingError(.libraryFailure, "\(name): cannot start the JPEG decoder")
        }
        defer { tjDestroy(handle) }
        return try bytes.withUnsafeBufferPointer { input in
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, input.baseAddress, UInt(input.count), &width, &height, &subsampling, &colorspace) == 0 else {
                throw failure(handle, name)
            }
            try ImageDecoder.checkPixels(width: Int(width), height: Int(height), limit: maxPixels, name: name)
            var gray = [UInt8](repeating: 255, count: Int(width) * Int(height))
            let status = gray.withUnsafeMutableBufferPointer {
                tjDecompress2(handle, input.baseAddress, UInt(input.count), $0.baseAddress, width, 0, height,
                              Int32(TJPF_GRAY.rawValue), TJFLAG_ACCURATEDCT)
            }
            if status != 0 {
                // Warnings (TJERR_WARNING) leave a usable image, except a truncated file: its
                // missing rows are filled with gray, which would look like a silent success.
                let message = errorMessage(handle)
                if tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) || message.contains("Premature end") {
                    throw failure(handle, name)
                }
            }
            return GrayImage(unchecked: Int(width), Int(height), gray)
        }
    }

    private static func errorMessage(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "libjpeg error" }
        return String(cString: text)
    }

    private static func failure(_ handle: tjhandle, _ name: String) -> ImagingError {
        var message = errorMessage(handle)
        if message.contains("Premature end") { message = "the file is truncated" }
        return ImagingError(.corruptImage, "\(name): JPEG is damaged or truncated (\(message))")
    }
}
