/// Reads QR codes that zxing-cpp finds but cannot correct: blurred, curved or unevenly lit
/// photos, where its binarizer and sampling grid get too many modules wrong.
///
/// The resampler fits the grid itself: the three finder patterns, the alignment pattern searched
/// for where the finders predict it, and several symbol sizes. Each module is classified against
/// the mean of the modules around it (lighting and blur vary over a photo; a module does not),
/// and the result is drawn as a clean symbol, with ideal finder and timing patterns, that zxing
/// then decodes as a pure image: its format check and Reed–Solomon correction decide, so a wrong
/// grid yields nothing rather than a wrong text.
enum QRResampler {
    /// The codes found, or none; `survey` holds the image's finder patterns when the pipeline has
    /// looked for them already.
    static func read(_ image: GrayImage, survey: FinderSurvey? = nil, with engine: ZXingEngine) -> [ScannedSymbol] {
        for binarization in (survey ?? FinderSurvey(image)).binarizations {
            for triangle in CodeEvidence.finderTriangles(binarization.finders).prefix(4) {
                if let symbol = read(image, triangle, with: engine) { return [symbol] }
            }
        }
        return []
    }

    private static func read(_ image: GrayImage, _ triangle: CodeEvidence.FinderTriangle, with engine: ZXingEngine)
        -> ScannedSymbol?
    {
        let module = (triangle.topLeft.module + triangle.topRight.module + triangle.bottomLeft.module) / 3
        // Versions 1…10: larger symbols have several alignment patterns, which one fourth point
        // cannot follow; zxing's own grid does better there.
        for version in QRGrid.versions(around: triangle) where (1...10).contains(version) {
            let size = 17 + 4 * version
            var grids: [QRGrid] = []
            if version > 1, let parallelogram = QRGrid(triangle, size: size) {
                let start =
                    alignmentCentre(image, parallelogram, module: module)
                    ?? parallelogram.pixel(Double(size) - 6.5, Double(size) - 6.5)
                if let refined = refined(image, triangle, size: size, from: start, module: module) {
                    grids.append(refined)
                    grids.append(bent(image, refined, module: module))
                }
            }
            grids += [QRGrid(triangle, size: size)].compactMap { $0 }
            for grid in grids {
                guard let values = grid.sample(image) else { continue }
                let clean = render(classified(values, size: size), size: size, version: version)
                let found = engine.scan(clean.image, options: .init(symbologies: [.qr], retries: [], pure: true))
                guard var symbol = found.first(where: { $0.symbology == .qr }) else { continue }
                symbol.corners = grid.corners
                return symbol
            }
        }
        return nil
    }

    /// How crisply `grid` samples the image: the mean distance of each module's value from the
    /// mean of its neighbours. On the modules' centres the values are far from it (dark or light);
    /// a grid off by half a module samples edges, halfway.
    static func crispness(_ image: GrayImage, _ grid: QRGrid) -> Double? {
        grid.sample(image).map { crispness($0, size: grid.size) }
    }

    /// ``crispness(_:_:)`` of sampled module values.
    static func crispness(_ values: [Double], size: Int) -> Double {
        let side = size + 1
        // A summed-area table: each neighbourhood's sum in four lookups.
        var sums = [Double](repeating: 0, count: side * side)
        for row in 0..<size {
            var line = 0.0
            for column in 0..<size {
                line += values[row * size + column]
                sums[(row + 1) * side + column + 1] = sums[row * side + column + 1] + line
            }
        }
        var total = 0.0
        for row in 0..<size {
            let top = max(0, row - 2)
            let bottom = min(size, row + 3)
            for column in 0..<size {
                let left = max(0, column - 2)
                let right = min(size, column + 3)
                let sum =
                    sums[bottom * side + right] - sums[top * side + right] - sums[bottom * side + left]
                    + sums[top * side + left]
                total += abs(values[row * size + column] - sum / Double((bottom - top) * (right - left)))
            }
        }
        return total / Double(size * size)
    }

