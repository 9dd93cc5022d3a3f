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
    enum Engine: Sendable { case zbar, zxing }

    var name: String
    var engine: Engine
    /// Makes the image this pass reads; `nil` when the pass does not apply (e.g. no need to enlarge a big image).
    var prepare: @Sendable (GrayImage) -> GrayImage?
    /// Maps a point of the prepared image back to the original.
    var mapBack: @Sendable (Point, GrayImage) -> Point = { point, _ in point }

    static func zbar(_ name: String, _ prepare: @escaping @Sendable (GrayImage) -> GrayImage?) -> ScanPass {
        ScanPass(name: name, engine: .zbar, prepare: prepare)
    }

    static func scaled(_ engine: Engine, by factor: Double, when applies: @escaping @Sendable (GrayImage) -> Bool) -> ScanPass {
        ScanPass(name: "\(engine)-scale\(factor)", engine: engine,
                 prepare: { applies($0) ? $0.scaled(by: factor) : nil },
                 mapBack: { point, _ in Point(x: Int((Double(point.x) / factor).rounded()), y: Int((Double(point.y) / factor).rounded())) })
    }

    static func rotated(_ engine: Engine, by degrees: Double) -> ScanPass {
        ScanPass(name: "\(engine)-rotate\(Int(degrees))", engine: engine, prepare: { $0.rotated(degrees: degrees) }, mapBack: { point, original in
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

    /// The passes of each effort, cheapest first; the first pass that finds a code ends the scan.
    static func passes(for effort: ScanEffort) -> [ScanPass] {
        let plain = ScanPass.zbar("zbar", { $0 })
        guard effort != .fast else { return [plain] }
        let small: @Sendable (GrayImage) -> Bool = { max($0.width, $0.height) < 1200 }
        let large: @Sendable (GrayImage) -> Bool = { min($0.width, $0.height) > 900 }
        var passes = [
            plain,
            ScanPass(name: "zxing", engine: .zxing, prepare: { $0 }),
            .zbar("zbar-contrast", { $0.stretchedContrast() }),
            .zbar("zbar-threshold", { $0.adaptiveThreshold(window: max(15, min($0.width, $0.height) / 12)) }),
            .scaled(.zbar, by: 2, when: small),
            .scaled(.zbar, by: 0.5, when: large),
            .zbar("zbar-smooth", { $0.boxBlurred() }),
            // zxing's detector needs a few pixels per module; small photos get them by enlarging.
            .scaled(.zxing, by: 2, when: small),
            ScanPass(name: "zxing-threshold", engine: .zxing, prepare: { $0.adaptiveThreshold(window: max(15, min($0.width, $0.height) / 12)) }),
        ]
        guard effort == .thorough else { return passes }
        passes += [
            .zbar("zbar-sharpen", { $0.sharpened() }),
            .rotated(.zbar, by: 45), .rotated(.zbar, by: 22.5), .rotated(.zbar, by: -22.5),
            ScanPass(name: "zxing-contrast", engine: .zxing, prepare: { $0.stretchedContrast() }),
            ScanPass(name: "zxing-sharpen", engine: .zxing, prepare: { $0.sharpened() }),
            .scaled(.zxing, by: 0.5, when: large),
        ]
        return passes
    }
}
