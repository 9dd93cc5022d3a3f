import Foundation

/// How hard the scanner tries before it gives up on an image.
public enum ScanEffort: String, Sendable, Hashable, CaseIterable, Codable {
    /// One zbar pass (and its inverted retry): the speed of zbarimg.
    case fast
    /// zxing-cpp first, then cheap retries on prepared copies, and the expensive ones only where
    /// the image shows QR finder patterns; last, each engine as its command-line tool reads, so
    /// that nothing either tool reads alone is missed (the default).
    case normal
    /// Then also every retry without asking for evidence, rotated copies and zbar's inverted retries.
    case thorough
}

/// One attempt: an image operation, an engine, and the way back to the original's coordinates.
package struct ScanPass: Sendable {
    package enum Engine: String, Sendable {
        case zbar, zxing
        /// ``QRModel1Reader``: QR Code Model 1, which neither engine reads.
        case model1
        /// ``QRResampler``: QR codes whose grid zxing gets wrong, resampled and handed to zxing clean.
        case resample
    }

    package var engine: Engine
    /// What is done to the image first (`plain`, `threshold`, `scale2.0`, …). Passes with the same
    /// preparation read the same pixels, which a scan makes once.
    package var preparation: String
    /// Makes the image this pass reads; `nil` when the pass does not apply (e.g. no need to enlarge a big image).
    var prepare: @Sendable (GrayImage) -> GrayImage?
    /// Maps a point of the prepared image back to the original.
    var mapBack: @Sendable (Point, GrayImage) -> Point = { point, _ in point }
    /// zbar only: retry with the image inverted when nothing is found (light codes on dark). It
    /// doubles the cost of a pass that finds nothing, and more on textures (zbar's QR reader), so
    /// only `fast` and `thorough` ask for it.
    var invertedRetry = false
    /// zbar only: scan every n-th row and column (1: all of them).
    var density = 1
    /// Whether the pass reports linear codes read on fewer scan lines than zbar itself asks (two
    /// or three; ``ZBarEngine`` drops those of one): zbar drops those of fewer than four lines
    /// only when it scans every line.
    var reportsFewLines: Bool { engine == .zbar && density > 1 }
    /// zbar only: scan down the columns too, not only across the rows.
    var scanColumns = true
    /// Only these symbologies (of those the scanner looks for); `nil`: all of them.
    var symbologies: Set<Symbology>?
    /// zxing only: its own retries (a harder search, the image turned by 90°, downscaled copies);
    /// none is one plain attempt.
    var zxingRetries: ZXingEngine.Retries = .all
    /// Runs only when the image shows QR finder patterns (``CodeEvidence``): the expensive QR
    /// retries, which an image without a code would otherwise pay for in full.
    package var needsFinderPatterns = false
    /// Runs only when the image shows two finder patterns of one code
    /// (``FinderSurvey/showsFinderPair``): the QR passes that need three finders, and the last
    /// and costliest QR retries, which a texture with one finder-like blob would otherwise pay
    /// for in full.
    package var needsFinderPair = false
    /// Runs only when the image shows light finder patterns on dark
    /// (``FinderSurvey/lightFinders``): the pass for light codes on a dark ground.
    package var needsLightFinderPatterns = false
    /// Waits until the QR passes have run when the image shows two finder patterns of one code
    /// (``FinderSurvey/showsFinderPair``): the linear retries, which such an image would
    /// otherwise pay for before the passes likely to read it.
    package var yieldsToFinderPair = false
    /// zxing only, on a copy of the same rows (widened, sharpened along the rows): a product code
    /// it reads that no tool confirms is set against the unprepared pixels around it
    /// (``BarcodeScanner/settledOnUnpreparedPixels(_:of:readBy:unlessRead:)``).
    package var settlesOnUnpreparedPixels = false
    /// The engine as its command-line tool reads, with the tool's defaults (zbarimg;
    /// ZXingReader): the last passes of `normal`, after which the pipeline has read whatever
    /// either tool reads alone. On a large photo they read, as every pass after the first does,
    /// the half-size copy, and the full resolution around the candidates.
    package var readsAsItsTool = false

    /// zxing-cpp's one plain attempt on the unprepared pixels, without its retries: the first pass
    /// of `normal`, and the cheapest read of a sharp code.
    var isFirstPlainAttempt: Bool {
        engine == .zxing && preparation == "plain" && zxingRetries.isEmpty && symbologies == nil
    }

    /// `zbar`, `zxing-threshold/once`, …: the engine, the preparation unless it is `plain`, and the
    /// engine's settings where they differ from its defaults.
    package var name: String {
        let decoder = decoderName
        guard preparation != "plain" else { return decoder }
        let engineEnd = decoder.firstIndex(of: "/") ?? decoder.endIndex
        return decoder[..<engineEnd] + "-" + preparation + decoder[engineEnd...]
    }

    /// The engine and its settings, without the preparation: two passes with the same decoder
    /// name read identical pixels identically.
    var decoderName: String {
        var name = engine.rawValue
        if density > 1 { name += "/d\(density)" }
        if !scanColumns { name += "/rows" }
        if let symbologies {
            name +=
                symbologies == Self.qr
                ? "/qr"
                : symbologies == Self.linear
                    ? "/linear"
                    : symbologies == Self.productCodes
                        ? "/products" : "/" + symbologies.map(\.rawValue).sorted().joined(separator: "+")
        }
        if engine == .zbar && invertedRetry { name += "/inv" }
        if engine == .zxing && zxingRetries != .all { name += zxingRetries.isEmpty ? "/once" : "/" + zxingRetries.name }
        return name
    }

    static func pass(_ engine: Engine, _ preparation: String, _ prepare: @escaping @Sendable (GrayImage) -> GrayImage?)
        -> ScanPass
    {
        ScanPass(engine: engine, preparation: preparation, prepare: prepare)
    }

    // The preparations, each defined once for the pipeline and the study.
    static func plain(_ engine: Engine) -> ScanPass { pass(engine, "plain") { $0 } }
    static func thresholded(_ engine: Engine) -> ScanPass {
        pass(engine, "threshold") { $0.adaptiveThreshold(window: thresholdWindow($0)) }
    }
    static func sharpened(_ engine: Engine) -> ScanPass { pass(engine, "sharpen") { $0.sharpened() } }
    static func contrastStretched(_ engine: Engine) -> ScanPass { pass(engine, "contrast") { $0.stretchedContrast() } }
    static func smoothed(_ engine: Engine) -> ScanPass { pass(engine, "smooth") { $0.boxBlurred() } }
    static func inverted(_ engine: Engine) -> ScanPass { pass(engine, "invert") { $0.inverted() } }
    /// Focus-blurred photos: enlarged a little (room for the edges) and unsharp-masked at the scale
    /// of a few modules, which separates modules that blur has merged (`thorough`, for QR codes:
    /// in the pass study it read blurred QR photos no other pass did, too rarely for `normal`).
    static func deblurred(_ engine: Engine) -> ScanPass {
        let factor = 1.25
        return ScanPass(
            engine: engine, preparation: "deblur",
            prepare: {
                max($0.width, $0.height) < 1600 ? $0.scaled(by: factor).unsharpMasked(radius: 3, amount: 2) : nil
            },
            mapBack: unscaling(horizontally: factor, vertically: factor))
    }
    /// Both detectors need a few pixels per module; small photos get them by enlarging.
    static func enlarged(_ engine: Engine) -> ScanPass { scaled(engine, by: 2) { max($0.width, $0.height) < 1200 } }
    /// For linear codes (horizontal scanlines): widened only, at half the cost of enlarging.
    static func stretched(_ engine: Engine) -> ScanPass {
        ScanPass(
            engine: engine, preparation: "stretch2.0",
            prepare: { $0.width < 1200 ? $0.stretched(horizontally: 2) : nil },
            mapBack: unscaling(horizontally: 2, vertically: 1))
    }
    /// ``deblurred(_:)`` for linear codes: widened and sharpened along the rows only (half the cost;
    /// the bars run down the image).
    static func deblurredRows(_ engine: Engine) -> ScanPass {
        // Widened by a quarter and σ ≈ 4 read the most blurred EAN/UPC photos of the pass study
        // (σ ≈ 2 or 3, widening by half or 2×, or a stronger mask read fewer).
        let factor = 1.25
        return ScanPass(
            engine: engine, preparation: "deblur-rows",
            prepare: {
                $0.width < 1600
                    ? $0.stretched(horizontally: factor).unsharpMasked(radius: 4, amount: 2, alongRowsOnly: true) : nil
            },
            mapBack: unscaling(horizontally: factor, vertically: 1))
    }
    static func halved(_ engine: Engine) -> ScanPass { scaled(engine, by: 0.5) { min($0.width, $0.height) > 900 } }

    static func scaled(_ engine: Engine, by factor: Double, when applies: @escaping @Sendable (GrayImage) -> Bool)
        -> ScanPass
    {
        ScanPass(
            engine: engine, preparation: "scale\(factor)",
            prepare: { applies($0) ? $0.scaled(by: factor) : nil },
            mapBack: unscaling(horizontally: factor, vertically: factor))
    }

    /// The way back from a copy scaled by `horizontal` across and `vertical` down.
    static func unscaling(horizontally horizontal: Double, vertically vertical: Double)
        -> @Sendable (Point, GrayImage) -> Point
    {
        { point, _ in
            Point(x: Int((Double(point.x) / horizontal).rounded()), y: Int((Double(point.y) / vertical).rounded()))
        }
    }

    static func rotated(_ engine: Engine, by degrees: Double) -> ScanPass {
        ScanPass(
            engine: engine, preparation: "rotate\(Int(degrees))", prepare: { $0.rotated(degrees: degrees) },
            mapBack: { point, original in
                // The inverse of GrayImage.rotated: from the rotated canvas back to the original frame.
                let radians = degrees * .pi / 180
                let cosine = cos(radians)
                let sine = sin(radians)
                let width = Double(original.width)
                let height = Double(original.height)
                let canvasWidth = (width * abs(cosine) + height * abs(sine)).rounded(.up)
                let canvasHeight = (width * abs(sine) + height * abs(cosine)).rounded(.up)
                let dx = Double(point.x) - canvasWidth / 2
                let dy = Double(point.y) - canvasHeight / 2
                return Point(
                    x: Int((cosine * dx - sine * dy + width / 2).rounded()),
                    y: Int((sine * dx + cosine * dy + height / 2).rounded()))
            })
    }

    /// `symbols` read on this pass's copy of `source`, with their corners in `source`'s coordinates.
    func mappedBack(_ symbols: [ScannedSymbol], to source: GrayImage) -> [ScannedSymbol] {
        symbols.map { symbol in
            var symbol = symbol
            symbol.corners = symbol.corners.map { mapBack($0, source) }
            return symbol
        }
    }

    /// This pass for these symbologies only.
    func only(_ subset: Set<Symbology>) -> ScanPass { with { $0.symbologies = subset } }
    /// This pass with zbar's inverted retry.
    var invertedToo: ScanPass { with { $0.invertedRetry = true } }
    /// This pass on every n-th line (zbar).
    func density(_ n: Int) -> ScanPass { with { $0.density = n } }
    /// This pass with these zxing retries.
    func retries(_ retries: ZXingEngine.Retries) -> ScanPass { with { $0.zxingRetries = retries } }
    /// This pass only where the image shows finder patterns.
    var gated: ScanPass { with { $0.needsFinderPatterns = true } }
    /// This pass only where the image shows two finder patterns of one code.
    var gatedOnFinderPair: ScanPass { with { $0.needsFinderPair = true } }
    /// This zbar pass across the rows only.
    var acrossRowsOnly: ScanPass { with { $0.scanColumns = false } }
    /// This pass only where the image shows light finder patterns on dark.
    var whenLightFinders: ScanPass { with { $0.needsLightFinderPatterns = true } }
    /// This pass after the QR passes where the image shows a finder pair.
    var afterQRWhenFinderPair: ScanPass { with { $0.yieldsToFinderPair = true } }
    /// This zxing pass with its product codes settled on the unprepared pixels.
    var settledOnUnpreparedPixels: ScanPass { with { $0.settlesOnUnpreparedPixels = true } }
    /// This pass as the engine's tool reads: the pipeline's last stage.
    var asItsTool: ScanPass { with { $0.readsAsItsTool = true } }

    func with(_ change: (inout ScanPass) -> Void) -> ScanPass {
        var copy = self
        change(&copy)
        return copy
    }

    static let qr: Set<Symbology> = [.qr, .microqr]
    static let linear = Set(Symbology.allCases).subtracting(qr)
    /// EAN-13, EAN-8, UPC-A and UPC-E: the codes on products, often photographed out of focus.
    static let productCodes: Set<Symbology> = [.ean13, .ean8, .upca, .upce]

    /// The passes of each effort; the first pass that finds a code ends the scan.
    ///
    /// The order is the outcome of `benchmarks/pass-study.py` over every candidate pass on the
    /// public corpus, its stress variants and varied copies of every category
    /// (docs/scanning.md, "The decoding pipeline"): zxing-cpp reads most codes in about a
    /// millisecond; then retries for light codes on dark (where light finder patterns show) and
    /// for linear codes (widened; sharpened along the rows and zbar across the rows, both for
    /// product codes; all three after the QR passes where the image shows two finder patterns of
    /// one code); zbar's full pass, the QR Model 1 reader, the expensive QR retries (thresholded,
    /// enlarged, sharpened, rotated copies) and the QR resampler run only where finder patterns
    /// show, those that need three finders and the last ones only where two of one code do.
    /// Without the zxing helper, zbar's passes of before take its place.
    package static func passes(for effort: ScanEffort, secondEngine: Bool = BarcodeScanner.hasSecondEngine)
        -> [ScanPass]
    {
        let plainZBar = plain(.zbar).invertedToo
        guard effort != .fast else { return [plainZBar] }
        guard secondEngine else {
            // zbar alone, in the order of before the study (it has no zxing passes to choose from).
            var passes = [
                plainZBar, thresholded(.zbar), enlarged(.zbar), sharpened(.zbar),
                // Faint light-on-dark codes need the stretch and the inversion together.
                contrastStretched(.zbar).invertedToo, smoothed(.zbar), halved(.zbar),
            ]
            if effort == .thorough {
                passes += [.rotated(.zbar, by: 45), .rotated(.zbar, by: 22.5), .rotated(.zbar, by: -22.5)]
            }
            return passes
        }
        var passes = [
            plain(.zxing).retries([]),
            inverted(.zxing).only(qr).retries(.harder).whenLightFinders,
            stretched(.zxing).only(linear).retries(.harder).afterQRWhenFinderPair.settledOnUnpreparedPixels,
            // Focus blur merges the narrow bars of product codes; the other linear codes it
            // rescues too rarely to pay for their readers on every texture.
            deblurredRows(.zxing).only(productCodes).retries(.harder).afterQRWhenFinderPair
                .settledOnUnpreparedPixels,
            // After zxing's linear retries: zbar's reads of blurred UPC codes are sometimes wrong.
            // Across the rows only, and for product codes and ITF (GTIN-14 on cartons), where
            // zbar reads what zxing misses: half the cost of the columns too (which zbar's QR
            // reader needs, behind the finder-pattern gate), and less again without its other
            // linear readers, which found nothing zxing's passes did not.
            plain(.zbar).only(productCodes.union([.itf])).density(3).acrossRowsOnly.afterQRWhenFinderPair,
            // The QR Model 1 reader fits a finder triangle, and zbar's QR reader needs three
            // finders of its own (it reads no Micro QR): with no two of one code in sight, the
            // passes after them read what these would.
            plain(.zbar).density(3).gatedOnFinderPair,
            plain(.model1).gatedOnFinderPair,
            thresholded(.zxing).only(qr).retries([]).gated,
            enlarged(.zxing).only(qr).retries([]).gated,
            contrastStretched(.zxing).only(qr).retries([.harder, .rotate]).gated,
            sharpened(.zxing).only(qr).retries([]).gated,
            sharpened(.zbar).only(qr).gatedOnFinderPair,
            // It fits a grid for each finder triangle and size (a few milliseconds), and reads
            // most of what the zbar passes on smoothed, enlarged and turned copies after it
            // would, for less.
            plain(.resample).gated,
            smoothed(.zbar).only(qr).gated,
            rotated(.zxing, by: 22.5).only(qr).gated,
            // What these read, an image with one finder pattern alone (a Micro QR code, a blurred
            // QR code) gave the passes before them; a texture with one finder-like blob stops here.
            enlarged(.zxing).only(qr).gatedOnFinderPair,
            smoothed(.zbar).density(3).gatedOnFinderPair,
            thresholded(.zbar).only(qr).gatedOnFinderPair,
            enlarged(.zbar).density(3).gatedOnFinderPair,
            rotated(.zbar, by: -22.5).only(qr).gatedOnFinderPair,
            enlarged(.zbar).density(2).gatedOnFinderPair,
            // Last, each engine as its tool reads with its defaults: zbarimg (every row and
            // column, every symbology), then ZXingReader (harder, turned by 90°, downscaled). What
            // either tool reads alone, the pipeline reads too (benchmarks/superset.py), whatever
            // the passes before were ordered and gated for: a linear code turned across the image
            // (the product-code passes read along the rows), a code whose finder patterns the
            // survey missed.
            plain(.zbar).asItsTool,
            plain(.zxing).asItsTool,
        ]
        guard effort == .thorough else { return passes }
        passes = passes.map {
            $0.with {
                $0.needsFinderPatterns = false
                $0.needsFinderPair = false
                $0.needsLightFinderPatterns = false
                $0.yieldsToFinderPair = false
            }
        }
        passes += [
            // Redundant in the study (later passes read all they read), kept for thoroughness.
            thresholded(.zxing).only(linear).retries([]),
            plainZBar, thresholded(.zbar).invertedToo, contrastStretched(.zbar).invertedToo,
            enlarged(.zbar).invertedToo,
            rotated(.zbar, by: 45), rotated(.zbar, by: 22.5), rotated(.zxing, by: 45), rotated(.zxing, by: -22.5),
            halved(.zbar), halved(.zxing), deblurred(.zxing).only(qr), deblurred(.zbar).only(qr),
        ]
        return passes
    }

    /// The adaptive threshold's window: about a twelfth of the image, at least 15 pixels.
    static func thresholdWindow(_ image: GrayImage) -> Int { max(15, min(image.width, image.height) / 12) }
}
