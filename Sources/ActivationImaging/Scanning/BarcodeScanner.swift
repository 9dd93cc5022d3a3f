import ActivationConfiguration

/// Finds every QR code and linear barcode in an image.
///
/// ```swift
/// let scanner = BarcodeScanner()
/// for symbol in try scanner.scanFile("activation.png") {
///     print(symbol.symbology.displayName, symbol.text)
/// }
/// ```
///
/// Results come in reading order (top to bottom, then left to right), one per distinct code.
/// A scanner is a value: copy it freely and use it from any task.
public struct BarcodeScanner: Sendable, Hashable {
    /// Which symbologies to look for (default: all).
    public var symbologies: Set<Symbology>
    /// How images are read from bytes and files, and their size caps.
    public var decoder: ImageDecoder

    public init(symbologies: Set<Symbology> = Set(Symbology.allCases), decoder: ImageDecoder = ImageDecoder()) {
        self.symbologies = symbologies
        self.decoder = decoder
    }

    /// Scans a decoded image.
    public func scan(_ image: GrayImage) -> [ScannedSymbol] {
        let engine = ZBarEngine(symbologies: symbologies)
        return Self.ordered(Self.merging([], engine.scan(image)))
    }

    /// Decodes and scans an image held in memory (PNG, JPEG or PNM).
    ///
    /// - Throws: ``ImagingError`` when the bytes are no readable image.
    public func scan(imageBytes: [UInt8], name: String = "image") throws -> [ScannedSymbol] {
        scan(try decoder.decode(imageBytes, name: name))
    }

    /// Reads, decodes and scans an image file; `-` reads standard input.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read or is no readable image.
    public func scanFile(_ path: String) throws -> [ScannedSymbol] {
        scan(try decoder.decodeFile(path))
    }

    /// Adds `new` symbols to `found`, skipping any that repeat a found code of the same kind and
    /// bytes at an overlapping place (the same code read twice), but keeping true duplicates.
    static func merging(_ found: [ScannedSymbol], _ new: [ScannedSymbol]) -> [ScannedSymbol] {
        var result = found
        for symbol in new where !result.contains(where: { $0.isSameCode(as: symbol) }) {
            result.append(symbol)
        }
        return result
    }

    /// Reading order: by top edge, then left edge; ties by kind and bytes, so the order is stable.
    static func ordered(_ symbols: [ScannedSymbol]) -> [ScannedSymbol] {
        symbols.sorted { a, b in
            let (ba, bb) = (a.bounds, b.bounds)
            if ba.minY != bb.minY { return ba.minY < bb.minY }
            if ba.minX != bb.minX { return ba.minX < bb.minX }
            if a.symbology != b.symbology { return a.symbology < b.symbology }
            return a.bytes.lexicographicallyPrecedes(b.bytes)
        }
    }
}

extension ScannedSymbol {
    /// Same kind, same bytes, and each one's centre lies inside the other's bounds.
    func isSameCode(as other: ScannedSymbol) -> Bool {
        guard symbology == other.symbology, bytes == other.bytes else { return false }
        func centre(_ s: ScannedSymbol) -> Point {
            let b = s.bounds
            return Point(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2)
        }
        func inside(_ p: Point, _ s: ScannedSymbol) -> Bool {
            let b = s.bounds
            return (b.minX...b.maxX).contains(p.x) && (b.minY...b.maxY).contains(p.y)
        }
        return inside(centre(self), other) || inside(centre(other), self)
    }
}