    /// The grid whose four points (the three finder centres and the alignment pattern's), each
    /// moved from where they were found in shrinking steps, sample the image most crisply: the
    /// finder centres a run-length scan finds are off by a pixel or two in a blurred photo, and
    /// over 20-odd modules that is enough to sample the far side between modules.
    static func refined(
        _ image: GrayImage, _ triangle: CodeEvidence.FinderTriangle, size: Int, from start: (x: Double, y: Double),
        module: Double
    ) -> QRGrid? {
        let centre = Double(size) - 6.5
        // The points as x, y pairs: top left, top right, bottom left, alignment.
        var points = [
            triangle.topLeft.x, triangle.topLeft.y, triangle.topRight.x, triangle.topRight.y,
            triangle.bottomLeft.x, triangle.bottomLeft.y, start.x, start.y,
        ]
        func grid(_ p: [Double]) -> QRGrid? {
            var moved = triangle
            moved.topLeft.x = p[0]
            moved.topLeft.y = p[1]
            moved.topRight.x = p[2]
            moved.topRight.y = p[3]
            moved.bottomLeft.x = p[4]
            moved.bottomLeft.y = p[5]
            return QRGrid(moved, size: size, fourth: (p[6], p[7]), fourthModule: centre)
        }
        guard var best = grid(points), var score = crispness(image, best) else { return nil }
        for step in [module / 2, module / 4, module / 8] {
            // A few sweeps a step: each moves every point at most one step.
            var improved = true
            var sweeps = 0
            while improved && sweeps < 3 {
                improved = false
                sweeps += 1
                for index in points.indices {
                    for delta in [step, -step] {
                        var candidate = points
                        candidate[index] += delta
                        if let moved = grid(candidate), let candidateScore = crispness(image, moved),
                            candidateScore > score
                        {
                            (points, best, score, improved) = (candidate, moved, candidateScore, true)
                        }
                    }
                }
            }
        }
        return best
    }

    /// `grid` with its mesh offsets moved, point by point in shrinking steps (at most three
    /// quarters of a module), to where the image is sampled most crisply.
    ///
    /// A mesh point moves only the modules of the cells around it, so each candidate samples
    /// those again and keeps the other values (a quarter of the symbol on average).
    static func bent(_ image: GrayImage, _ grid: QRGrid, module: Double) -> QRGrid {
        var best = grid
        best.offsets = Array(repeating: (0, 0), count: QRGrid.lattice * QRGrid.lattice)
        let field = QRGrid.ModuleField(best)
        var values = [Double](repeating: 0, count: grid.size * grid.size)
        guard field.sample(image, best, modules: values.indices, into: &values) else { return grid }
        var score = crispness(values, size: grid.size)
        let moves = best.offsets.indices.map { field.modules(movedBy: $0) }
        for step in [module / 2, module / 4, module / 8] {
            for index in best.offsets.indices {
                for (dx, dy) in [(step, 0.0), (-step, 0), (0, step), (0, -step)] {
                    var candidate = best
                    let moved = (x: best.offsets[index].x + dx, y: best.offsets[index].y + dy)
                    guard abs(moved.x) <= 0.75 * module, abs(moved.y) <= 0.75 * module else { continue }
                    candidate.offsets[index] = moved
                    var candidateValues = values
                    guard field.sample(image, candidate, modules: moves[index], into: &candidateValues) else {
                        continue
                    }
                    let candidateScore = crispness(candidateValues, size: grid.size)
                    if candidateScore > score {
                        (best, values, score) = (candidate, candidateValues, candidateScore)
                    }
                }
            }
        }
        return best
    }

