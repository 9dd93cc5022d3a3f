internal import CZBar

/// The kinds of code the scanner reads. The raw value is the stable name used by
/// `--symbology` and in JSON output.
public enum Symbology: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// QR Code.
    case qr
    /// Micro QR (read by the zxing engine only).
    case microqr
    /// EAN-13 (13 digits).
    case ean13
    /// EAN-8 (8 digits).
    case ean8
    /// UPC-A (12 digits).
    case upca
    /// UPC-E (zero-suppressed UPC-A).
    case upce
    /// Code 128.
    case code128
    /// Code 39.
    case code39
    /// Code 93.
    case code93
    /// Interleaved 2 of 5 (ITF).
    case itf
    /// Codabar.
    case codabar
    /// GS1 DataBar (formerly RSS-14).
    case databar
    /// GS1 DataBar Expanded; its raw value is `databar-exp`.
    case databarExpanded = "databar-exp"

    /// The name zbarimg prints for this symbology (`QR-Code`, `EAN-13`, `I2/5`, …).
    public var displayName: String {
        switch self {
        case .qr: "QR-Code"
        case .microqr: "MicroQR-Code"
        case .ean13: "EAN-13"
        case .ean8: "EAN-8"
        case .upca: "UPC-A"
        case .upce: "UPC-E"
        case .code128: "CODE-128"
        case .code39: "CODE-39"
        case .code93: "CODE-93"
        case .itf: "I2/5"
        case .codabar: "Codabar"
        case .databar: "DataBar"
        case .databarExpanded: "DataBar-Exp"
        }
    }

    /// Whether this is a one-dimensional (linear) barcode.
    public var isLinear: Bool { self != .qr && self != .microqr }

    public static func < (lhs: Symbology, rhs: Symbology) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// zbar's type, or `nil` when zbar does not read this symbology.
    var zbarType: zbar_symbol_type_t? {
        switch self {
        case .qr: ZBAR_QRCODE
        case .microqr: nil
        case .ean13: ZBAR_EAN13
        case .ean8: ZBAR_EAN8
        case .upca: ZBAR_UPCA
        case .upce: ZBAR_UPCE
        case .code128: ZBAR_CODE128
        case .code39: ZBAR_CODE39
        case .code93: ZBAR_CODE93
        case .itf: ZBAR_I25
        case .codabar: ZBAR_CODABAR
        case .databar: ZBAR_DATABAR
        case .databarExpanded: ZBAR_DATABAR_EXP
        }
    }

    init?(zbarType: zbar_symbol_type_t) {
        guard let match = Symbology.allCases.first(where: { $0.zbarType == zbarType }) else { return nil }
        self = match
    }
}
