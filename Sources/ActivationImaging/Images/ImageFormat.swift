/// Image container formats, recognised by their leading bytes (never by the file name).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// PNG, read by ``ImageDecoder``.
    case png = "PNG"
    /// JPEG, read by ``ImageDecoder``.
    case jpeg = "JPEG"
    /// Netpbm (PBM, PGM, PPM; plain or raw), read by ``ImageDecoder``.
    case pnm = "PNM"
    /// GIF, recognised but not read (errors name it).
    case gif = "GIF"
    /// BMP (Windows bitmap), recognised but not read.
    case bmp = "BMP"
    /// WebP, recognised but not read.
    case webp = "WebP"
    /// TIFF, recognised but not read.
    case tiff = "TIFF"
    /// HEIF, HEIC photos among them, recognised but not read.
    case heif = "HEIF"
    /// AVIF, recognised but not read.
    case avif = "AVIF"
    /// PDF, recognised but not read.
    case pdf = "PDF"
    /// SVG, recognised by `<svg` in the first 512 bytes but not read.
    case svg = "SVG"

    /// Whether ``ImageDecoder`` reads this format.
    public var isSupported: Bool {
        switch self {
        case .png, .jpeg, .pnm: true
        default: false
        }
    }

    /// Recognises the format of `bytes`, or returns `nil` when they are no image known here.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF8".utf8)) { return .gif }
        if starts(Array("BM".utf8)), bytes.count >= 26 { return .bmp }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("ftyp".utf8), at: 4) {
            if starts(Array("avif".utf8), at: 8) || starts(Array("avis".utf8), at: 8) { return .avif }
            if ["heic", "heix", "mif1", "msf1", "heim", "heis"].contains(where: { starts(Array($0.utf8), at: 8) }) {
                return .heif
            }
        }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]),
            [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "#")].contains(bytes[2])
        {
            return .pnm
        }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self).lowercased()
        if head.contains("<svg") { return .svg }
        return nil
    }
}
