/// Cheap signs that an image holds a code the engines have not read yet: the pipeline spends its
/// expensive passes only where they can pay off, so that an image without a code costs little
/// more than its first passes (issue 13).
enum CodeEvidence {
    /// How many distinct QR finder patterns (the 1:1:3:1:1 dark-light-dark-light-dark squares at
    /// three corners) a binarized image shows: each is a horizontal run pattern confirmed by a
    /// vertical one through its centre, and patterns closer than a few modules count once.
    ///
    /// The ratios hold along any line through the centre of the square, so the count survives
    /// rotation, perspective and blur that defeat a decoder; textures rarely show the 3-module centre.
    ///
    /// Only dark patterns on light count: light ones on dark turn up in every dotted texture (the
    /// pipeline reads light codes on dark with a pass of its own).
    static func finderPatterns(in image: GrayImage, threshold: UInt8 = 128) -> Int {
        finderCentres(in: image, threshold: threshold).count
    }

    /// A finder pattern's centre and module size, in pixels.
    struct Finder { var x, y, module: Double }

    /// The distinct finder patterns of ``finderPatterns(in:threshold:)``.
    static func finderCentres(in image: GrayImage, threshold: UInt8 = 128) -> [Finder] {
        let width = image.width, height = image.height
        guard width >= 21, height >= 21 else { return [] }
        var centres: [(x: Double, y: Double, module: Double)] = []
        image.pixels.withUnsafeBufferPointer { pixels in
            func dark(_ x: Int, _ y: Int) -> Bool { pixels[y * width + x] < threshold }
            for y in 0..<height {
                // The lengths of the last five runs, the oldest first; the newest is still growing.
                var runs = [0, 0, 0, 0, 0]
                var state = dark(0, y)
                var count = 0
                for x in 0...width {
                    let isDark = x < width ? dark(x, y) : !state
                    if isDark == state {
                        count += 1
                        continue
                    }
                    runs.removeFirst()
                    runs.append(count)
                    // A finder pattern ends on a dark run: dark, light, dark (3), light, dark.
                    if state, let module = Self.finderModule(runs) {
                        let centreX = Double(x - runs[4] - runs[3]) - Double(runs[2]) / 2
                        if let vertical = Self.crossCheck(pixels, width: width, height: height, x: Int(centreX), y: y, threshold: threshold),
                           abs(vertical.module - module) <= module / 2 {
                            centres.append((centreX, vertical.centre, (module + vertical.module) / 2))
                        }
                    }
                    state = isDark
                    count = 1
                }
            }
        }
        // Merge the rows through one pattern: a cluster of centres within two modules.
        var clusters: [(x: Double, y: Double, module: Double, hits: Int)] = []
        for centre in centres {
            if let index = clusters.firstIndex(where: { abs($0.x - centre.x) <= 2 * $0.module && abs($0.y - centre.y) <= 2 * $0.module }) {
                clusters[index].hits += 1
            } else {
                clusters.append((centre.x, centre.y, centre.module, 1))
            }
        }
        return clusters.filter { $0.hits >= 2 }.map { Finder(x: $0.x, y: $0.y, module: $0.module) }
    }

    /// Three finder patterns at a QR code's corners: `topLeft` is at the right angle, and
    /// `topRight` and `bottomLeft` follow clockwise as the code is read.
    struct FinderTriangle { var topLeft, topRight, bottomLeft: Finder }

