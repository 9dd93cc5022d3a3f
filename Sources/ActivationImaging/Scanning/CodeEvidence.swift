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
                        // Confirmed down the column through the centre, then along the diagonal
                        // through the centre found there (texture blobs pass one check, rarely three).
                        if let vertical = Self.crossCheck(pixels, width: width, height: height, x: Int(centreX), y: y, dx: 0, dy: 1, threshold: threshold),
                           abs(vertical.module - module) <= module / 2 {
                            let centreY = Double(y) + Double(vertical.first + vertical.last + 1) / 2
                            if let diagonal = Self.crossCheck(pixels, width: width, height: height, x: Int(centreX), y: Int(centreY), dx: 1, dy: 1, threshold: threshold, tolerance: 0.8),
                               abs(diagonal.module * 2.squareRoot() - module) <= module * 0.8 {
                                centres.append((centreX, centreY, (module + vertical.module) / 2))
                            }
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

    /// Whether the timing patterns run between the finders of `triangle`: row and column 6 of a
    /// QR code alternate dark and light module by module from one finder to the next. Blobs of a
    /// texture that happen to look like three finders have no such line between them.
    static func hasTimingPatterns(_ triangle: FinderTriangle, in image: GrayImage, threshold: UInt8) -> Bool {
        let module = (triangle.topLeft.module + triangle.topRight.module + triangle.bottomLeft.module) / 3
        func alternations(from start: Finder, to end: Finder, towards side: Finder) -> Bool {
            let dx = end.x - start.x, dy = end.y - start.y
            let length = (dx * dx + dy * dy).squareRoot()
            let sx = side.x - start.x, sy = side.y - start.y
            let sideLength = (sx * sx + sy * sy).squareRoot()
            guard length > 0, sideLength > 0 else { return false }
            // Row 6 is 3 modules from the finder centres' row (3.5) towards the third finder; it
            // alternates from 4.5 modules past one centre to 4.5 before the other.
            let offsetX = sx / sideLength * 3 * module, offsetY = sy / sideLength * 3 * module
            let modules = length / module - 9
            guard modules >= 3 else { return false }
            var transitions = 0, previous: Bool?
            let steps = Int(modules * 2)
            for step in 0...steps {
                let t = (4.5 * module + Double(step) / 2 * module) / length
                let x = Int(start.x + t * dx + offsetX), y = Int(start.y + t * dy + offsetY)
                guard x >= 0, y >= 0, x < image.width, y < image.height else { return false }
                let dark = image.pixels[y * image.width + x] < threshold
                if let previous, previous != dark { transitions += 1 }
                previous = dark
            }
            // A clean code shows one transition a module; blur and curvature cost some.
            return Double(transitions) >= modules / 2
        }
        return alternations(from: triangle.topLeft, to: triangle.topRight, towards: triangle.bottomLeft)
            && alternations(from: triangle.topLeft, to: triangle.bottomLeft, towards: triangle.topRight)
    }

    /// The finder patterns of `image` as the pipeline judges them: on its adaptively thresholded
    /// copy (the one the threshold passes read, handed back so that they need not make it again),
    /// and where that shows none, three in a code's shape on the image cut at its global (Otsu)
    /// threshold. The adaptive window is a twelfth of the image: a code that fills the picture has
    /// finder centres wider than that, which it hollows out, while one threshold keeps them whole.
    static func thresholdedFinderPatterns(in image: GrayImage) -> (binary: GrayImage, count: Int) {
        let binary = image.adaptiveThreshold(window: ScanPass.thresholdWindow(image))
        let count = finderPatterns(in: binary)
        guard count == 0 else { return (binary, count) }
        let threshold = image.otsuThreshold()
        let triangles = finderTriangles(finderCentres(in: image, threshold: threshold))
        return (binary, triangles.contains { hasTimingPatterns($0, in: image, threshold: threshold) } ? 3 : 0)
    }

    /// The two ways the QR readers of our own look for finders, as (image, threshold) pairs: the
    /// adaptively thresholded copy (small modules under uneven light), then the image at its Otsu
    /// threshold (large finder centres kept whole), as ``thresholdedFinderPatterns(in:)`` judges.
    static func binarizations(of image: GrayImage) -> [(image: GrayImage, threshold: UInt8)] {
        [(image.adaptiveThreshold(window: ScanPass.thresholdWindow(image)), 128), (image, image.otsuThreshold())]
    }

    /// The module size of five runs in the ratio 1:1:3:1:1 (each 1 within half a module, the 3
    /// within one and a half), or `nil`.
    static func finderModule(_ runs: [Int], tolerance fraction: Double = 0.5) -> Double? {
        let total = runs.reduce(0, +)
        guard total >= 7, runs.allSatisfy({ $0 > 0 }) else { return nil }
        let module = Double(total) / 7
        let tolerance = module * fraction
        guard abs(Double(runs[0]) - module) < tolerance, abs(Double(runs[1]) - module) < tolerance,
              abs(Double(runs[2]) - 3 * module) < 3 * tolerance,
              abs(Double(runs[3]) - module) < tolerance, abs(Double(runs[4]) - module) < tolerance
        else { return nil }
        return module
    }

    /// The run pattern through (x, y) along (dx, dy): where its centre run starts and ends (in
    /// steps from (x, y)) and its module (in steps), when it is 1:1:3:1:1.
    private static func crossCheck(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Int, y: Int,
                                   dx: Int, dy: Int, threshold: UInt8, tolerance: Double = 0.5) -> (first: Int, last: Int, module: Double)? {
        func dark(_ step: Int) -> Bool? {
            let px = x + step * dx, py = y + step * dy
            guard px >= 0, py >= 0, px < width, py < height else { return nil }
            return pixels[py * width + px] < threshold
        }
        guard dark(0) == true else { return nil }
        // From the centre outwards: the centre run, then light, dark on each side.
        var first = 0, last = 0
        while dark(first - 1) == true { first -= 1 }
        while dark(last + 1) == true { last += 1 }
        let centre = last - first + 1
        func run(from start: Int, step: Int, isDark: Bool) -> Int {
            var position = start, length = 0
            while dark(position) == isDark && length <= 4 * centre {
                length += 1
                position += step
            }
            return length
        }
        let lightBefore = run(from: first - 1, step: -1, isDark: false)
        let darkBefore = run(from: first - 1 - lightBefore, step: -1, isDark: true)
        let lightAfter = run(from: last + 1, step: 1, isDark: false)
        let darkAfter = run(from: last + 1 + lightAfter, step: 1, isDark: true)
        guard let module = finderModule([darkBefore, lightBefore, centre, lightAfter, darkAfter], tolerance: tolerance) else { return nil }
        return (first, last, module)
    }
}
