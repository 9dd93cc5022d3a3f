/// The rule for two readings of one symbol that differ: the same symbology at the same place with
/// other bytes.
///
/// Linear codes carry one check digit or none, so a scan line misread in one digit can pass the
/// check: an engine then reports one product code twice, the right reading and a wrong one
/// (zxing-cpp does on blurred EAN-13 photos). Neither reading may be printed as if it were sure,
/// and the wrong one must not hide the right one:
///
/// - the other engine is asked about the image, and the readings it confirms (the same symbology
///   and bytes) are kept, the others dropped;
/// - where it confirms none of them, all are kept: nothing tells them apart, and dropping them
///   would lose the right one with the wrong.
///
/// Symbols that no other reading contradicts pass unchanged. Where the tools' readings are added
/// to a pass's (``addingToolReadings(_:readBy:fewLines:from:)``), a reading both engines give
/// outweighs a rival that one engine gives.
///
/// The pipeline's last stage, the engines as their tools read (``ScanPass/readsAsItsTool``),
/// follows the same rule with both engines at once: each tool's readings are kept
/// (``union(_:_:)``), so where the two read one symbol differently, neither confirms the other
/// and both are printed. zbar, for one, reads Code 128's extended characters (FNC4) as their base
/// characters, where zxing-cpp reads them as the code means them.
package enum ReadingArbiter {
    /// Whether two of `symbols` are readings of one symbol that disagree.
    package static func hasDisagreement(_ symbols: [ScannedSymbol]) -> Bool {
        symbols.indices.contains { i in
            symbols.indices.contains { j in i < j && disagree(symbols[i], symbols[j]) }
        }
    }

    /// `symbols` with each disagreement settled by `confirmations`, the other engine's readings
    /// of the same image (see the type's rule). The order of `symbols` is kept.
    package static func resolve(_ symbols: [ScannedSymbol], confirmations: [ScannedSymbol]) -> [ScannedSymbol] {
        func confirmed(_ symbol: ScannedSymbol) -> Bool { confirmations.contains { $0.isSameReading(as: symbol) } }
        return symbols.filter { symbol in
            let rivals = symbols.filter { disagree(symbol, $0) }
            guard !rivals.isEmpty else { return true }
            // Dropped only when a rival at its place is confirmed and it is not.
            return confirmed(symbol) || !rivals.contains(where: confirmed)
        }
    }

    /// A pass's readings with the tools' readings of the same image added (`tools`: each engine
    /// as its tool reads, with its defaults): the product codes beside a pass's product code, and
    /// every code where a pass read several (of four QR codes on a page, a pass may read three).
    ///
    /// A pass on a prepared copy (widened, sharpened) reads product codes (EAN, UPC) the tools
    /// miss, but it can also read one of two codes (a book's ISBN and its price code) where a
    /// tool reads the other, or misread a digit that the one check digit lets pass; the first
    /// reading would then end the scan. So every code a tool reads that the pass did not is
    /// added. Of readings of one linear symbol that disagree, the one both engines give (the pass's
    /// engine and a tool, or both tools) outweighs one that a single engine gives, which goes:
    /// two engines do not misread one code into the same wrong digits. Where no reading has both
    /// engines behind it, all stay: on the corpus's UPC-E photo upce-2/14.png ZXingReader reads a
    /// wrong code, and only the pass, zxing-cpp on a widened copy, reads the right one.
    ///
    /// One more rule holds for zbar's passes over every third line (`fewLines`): zbar as its
    /// tool, scanning every line, drops a linear code read on fewer than four lines, and such a
    /// pass reports those of two or three, a misread digit among them where the check digit lets
    /// it pass. Where zbar as its tool reads the symbol otherwise, that reading outweighs the
    /// pass's.
    package static func addingToolReadings(
        _ symbols: [ScannedSymbol], readBy passEngine: ScanPass.Engine, fewLines: Bool = false,
        from tools: [(engine: ScanPass.Engine, symbols: [ScannedSymbol])]
    ) -> [ScannedSymbol] {
        var result = symbols
        for tool in tools.flatMap(\.symbols) where !result.contains(where: { $0.isSameReading(as: tool) }) {
            result.append(tool)
        }
        // Our QR resampler hands its grids to zxing-cpp: its readings are zxing-cpp's.
        let passEngine = passEngine == .resample ? .zxing : passEngine
        func byBothEngines(_ reading: ScannedSymbol) -> Bool {
            var engines: Set<ScanPass.Engine> = []
            if symbols.contains(where: { $0.isSameReading(as: reading) }) { engines.insert(passEngine) }
            for tool in tools where tool.symbols.contains(where: { $0.isSameReading(as: reading) }) {
                engines.insert(tool.engine)
            }
            return engines.isSuperset(of: [.zbar, .zxing])
        }
        let agreed = result.filter(byBothEngines)
        let zbarOwn = passEngine == .zbar && fewLines ? tools.filter { $0.engine == .zbar }.flatMap(\.symbols) : []
        func outweighedByZBarOwn(_ reading: ScannedSymbol) -> Bool {
            symbols.contains { $0.isSameReading(as: reading) } && !zbarOwn.contains { $0.isSameReading(as: reading) }
                && zbarOwn.contains { disagree($0, reading) }
        }
        // Only linear codes: QR codes of other bytes at one place are codes side by side (their
        // error correction keeps a misread from passing as another code).
        return result.filter { reading in
            guard reading.symbology.isLinear, !agreed.contains(where: { $0.isSameReading(as: reading) }) else {
                return true
            }
            return !agreed.contains { disagree($0, reading) } && !outweighedByZBarOwn(reading)
        }
    }

    /// `reading`, zxing-cpp's on a prepared copy of an image (widened, sharpened along the rows),
    /// or another code of its place that zxing-cpp reads on a cut-out of the image around it both
    /// unprepared (`unprepared`) and prepared as the pass prepared the whole (`prepared`), where
    /// the prepared cut-out does not give `reading`.
    ///
    /// zxing-cpp reads a linear code row by row, with a threshold each row's histogram sets: what
    /// lies beside the code on those rows (a photo's carpet, another label) sways it. On a 12 MP
    /// photo of a book on a carpet, the row-sharpened copy of the candidate cut out around the
    /// code reads the ISBN with six wrong digits, which the one check digit lets pass; a cut-out
    /// of the code and half its width around reads it right, unprepared and sharpened alike. A
    /// reading that the code's own pixels, prepared the same way, do not give, while they give
    /// another one that the unprepared pixels give too, came from what lay beside the code: two
    /// reads of the code outweigh one of the code and its surroundings. Where the prepared cut-out
    /// gives the pass's reading, or gives nothing there, or the two reads of the cut-out disagree
    /// (or agree on two codes there), the pass's reading stands: zxing-cpp misreads a blurred
    /// UPC-E's unprepared pixels as 04904144 where the widened copy, whole or cut out, reads the
    /// right 04963406.
    package static func settled(_ reading: ScannedSymbol, prepared: [ScannedSymbol], unprepared: [ScannedSymbol])
        -> ScannedSymbol
    {
        func gives(_ reads: [ScannedSymbol], _ symbol: ScannedSymbol) -> Bool {
            reads.contains { $0.isSameReading(as: symbol) && $0.overlaps(symbol) }
        }
        // At its place: each one's centre within the other's width, not a code beside it whose
        // bounds touch its own.
        func atPlace(_ other: ScannedSymbol) -> Bool {
            let (a, b) = (reading.bounds, other.bounds)
            let (aCentre, bCentre) = ((a.minX + a.maxX) / 2, (b.minX + b.maxX) / 2)
            return a.minX <= bCentre && bCentre <= a.maxX && b.minX <= aCentre && aCentre <= b.maxX
        }
        guard !gives(prepared, reading) else { return reading }
        let rivals = unprepared.filter { disagree($0, reading) && atPlace($0) && gives(prepared, $0) }
        // Two codes there that both reads give: nothing tells which one the pass misread.
        return rivals.count == 1 ? rivals[0] : reading
    }

    /// The readings of `first`, then those of `second` that are not the same code as one of them
    /// (the same symbology and bytes at an overlapping place): both tools' readings, each once.
    package static func union(_ first: [ScannedSymbol], _ second: [ScannedSymbol]) -> [ScannedSymbol] {
        first
            + second.filter { symbol in
                !first.contains { $0.isSameReading(as: symbol) && $0.overlaps(symbol) }
            }
    }

    /// The same symbology, other bytes, and places that overlap. A UPC-A code is an EAN-13 code
    /// whose first digit is 0, and engines report one symbol either way: a UPC-A and an EAN-13
    /// reading disagree where their 13 digits do.
    static func disagree(_ a: ScannedSymbol, _ b: ScannedSymbol) -> Bool {
        guard a.overlaps(b) else { return false }
        if a.symbology == b.symbology { return a.bytes != b.bytes }
        guard let first = a.gtin13, let second = b.gtin13 else { return false }
        return first != second
    }
}

