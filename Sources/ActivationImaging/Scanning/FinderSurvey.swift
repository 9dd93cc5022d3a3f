/// The QR finder patterns of one image, found once and shared by every pass that asks: the
/// pipeline's gates, the QR Model 1 reader and the QR resampler all look for them in the same
/// two binarizations, which are made and searched only when first needed.
final class FinderSurvey {
    /// One way of cutting the image into dark and light, and the finder patterns it shows.
    struct Binarization {
        /// The image the finders were searched in, and the level below which a pixel is dark.
        var image: GrayImage
        var threshold: UInt8
        var finders: [CodeEvidence.Finder]
    }

    let image: GrayImage

    init(_ image: GrayImage) {
        self.image = image
    }

    /// The adaptively thresholded copy (small modules under uneven light): the threshold passes
    /// read this copy too.
    var adaptive: Binarization { adaptiveScan.binarization }

    /// The light finder patterns on dark of the adaptively thresholded copy: a light code on a
    /// dark ground shows them, and the pass for such codes runs only where they show.
    var lightFinders: [CodeEvidence.Finder] { adaptiveScan.light }

    private lazy var adaptiveScan: (binarization: Binarization, light: [CodeEvidence.Finder]) = {
        let binary = image.adaptiveThreshold(window: ScanPass.thresholdWindow(image))
        let (dark, light) = CodeEvidence.finderScan(binary, light: true)
        return (Binarization(image: binary, threshold: 128, finders: dark), light)
    }()

    /// The image at its global (Otsu) threshold: the adaptive window is a twelfth of the image, and
    /// a code that fills the picture has finder centres wider than that, which it hollows out.
    private(set) lazy var global: Binarization = {
        let threshold = image.otsuThreshold()
        return Binarization(
            image: image, threshold: threshold, finders: CodeEvidence.finderCentres(in: image, threshold: threshold))
    }()

    /// Both binarizations, in the order the QR readers of our own try them.
    var binarizations: [Binarization] { [adaptive, global] }

    /// Three finders in a code's shape with timing patterns between them, at the global threshold.
    private lazy var globalTriangle: Bool = CodeEvidence.finderTriangles(global.finders).contains {
        CodeEvidence.hasTimingPatterns($0, in: image, threshold: global.threshold)
    }

    /// How many finder patterns the image shows, as the pipeline's gate judges: those of the
    /// adaptively thresholded copy, or where it shows none, 3 for a code-shaped triangle with
    /// timing patterns at the global threshold.
    var count: Int {
        let adaptiveCount = adaptive.finders.count
        return adaptiveCount > 0 ? adaptiveCount : globalTriangle ? 3 : 0
    }

    /// Whether two of the finders can belong to one QR code (``CodeEvidence/finderPairs(_:)``),
    /// or a whole finder triangle shows at the global threshold: then the image very likely holds
    /// a QR code, and the QR passes go before the linear retries. Micro QR codes have one finder.
    var showsFinderPair: Bool {
        CodeEvidence.finderPairs(adaptive.finders) > 0 || (adaptive.finders.isEmpty && globalTriangle)
    }
}