    /// The triples of `finders` that sit as a QR code's do: the same module size, two of them as
    /// far from the third (at least 10 modules: version 1 has 14) and at a right angle to it. Lone
    /// 1:1:3:1:1 patterns turn up in textures cut at one global threshold; three in this shape do not.
    static func finderTriangles(_ finders: [Finder]) -> [FinderTriangle] {
        let finders = Array(finders.prefix(40))
        func similar(_ a: Double, _ b: Double, within tolerance: Double) -> Bool { abs(a - b) <= tolerance * max(a, b) }
        var triangles: [FinderTriangle] = []
        for corner in finders {
            for (index, first) in finders.enumerated() where similar(first.module, corner.module, within: 0.4) {
                let ax = first.x - corner.x, ay = first.y - corner.y
                let a = (ax * ax + ay * ay).squareRoot()
                guard a >= 10 * corner.module else { continue }
                for second in finders[(index + 1)...] where similar(second.module, corner.module, within: 0.4) {
                    let bx = second.x - corner.x, by = second.y - corner.y
                    let b = (bx * bx + by * by).squareRoot()
                    guard b > 0, similar(a, b, within: 0.3), abs(ax * bx + ay * by) / (a * b) < 0.3 else { continue }
                    // With y downwards, top right × bottom left (from the top left) is positive.
                    let clockwise = ax * by - ay * bx > 0
                    triangles.append(FinderTriangle(topLeft: corner, topRight: clockwise ? first : second, bottomLeft: clockwise ? second : first))
                }
            }
        }
        return triangles
    }

    /// The finder patterns of `image` as the pipeline judges them: on its adaptively thresholded
    /// copy (the one the threshold passes read, handed back so that they need not make it again),
    /// and where that shows none, three in a code's shape on the image cut at its global (Otsu)
    /// threshold. The adaptive
    /// window is a twelfth of the image: a code that fills the picture has finder centres wider
    /// than that, which it hollows out, while one threshold keeps them whole.
    static func thresholdedFinderPatterns(in image: GrayImage) -> (binary: GrayImage, count: Int) {
        let binary = image.adaptiveThreshold(window: ScanPass.thresholdWindow(image))
        let count = finderPatterns(in: binary)
        guard count == 0 else { return (binary, count) }
        return (binary, finderTriangles(finderCentres(in: image, threshold: image.otsuThreshold())).isEmpty ? 0 : 3)
    }

    /// The module size of five runs in the ratio 1:1:3:1:1 (each 1 within half a module, the 3
    /// within one and a half), or `nil`.
    static func finderModule(_ runs: [Int]) -> Double? {
        let total = runs.reduce(0, +)
        guard total >= 7, runs.allSatisfy({ $0 > 0 }) else { return nil }
        let module = Double(total) / 7
        let tolerance = module / 2
        guard abs(Double(runs[0]) - module) < tolerance, abs(Double(runs[1]) - module) < tolerance,
              abs(Double(runs[2]) - 3 * module) < 3 * tolerance,
              abs(Double(runs[3]) - module) < tolerance, abs(Double(runs[4]) - module) < tolerance
        else { return nil }
        return module
    }

    /// The vertical run pattern through (x, y): its centre row and module, when it is 1:1:3:1:1.
    private static func crossCheck(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Int, y: Int, threshold: UInt8) -> (centre: Double, module: Double)? {
        guard x >= 0, x < width else { return nil }
        func dark(_ row: Int) -> Bool { pixels[row * width + x] < threshold }
        guard dark(y) else { return nil }
        // From the centre outwards: the centre run, then light, dark on each side.
        var up = y, down = y
        while up > 0 && dark(up - 1) { up -= 1 }
        while down < height - 1 && dark(down + 1) { down += 1 }
        let centre = down - up + 1
        func run(from start: Int, step: Int, isDark: Bool) -> Int {
            var position = start, length = 0
            while position >= 0 && position < height && dark(position) == isDark && length <= 4 * centre {
                length += 1
                position += step
            }
            return length
        }
        let lightAbove = run(from: up - 1, step: -1, isDark: false)
        let darkAbove = run(from: up - 1 - lightAbove, step: -1, isDark: true)
        let lightBelow = run(from: down + 1, step: 1, isDark: false)
        let darkBelow = run(from: down + 1 + lightBelow, step: 1, isDark: true)
        guard let module = finderModule([darkAbove, lightAbove, centre, lightBelow, darkBelow]) else { return nil }
        return (Double(up + down + 1) / 2, module)
    }
}
