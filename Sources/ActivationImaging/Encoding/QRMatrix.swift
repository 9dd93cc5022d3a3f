/// QR error-correction levels: how much of the code may be damaged and still read.
public enum ErrorCorrection: String, Sendable, Hashable, CaseIterable, Codable {
    /// About 7% of codewords can be restored.
    case low = "L"
    /// About 15% (the default: good for screens).
    case medium = "M"
    /// About 25% (good for print).
    case quartile = "Q"
    /// About 30%.
    case high = "H"
}

/// How a QR code stores its payload. The encoder picks the densest mode that carries the bytes
/// exactly.
public enum QREncodingMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Digits 0–9 only (3.3 bits a character).
    case numeric
    /// `0–9 A–Z space $ % * + - . / :` only (5.5 bits a character): Base45 payloads fit here.
    case alphanumeric
    /// Any bytes, stored as they are (8 bits a byte).
    case byte
    /// Several segments, each in the densest mode for its part (`QRSegments`), as qrencode does.
    case mixed

    /// The mode for a payload: numeric or alphanumeric when every byte is in that set, else byte.
    public static func densest(for payload: [UInt8]) -> QREncodingMode {
        if !payload.isEmpty, payload.allSatisfy({ (0x30...0x39).contains($0) }) { return .numeric }
        if !payload.isEmpty, payload.allSatisfy({ alphanumericSet.contains($0) }) { return .alphanumeric }
        return .byte
    }

    static let alphanumericSet = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// The most characters (bytes in byte mode) a version-40 code holds in this mode at `level`.
    public func capacity(at level: ErrorCorrection) -> Int {
        let table: [ErrorCorrection: (numeric: Int, alphanumeric: Int, byte: Int)] = [
            .low: (7089, 4296, 2953), .medium: (5596, 3391, 2331),
            .quartile: (3993, 2420, 1663), .high: (3057, 1852, 1273),
        ]
        let row = table[level]!
        switch self {
        case .numeric: return row.numeric
        case .alphanumeric: return row.alphanumeric
        case .byte, .mixed: return row.byte
        }
    }
}

/// The modules of one QR code: a square of dark and light cells, without the quiet zone.
public struct QRMatrix: Sendable, Hashable {
    /// Modules per side (21 for version 1, 177 for version 40).
    public let size: Int
    /// The QR version, 1–40.
    public let version: Int
    /// The error-correction level the code was built with.
    public let errorCorrection: ErrorCorrection
    /// The mode the payload was stored in.
    public let mode: QREncodingMode
    /// `size * size` values, row-major; `true` is a dark module.
    public let modules: [Bool]

    /// Creates a matrix from its modules.
    ///
    /// - Throws: ``ImagingError`` (`invalidOption`) unless `modules.count == size * size`.
    public init(size: Int, version: Int, errorCorrection: ErrorCorrection, mode: QREncodingMode, modules: [Bool]) throws
    {
        guard size > 0, modules.count == size * size else {
            throw ImagingError(
                .invalidOption, source: "matrix", "\(modules.count) modules do not make a \(size)×\(size) square")
        }
        self.size = size
        self.version = version
        self.errorCorrection = errorCorrection
        self.mode = mode
        self.modules = modules
    }

    /// Whether the module at column `x`, row `y` is dark; outside the matrix (the quiet zone) is light.
    public subscript(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }
}
