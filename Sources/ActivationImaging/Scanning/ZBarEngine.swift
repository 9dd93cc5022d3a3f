internal import CZBar
import Foundation
import Synchronization

/// One pass of libzbar over one gray image.
///
/// zbar's image scanner is not thread-safe and borrows the pixel buffer, so each call creates its
/// own scanner and image, and copies every symbol out before they are destroyed.
struct ZBarEngine: Sendable {
    var symbologies: Set<Symbology>
    /// Whether zbar retries with an inverted image (light code on dark) when it finds nothing.
    var testInverted = true
    /// Scan every n-th row and column (zbar's default: every one).
    var density = 1
    /// Also scan down the columns (codes turned by about 90°, and QR finders seen both ways).
    var scanColumns = true

    /// libzbar, loaded by the first pass that needs it; `nil` when it cannot be loaded (the
    /// Debian package depends on it), and zbar's passes then read nothing.
    static let library: activate_zbar? = activate_zbar_functions()?.pointee

    private static let loadingAhead = Atomic<Bool>(false)

    /// Starts loading libzbar on a thread of its own, once per process: called when an image's
    /// first pass found nothing, so that the zbar passes after the next zxing passes find it
    /// loaded, while the many images the first pass reads never load it.
    static func loadAhead() {
        guard !loadingAhead.load(ordering: .relaxed), !loadingAhead.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { _ = library }
    }

    func scan(_ image: GrayImage) -> [ScannedSymbol] {
        guard let zbar = Self.library, let scanner = zbar.image_scanner_create() else { return [] }
        defer { zbar.image_scanner_destroy(scanner) }
        configure(scanner, zbar)

        guard let zbarImage = zbar.image_create() else { return [] }
        defer { zbar.image_destroy(zbarImage) }
        zbar.image_set_format(zbarImage, ZBarEngine.y800)
        zbar.image_set_size(zbarImage, UInt32(image.width), UInt32(image.height))

        return image.pixels.withUnsafeBytes { pixels -> [ScannedSymbol] in
            zbar.image_set_data(zbarImage, pixels.baseAddress, UInt(pixels.count), nil)
            defer { zbar.image_set_data(zbarImage, nil, 0, nil) }
            guard zbar.scan_image(scanner, zbarImage) > 0 else { return [] }
            var found: [(symbol: ScannedSymbol, lines: Int)] = []
            var symbol = zbar.image_first_symbol(zbarImage)
            while let current = symbol {
                if let copied = copy(current, zbar) { found.append((copied, Int(zbar.symbol_get_quality(current)))) }
                symbol = zbar.symbol_next(current)
            }
            return Self.droppingStrayLines(density > 1 ? Self.droppingSingleLines(found) : found)
        }
    }

    /// A sparse scan's linear codes read on more than one line, as zxing-cpp reports them (its
    /// `minLineCount` is 2), and QR codes, whose error correction checks them.
    ///
    /// Scanning every line, zbar drops a product code read on fewer than four lines; scanning
    /// every n-th, it has no such filter and reports a code one line gave, or one whose halves
    /// two lines gave (zbar joins an EAN code's halves across lines), a misread half among them
    /// where the one check digit lets it pass.
    static func droppingSingleLines(_ found: [(symbol: ScannedSymbol, lines: Int)]) -> [(
        symbol: ScannedSymbol, lines: Int
    )] {
        found.filter { !$0.symbol.symbology.isLinear || $0.lines >= 2 }
    }

    /// zbar reports each distinct decode of a linear code with the number of scan lines that gave
    /// it. A decode at the place of another of the same symbology that three times as many lines
    /// gave is a misread of that code (a digit that the one check digit let pass), and goes;
    /// between readings of about equal support nothing tells them apart, and all stay.
    static func droppingStrayLines(_ found: [(symbol: ScannedSymbol, lines: Int)]) -> [ScannedSymbol] {
        found.filter { reading in
            guard reading.symbol.symbology.isLinear else { return true }
            return !found.contains { rival in
                rival.lines >= 3 * max(1, reading.lines) && rival.symbol.symbology == reading.symbol.symbology
                    && ReadingArbiter.disagree(rival.symbol, reading.symbol)
            }
        }.map(\.symbol)
    }

    private static let y800 = zbar_fourcc_parse("Y800")

    private func configure(_ scanner: OpaquePointer, _ zbar: activate_zbar) {
        _ = zbar.image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for type in symbologies.compactMap(\.zbarType) {
            _ = zbar.image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        // Raw bytes, not zbar's charset guess (which turns UTF-8 "Zürich" into mojibake).
        _ = zbar.image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        // A one- or two-character Code 39 is almost always a false read of text or texture.
        _ = zbar.image_scanner_set_config(scanner, ZBAR_CODE39, ZBAR_CFG_MIN_LEN, 3)
        // So is a six-digit ITF from zbar, which checks no quiet zone: striped carpets give them.
        // zxing-cpp, which does, still reads short ITF codes.
        _ = zbar.image_scanner_set_config(scanner, ZBAR_I25, ZBAR_CFG_MIN_LEN, 8)
        _ = zbar.image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, testInverted ? 1 : 0)
        // X density spaces the columns zbar scans down, Y density the rows it scans across; 0 scans none.
        _ = zbar.image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, scanColumns ? Int32(density) : 0)
        _ = zbar.image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density))
    }

    private func copy(_ symbol: OpaquePointer, _ zbar: activate_zbar) -> ScannedSymbol? {
        guard let symbology = Symbology(zbarType: zbar.symbol_get_type(symbol)),
            let data = zbar.symbol_get_data(symbol)
        else { return nil }
        let length = Int(zbar.symbol_get_data_length(symbol))
        var bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
        var points: [Point] = []
        for index in 0..<zbar.symbol_get_loc_size(symbol) {
            points.append(
                Point(x: Int(zbar.symbol_get_loc_x(symbol, index)), y: Int(zbar.symbol_get_loc_y(symbol, index))))
        }
        if symbology == .codabar { bytes = Self.strippingCodabarGuards(bytes) }
        return ScannedSymbol(
            symbology: symbology, bytes: bytes, text: Self.text(bytes, symbology),
            corners: Self.corners(points, symbology))
    }

    /// zbar reports Codabar with its start/stop characters (A–D); readers and the data they carry don't.
    static func strippingCodabarGuards(_ bytes: [UInt8]) -> [UInt8] {
        let guards = Set("ABCDTN*Eabcdtne".utf8)
        guard bytes.count >= 2, let first = bytes.first, let last = bytes.last, guards.contains(first),
            guards.contains(last)
        else {
            return bytes
        }
        return Array(bytes.dropFirst().dropLast())
    }

    static func text(_ bytes: [UInt8], _ symbology: Symbology) -> String {
        symbology == .qr ? PayloadText.decode(bytes).text : PayloadText.decode(bytes, as: .isoLatin1) ?? ""
    }

    /// zbar gives a QR code's corners counter-clockwise from top left (TL, BL, BR, TR) and a linear
    /// code's scan-line hits; both become four corners clockwise from top left.
    static func corners(_ points: [Point], _ symbology: Symbology) -> [Point] {
        if symbology == .qr, points.count == 4 {
            return [points[0], points[3], points[2], points[1]]
        }
        guard let minX = points.map(\.x).min(), let maxX = points.map(\.x).max(),
            let minY = points.map(\.y).min(), let maxY = points.map(\.y).max()
        else { return [] }
        return [Point(x: minX, y: minY), Point(x: maxX, y: minY), Point(x: maxX, y: maxY), Point(x: minX, y: maxY)]
    }
}