    /// The bottom right alignment pattern's centre: the best dark-light-dark ring pattern within
    /// three modules of where the parallelogram of the finders puts it.
    static func alignmentCentre(_ image: GrayImage, _ grid: QRGrid, module: Double) -> (x: Double, y: Double)? {
        let centreModule = Double(grid.size) - 6.5
        let predicted = grid.pixel(centreModule, centreModule)
        // One module along each axis of the grid, in pixels.
        let along = grid.pixel(centreModule + 1, centreModule)
        let down = grid.pixel(centreModule, centreModule + 1)
        let u = (along.x - predicted.x, along.y - predicted.y)
        let v = (down.x - predicted.x, down.y - predicted.y)
        let ring: [(Double, Double)] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
        var best: (score: Double, x: Double, y: Double)?
        let reach = Int((3 * module).rounded(.up))
        let step = max(1, Int(module / 3))
        for dy in stride(from: -reach, through: reach, by: step) {
            for dx in stride(from: -reach, through: reach, by: step) {
                let cx = predicted.x + Double(dx)
                let cy = predicted.y + Double(dy)
                func value(_ a: Double, _ b: Double) -> Double? {
                    image.interpolated(at: (cx + a * u.0 + b * v.0, cy + a * u.1 + b * v.1))
                }
                guard let centre = value(0, 0) else { continue }
                var light = 0.0
                var dark = 0.0
                for (a, b) in ring {
                    guard let inner = value(a, b), let outer = value(2 * a, 2 * b) else {
                        light = -.infinity
                        break
                    }
                    light += inner
                    dark += outer
                }
                // Light ring brighter than both the centre and the outer ring.
                let score = min(light / 8 - centre, light / 8 - dark / 8)
                if score > (best?.score ?? 0) { best = (score, cx, cy) }
            }
        }
        guard let best, best.score > 20 else { return nil }
        return (best.x, best.y)
    }

    /// Dark (`true`) where a module is darker than the mean of the 7×7 modules around it, or,
    /// where they hardly differ (a flat area), than the symbol's mean.
    static func classified(_ values: [Double], size: Int) -> [Bool] {
        let overall = values.reduce(0, +) / Double(values.count)
        var dark = [Bool](repeating: false, count: values.count)
        for row in 0..<size {
            for column in 0..<size {
                var sum = 0.0
                var count = 0.0
                var low = Double.infinity
                var high = -Double.infinity
                for r in max(0, row - 3)...min(size - 1, row + 3) {
                    for c in max(0, column - 3)...min(size - 1, column + 3) {
                        let value = values[r * size + c]
                        sum += value
                        count += 1
                        low = min(low, value)
                        high = max(high, value)
                    }
                }
                let threshold = high - low < 24 ? overall : sum / count
                dark[row * size + column] = values[row * size + column] < threshold
            }
        }
        return dark
    }

    /// The modules drawn as a pure symbol (3 pixels a module, a 4-module quiet zone), with the
    /// finder, separator and timing patterns (and version 2…6's alignment pattern) as the
    /// standard has them, whatever was sampled there.
    static func render(_ dark: [Bool], size: Int, version: Int) -> (image: GrayImage, scale: Int) {
        var modules = dark
        func set(_ column: Int, _ row: Int, _ value: Bool) {
            guard column >= 0, row >= 0, column < size, row < size else { return }
            modules[row * size + column] = value
        }
        for (left, top) in [(0, 0), (size - 7, 0), (0, size - 7)] {
            for r in -1...7 {
                for c in -1...7 {
                    let ring = max(abs(c - 3), abs(r - 3))
                    set(left + c, top + r, ring != 2 && ring <= 3)
                }
            }
        }
        for index in 8..<(size - 8) {
            set(index, 6, index % 2 == 0)
            set(6, index, index % 2 == 0)
        }
        if (2...6).contains(version) {
            let centre = size - 7
            for r in -2...2 {
                for c in -2...2 { set(centre + c, centre + r, max(abs(c), abs(r)) != 1) }
            }
        }
        let scale = 3
        let quiet = 4
        let side = (size + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for row in 0..<size {
            for column in 0..<size where modules[row * size + column] {
                for y in 0..<scale {
                    let start = ((row + quiet) * scale + y) * side + (column + quiet) * scale
                    for x in 0..<scale { pixels[start + x] = 0 }
                }
            }
        }
        return (GrayImage(unchecked: side, side, pixels), scale)
    }
}