extension ScannedSymbol {
    /// An EAN-13 or UPC-A code's 13 digits (a UPC-A code's with a leading 0); `nil` for any other.
    var gtin13: [UInt8]? {
        switch symbology {
        case .ean13 where bytes.count == 13: bytes
        case .upca where bytes.count == 12: Array("0".utf8) + bytes
        default: nil
        }
    }

    /// The same symbology and bytes, wherever read.
    func isSameReading(as other: ScannedSymbol) -> Bool { symbology == other.symbology && bytes == other.bytes }

    /// Whether the two symbols' bounds overlap, each widened by a tenth of its larger side (at
    /// least four pixels): a linear code's bounds are those of the lines that read it (the rows of
    /// a hit for zbar, one line for zxing-cpp), which for two readings of one code may be rows
    /// apart, while two codes stacked on a label lie further apart than that.
    func overlaps(_ other: ScannedSymbol) -> Bool {
        func widened(_ symbol: ScannedSymbol) -> (minX: Int, minY: Int, maxX: Int, maxY: Int) {
            let b = symbol.bounds
            let margin = max(4, max(b.maxX - b.minX, b.maxY - b.minY) / 10)
            return (b.minX - margin, b.minY - margin, b.maxX + margin, b.maxY + margin)
        }
        let (a, b) = (widened(self), widened(other))
        return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY
    }
}
