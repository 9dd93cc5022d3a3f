internal import CQREncode

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Builds QR codes from payload bytes with libqrencode.
///
/// The payload is stored exactly, split into the numeric, alphanumeric and byte segments that take
/// the fewest bits (`QRSegments`; an all-alphanumeric `AC1:` code is one alphanumeric segment).
/// The smallest version that holds it is chosen, never below ``minimumVersion``.
public struct QRCodeEncoder: Sendable, Hashable {
    /// The error-correction level (default M).
    public var errorCorrection: ErrorCorrection
    /// The smallest version to use, 1–40 (default 1: as small as the payload allows).
    public var minimumVersion: Int

    /// An encoder; by default level M and the smallest version that fits. The version is checked
    /// by ``encode(_:)``, not here.
    public init(errorCorrection: ErrorCorrection = .medium, minimumVersion: Int = 1) {
        self.errorCorrection = errorCorrection
        self.minimumVersion = minimumVersion
    }

    /// Encodes `payload` into a module matrix.
    ///
    /// - Throws: ``ImagingError``: `payloadTooLarge` with the payload's size and the most that fits
    ///   at this level; `invalidOption` for a version outside 1–40 or an empty payload.
    public func encode(_ payload: [UInt8]) throws -> QRMatrix {
        guard (1...40).contains(minimumVersion) else {
            throw ImagingError(.invalidOption, source: "version", "\(minimumVersion) is not a QR version (1–40)")
        }
        guard !payload.isEmpty else {
            throw ImagingError(.invalidOption, source: "payload", "is empty; there is nothing to encode")
        }
        let densest = QREncodingMode.densest(for: payload)
        let capacity = densest.capacity(at: errorCorrection)
        let units = densest == .byte ? "bytes" : "characters"
        let tooLarge = ImagingError(
            .payloadTooLarge, source: "payload",
            "\(payload.count) \(units) do not fit in a QR code; at error-correction "
                + "level \(errorCorrection.rawValue) the largest \(densest.rawValue) payload is \(capacity)"
                + (errorCorrection == .low ? "" : " (level L holds \(densest.capacity(at: .low)))"))
        // Byte payloads may still fit with their digit and letter runs in denser segments.
        guard payload.count <= capacity || densest == .byte else { throw tooLarge }

        // Segment headers grow with the version group, so the best split depends on it: split for
        // the smallest group first, and take the result if the code stays in that group.
        var result: QRMatrix?
        for group in QRSegments.group(ofVersion: minimumVersion)...2 {
            let segments = QRSegments.split(payload, group: group)
            // A split that cannot fit version 9 needs no trial encoding in the first group
            // (libqrencode's mask search is most of an encoding's cost).
            if group == 0 && QRSegments.bits(segments, group: 0) > QRSegments.version9DataBits(errorCorrection) {
                continue
            }
            let matrix = try encode(segments, tooLarge: tooLarge)
            result = matrix
            if QRSegments.group(ofVersion: matrix.version) <= group { break }
        }
        guard let result else { throw tooLarge }
        return result
    }

    private func encode(_ segments: [QRSegments.Segment], tooLarge: ImagingError) throws -> QRMatrix {
        guard let input = QRinput_new2(Int32(minimumVersion), errorCorrection.qrLevel) else {
            throw ImagingError(.libraryFailure, source: "payload", "libqrencode could not start (out of memory)")
        }
        defer { QRinput_free(input) }
        for segment in segments {
            let appended = segment.bytes.withUnsafeBufferPointer {
                QRinput_append(input, segment.mode.qrMode, Int32($0.count), $0.baseAddress)
            }
            guard appended == 0 else {
                throw ImagingError(
                    .libraryFailure, source: "payload",
                    "libqrencode refused the data (\(String(cString: strerror(errno))))")
            }
        }
        errno = 0
        guard let code = QRcode_encodeInput(input) else {
            if errno == ERANGE { throw tooLarge }
            throw ImagingError(
                .libraryFailure, source: "payload", "libqrencode failed (\(String(cString: strerror(errno))))")
        }
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits are libqrencode's bookkeeping.
        let modules = (0..<size * size).map { code.pointee.data[$0] & 1 == 1 }
        let modes = Set(segments.map(\.mode))
        return try QRMatrix(
            size: size, version: Int(code.pointee.version), errorCorrection: errorCorrection,
            mode: modes.count == 1 ? segments[0].mode : .mixed, modules: modules)
    }
}

extension ErrorCorrection {
    var qrLevel: QRecLevel {
        switch self {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }
}

extension QREncodingMode {
    var qrMode: QRencodeMode {
        switch self {
        case .numeric: QR_MODE_NUM
        case .alphanumeric: QR_MODE_AN
        case .byte, .mixed: QR_MODE_8
        }
    }
}
