import Foundation

/// How hard the scanner tries before it gives up on an image.
public enum ScanEffort: String, Sendable, Hashable, CaseIterable, Codable {
    /// One zbar pass (and its inverted retry): the speed of zbarimg.
    case fast
    /// Then zxing-cpp, and zbar on contrast-stretched, thresholded and rescaled copies (the default).
    case normal
    /// Then also rotated, sharpened and smoothed copies, with both engines.
    case thorough
}

/// One attempt: an image operation, an engine, and the way back to the original's coordinates.
struct ScanPass: Sendable {
    enum Engine: String, Sendable { case zbar, zxing }

    var engine: Engine
    /// What is done to the image first (`plain`, `threshold`, `scale2.0`, …). Passes with the same
    /// preparation read the same pixels, which a scan makes once.
    var preparation: String
    /// Makes the image this pass reads; `nil` when the pass does not apply (e.g. no need to enlarge a big image).
    var prepare: @Sendable (GrayImage) -> GrayImage?
    /// Maps a point of the prepared image back to the original.
    var mapBack: @Sendable (Point, GrayImage) -> Point = { point, _ in point }
    /// zbar only: retry with the image inverted when nothing is found (light codes on dark). Only
    /// the first pass does; it doubles the cost of a pass that finds nothing.
    var invertedRetry = false

    /// `zbar`, `zxing-threshold`, …: the engine, and the preparation unless it is `plain`.
    var name: String { preparation == "plain" ? engine.rawValue : "\(engine.rawValue)-\(preparation)" }

    static func pass(_ engine: Engine, _ preparation: String, invertedRetry: Bool = false,
                     _ prepare: @escaping @Sendable (GrayImage) -> GrayImage?) -> ScanPass {
        ScanPass(engine: engine, preparation: preparation, prepare: prepare, invertedRetry: invertedRetry)
    }

    static func scaled(_ engine: Engine, by factor: Double, when applies: @escaping @Sendable (GrayImage) -> Bool) -> ScanPass {
        ScanPass(engine: engine, preparation: "scale\(factor)",
                 prepare: { applies($0) ? $0.scaled(by: factor) : nil },
                 mapBack: { point, _ in Point(x: Int((Double(point.x) / factor).rounded()), y: Int((Double(point.y) / factor).rounded())) })
    }

    static func rotated(_ engine: Engine, by degrees: Double) -> ScanPass {
        ScanPass(engine: engine, preparation: "rotate\(Int(degrees))", prepare: { $0.rotated(degrees: degrees) }, mapBack: { point, original in
            // The inverse of GrayImage.rotated: from the rotated canvas back to the original frame.
            let radians = degrees * .pi / 180
            let cosine = cos(radians), sine = sin(radians)
            let width = Double(original.width), height = Double(original.height)
            let canvasWidth = (width * abs(cosine) + height * abs(sine)).rounded(.up)
            let canvasHeight = (width * abs(sine) + height * abs(cosine)).rounded(.up)
            let dx = Double(point.x) - canvasWidth / 2, dy = Double(point.y) - canvasHeight / 2
            return Point(x: Int((cosine * dx - sine * dy + width / 2).rounded()), y: Int((sine * dx + cosine * dy + height / 2).rounded()))
        })
    }

    /// The passes of each effort; the first pass that finds a code ends the scan. After the plain
    /// zbar pass (the fast path), the order follows what each pass adds per millisecond on the
    /// stress variants of the public corpus (README, "Decoding pipeline").
    static func passes(for effort: ScanEffort) -> [ScanPass] {
        let plain = ScanPass.pass(.zbar, "plain", invertedRetry: true) { $0 }
        guard effort != .fast else { return [plain] }
        let small: @Sendable (GrayImage) -> Bool = { max($0.width, $0.height) < 1200 }
        let large: @Sendable (GrayImage) -> Bool = { min($0.width, $0.height) > 900 }
        let threshold: @Sendable (GrayImage) -> GrayImage? = { $0.adaptiveThreshold(window: max(15, min($0.width, $0.height) / 12)) }
        var passes = [
            plain,
            .pass(.zxing, "plain") { $0 },
            .pass(.zbar, "threshold", threshold),
            .pass(.zxing, "threshold", threshold),
            // Both detectors need a few pixels per module; small photos get them by enlarging.
            .scaled(.zbar, by: 2, when: small),
            .scaled(.zxing, by: 2, when: small),
            .pass(.zbar, "sharpen") { $0.sharpened() },
            // Faint light-on-dark codes need the stretch and the inversion together.
            .pass(.zbar, "contrast", invertedRetry: true) { $0.stretchedContrast() },
            .pass(.zbar, "smooth") { $0.boxBlurred() },
            .scaled(.zbar, by: 0.5, when: large),
        ]
        guard effort == .thorough else { return passes }
        passes += [
            .rotated(.zbar, by: 45), .rotated(.zbar, by: 22.5), .rotated(.zbar, by: -22.5),
            .pass(.zxing, "sharpen") { $0.sharpened() },
            .pass(.zxing, "contrast") { $0.stretchedContrast() },
            .scaled(.zxing, by: 0.5, when: large),
        ]
        return passes
    }
}
