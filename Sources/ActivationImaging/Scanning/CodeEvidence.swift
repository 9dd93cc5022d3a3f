/// Cheap signs that an image holds a code the engines have not read yet: the pipeline spends its
/// expensive passes only where they can pay off, so that an image without a code costs little
/// more than its first passes.
enum CodeEvidence {
    /// A rectangle of an image, in pixels.
    struct Region: Equatable {
        var x, y, width, height: Int
    }

    /// Where a code may be in a photo too large to read whole at full resolution (read at half
    /// size first): the parts as dense in edges as a code, each widened by half its size and a
    /// margin so that the code's quiet zone comes along; overlapping parts are merged. Empty when
    /// nothing in the image is that dense (a smooth photo: there is no code too small to read at
    /// half size); `nil` when dense detail is everywhere (foliage, print: over a third of the
    /// image, more than 12 parts, or more than 64 separate specks): then the whole image is the
    /// candidate.
    ///
    /// The measure is the mean of |∂x| + |∂y| over blocks of 16×16 pixels: a code's modules make
    /// an edge every few pixels at full contrast (at least 35 gray levels a pixel in a 12 MP photo
    /// at half size, over 100 for most), while skies, walls and out-of-focus ground stay under 20.
    static func candidateRegions(in image: GrayImage, minimumEdges: Int = 24, block: Int = 16) -> [Region]? {
        let columns = image.width / block
        let rows = image.height / block
        guard columns > 0, rows > 0 else { return nil }
        var dense = [Bool](repeating: false, count: columns * rows)
        image.pixels.withUnsafeBufferPointer { pixels in
            let width = image.width
            for row in 0..<rows {
                for column in 0..<columns {
                    var sum = 0
                    for y in row * block..<(row + 1) * block {
                        let line = y * width
                        let below = min(y + 1, image.height - 1) * width
                        for x in column * block..<(column + 1) * block {
                            let here = Int(pixels[line + x])
                            sum +=
                                abs(Int(pixels[line + min(x + 1, width - 1)]) - here)
                                + abs(Int(pixels[below + x]) - here)
                        }
                    }
                    dense[row * columns + column] = sum >= minimumEdges * block * block
                }
            }
        }
        // Connected parts of dense blocks (8-neighbours), as block rectangles; a block is cleared
        // once its part holds it. More than 64 parts is detail scattered everywhere (and would make
        // the merging below cubic in their number on a crafted image).
        var regions: [Region] = []
        for start in dense.indices where dense[start] {
            guard regions.count < 64 else { return nil }
            var stack = [start]
            var box = (left: columns, top: rows, right: 0, bottom: 0)
            dense[start] = false
            while let index = stack.popLast() {
                let (row, column) = index.quotientAndRemainder(dividingBy: columns)
                box = (min(box.left, column), min(box.top, row), max(box.right, column + 1), max(box.bottom, row + 1))
                for dy in -1...1 {
                    for dx in -1...1 {
                        let y = row + dy
                        let x = column + dx
                        guard y >= 0, y < rows, x >= 0, x < columns, dense[y * columns + x] else { continue }
                        dense[y * columns + x] = false
                        stack.append(y * columns + x)
                    }
                }
            }
            // Half the part's size and two blocks on every side, in pixels.
            let width = box.right - box.left
            let height = box.bottom - box.top
            let marginX = (width / 2 + 2) * block
            let marginY = (height / 2 + 2) * block
            regions.append(
                Region(
                    x: max(0, box.left * block - marginX), y: max(0, box.top * block - marginY),
                    width: min(image.width, box.right * block + marginX) - max(0, box.left * block - marginX),
                    height: min(image.height, box.bottom * block + marginY) - max(0, box.top * block - marginY)))
        }
        // Merge overlapping rectangles until none overlap.
        var merged = true
        while merged {
            merged = false
            outer: for i in regions.indices {
                for j in regions.indices where j > i {
                    let a = regions[i]
                    let b = regions[j]
                    guard a.x < b.x + b.width, b.x < a.x + a.width, a.y < b.y + b.height, b.y < a.y + a.height else {
                        continue
                    }
                    let left = min(a.x, b.x)
                    let top = min(a.y, b.y)
                    regions[i] = Region(
                        x: left, y: top, width: max(a.x + a.width, b.x + b.width) - left,
                        height: max(a.y + a.height, b.y + b.height) - top)
                    regions.remove(at: j)
                    merged = true
                    break outer
                }
            }
        }
        // Many parts, or parts covering much of the image: detail everywhere, no candidates to single out.
        let area = regions.reduce(0) { $0 + $1.width * $1.height }
        guard regions.count <= 12, area * 3 <= image.width * image.height else { return nil }
        return regions
    }

    /// How many distinct QR finder patterns (the 1:1:3:1:1 dark-light-dark-light-dark squares at
    /// three corners) a binarized image shows: each is a horizontal run pattern confirmed by a
    /// vertical one through its centre, and patterns closer than a few modules count once.
    ///
    /// The ratios hold along any line through the centre of the square, so the count survives
    /// rotation, perspective and blur that defeat a decoder; textures rarely show the 3-module centre.
    ///
    /// Only dark patterns on light count: light ones on dark turn up in dotted textures, and open
    /// only the pass for light codes on dark (``FinderSurvey/lightFinders``).
    static func finderPatterns(in image: GrayImage, threshold: UInt8 = 128) -> Int {
        finderCentres(in: image, threshold: threshold).count
    }

    /// A finder pattern's centre and module size, in pixels.
    struct Finder {
        var x, y, module: Double

        /// The distance between the two centres, in pixels.
        func distance(to other: Finder) -> Double {
            ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
        }
    }

    /// The distinct finder patterns of ``finderPatterns(in:threshold:)``.
    static func finderCentres(in image: GrayImage, threshold: UInt8 = 128) -> [Finder] {
        finderScan(image, threshold: threshold, light: false).dark
    }

    /// The dark finder patterns on light of `image` and, when `light` is set, the light ones on
    /// dark too (a light code on a dark ground): one scan of the rows finds both, since their
    /// runs are the same with the colours swapped.
    static func finderScan(_ image: GrayImage, threshold: UInt8 = 128, light: Bool) -> (dark: [Finder], light: [Finder])
    {
        let width = image.width
        let height = image.height
        guard width >= 21, height >= 21 else { return ([], []) }
        var darkCentres: [(x: Double, y: Double, module: Double)] = []
        var lightCentres = darkCentres
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = y * width
                // The lengths of the last five runs, the oldest first.
                var r0 = 0
                var r1 = 0
                var r2 = 0
                var r3 = 0
                var r4 = 0
                var x = 0
                while x < width {
                    // One run: as far as the pixels stay on the side of the threshold they start on.
                    let start = x
                    let isDark = pixels[row + x] < threshold
                    x += 1
                    if isDark {
                        while x < width && pixels[row + x] < threshold { x += 1 }
                    } else {
                        while x < width && pixels[row + x] >= threshold { x += 1 }
                    }
                    (r0, r1, r2, r3, r4) = (r1, r2, r3, r4, x - start)
                    // A finder pattern ends on a run of its ink: dark, light, dark (3), light, dark.
                    guard isDark || light, Self.mayBeFinder(r0, r1, r2, r3, r4) else { continue }
                    let module = Double(r0 + r1 + r2 + r3 + r4) / 7
                    let centreX = Double(x - r4 - r3) - Double(r2) / 2
                    // Confirmed down the column through the centre, then along the diagonal
                    // through the centre found there (texture blobs pass one check, rarely three).
                    if let vertical = Self.crossCheck(
                        pixels, width: width, height: height, x: Int(centreX), y: y, dx: 0, dy: 1, threshold: threshold,
                        ink: isDark),
                        abs(vertical.module - module) <= module / 2
                    {
                        let centreY = Double(y) + Double(vertical.first + vertical.last + 1) / 2
                        if let diagonal = Self.crossCheck(
                            pixels, width: width, height: height, x: Int(centreX), y: Int(centreY), dx: 1, dy: 1,
                            threshold: threshold, ink: isDark, tolerance: 0.8),
                            abs(diagonal.module * 2.squareRoot() - module) <= module * 0.8
                        {
                            if isDark {
                                darkCentres.append((centreX, centreY, (module + vertical.module) / 2))
                            } else {
                                lightCentres.append((centreX, centreY, (module + vertical.module) / 2))
                            }
                        }
                    }
                }
            }
        }
        return (distinct(darkCentres), distinct(lightCentres))
    }

    /// The rows through one pattern merged: a cluster of centres within two modules, kept when at
    /// least two rows confirm it.
    private static func distinct(_ centres: [(x: Double, y: Double, module: Double)]) -> [Finder] {
        var clusters: [(x: Double, y: Double, module: Double, hits: Int)] = []
        for centre in centres {
            if let index = clusters.firstIndex(where: {
                abs($0.x - centre.x) <= 2 * $0.module && abs($0.y - centre.y) <= 2 * $0.module
            }) {
                clusters[index].hits += 1
            } else {
                clusters.append((centre.x, centre.y, centre.module, 1))
            }
        }
        return clusters.filter { $0.hits >= 2 }.map { Finder(x: $0.x, y: $0.y, module: $0.module) }
    }

    /// How many pairs of `finders` could belong to one QR code: the same module size (within
    /// 40 %), and as far apart as two finders along a side of a QR code can be (14 modules in
    /// version 1, 170 in version 40), with room for a module size their runs misjudge: from 7 to 180.
    static func finderPairs(_ finders: [Finder]) -> Int {
        let finders = Array(finders.prefix(40))
        var pairs = 0
        for (index, first) in finders.enumerated() {
            for second in finders[(index + 1)...]
            where abs(first.module - second.module) <= 0.4 * max(first.module, second.module) {
                let distance = first.distance(to: second) / ((first.module + second.module) / 2)
                if distance >= 7 && distance <= 180 { pairs += 1 }
            }
        }
        return pairs
    }

    /// Three finder patterns at a QR code's corners: `topLeft` is at the right angle, and
    /// `topRight` and `bottomLeft` follow clockwise as the code is read.
    struct FinderTriangle {
        var topLeft, topRight, bottomLeft: Finder

        /// The mean distance from the top left finder to the other two, in pixels: the symbol's
        /// size less 7 modules.
        var arm: Double { (topLeft.distance(to: topRight) + topLeft.distance(to: bottomLeft)) / 2 }
    }

    /// The triples of `finders` that sit as a QR code's do: the same module size, two of them as
    /// far from the third (at least 10 modules: version 1 has 14) and at a right angle to it. Lone
    /// 1:1:3:1:1 patterns turn up in textures cut at one global threshold; three in this shape do not.
    static func finderTriangles(_ finders: [Finder]) -> [FinderTriangle] {
        let finders = Array(finders.prefix(40))
        func similar(_ a: Double, _ b: Double, within tolerance: Double) -> Bool { abs(a - b) <= tolerance * max(a, b) }
        var triangles: [FinderTriangle] = []
        for corner in finders {
            for (index, first) in finders.enumerated() where similar(first.module, corner.module, within: 0.4) {
                let ax = first.x - corner.x
                let ay = first.y - corner.y
                let a = (ax * ax + ay * ay).squareRoot()
                guard a >= 10 * corner.module else { continue }
                for second in finders[(index + 1)...] where similar(second.module, corner.module, within: 0.4) {
                    let bx = second.x - corner.x
                    let by = second.y - corner.y
                    let b = (bx * bx + by * by).squareRoot()
                    guard b > 0, similar(a, b, within: 0.3), abs(ax * bx + ay * by) / (a * b) < 0.3 else { continue }
                    // With y downwards, top right × bottom left (from the top left) is positive.
                    let clockwise = ax * by - ay * bx > 0
                    triangles.append(
                        FinderTriangle(
                            topLeft: corner, topRight: clockwise ? first : second,
                            bottomLeft: clockwise ? second : first))
                }
            }
        }
        return triangles
    }

    /// Whether the timing patterns run between the finders of `triangle`: row and column 6 of a
    /// QR code alternate dark and light module by module from one finder to the next. Blobs of a
    /// texture that happen to look like three finders have no such line between them.
    static func hasTimingPatterns(_ triangle: FinderTriangle, in image: GrayImage, threshold: UInt8) -> Bool {
        let estimate = (triangle.topLeft.module + triangle.topRight.module + triangle.bottomLeft.module) / 3
        func alternations(from start: Finder, to end: Finder, towards side: Finder, module: Double) -> Bool {
            let dx = end.x - start.x
            let dy = end.y - start.y
            let length = (dx * dx + dy * dy).squareRoot()
            let sx = side.x - start.x
            let sy = side.y - start.y
            let sideLength = (sx * sx + sy * sy).squareRoot()
            guard length > 0, sideLength > 0 else { return false }
            // Row 6 is 3 modules from the finder centres' row (3.5) towards the third finder; it
            // alternates from 4.5 modules past one centre to 4.5 before the other.
            let offsetX = sx / sideLength * 3 * module
            let offsetY = sy / sideLength * 3 * module
            let modules = length / module - 9
            guard modules >= 3 else { return false }
            var transitions = 0
            var previous: Bool?
            let steps = Int(modules * 2)
            for step in 0...steps {
                let t = (4.5 * module + Double(step) / 2 * module) / length
                let x = Int(start.x + t * dx + offsetX)
                let y = Int(start.y + t * dy + offsetY)
                guard x >= 0, y >= 0, x < image.width, y < image.height else { return false }
                let dark = image.pixels[y * image.width + x] < threshold
                if let previous, previous != dark { transitions += 1 }
                previous = dark
            }
            // A clean code shows one transition a module; blur and curvature cost some.
            return Double(transitions) >= modules / 2
        }
        // A finder's runs misjudge its module by up to a quarter in a blurred or two-colour
        // picture, enough to sample the timing pattern out of step; the finder centres are a whole
        // number of modules apart (the symbol's size less 7), so the module sizes that distance
        // allows near the estimate are tried too.
        let arm = triangle.arm
        var modules = [estimate]
        for size in stride(from: 21, through: 177, by: 4) {
            let module = arm / Double(size - 7)
            if module >= 0.75 * estimate && module <= 1.33 * estimate { modules.append(module) }
        }
        return modules.contains { module in
            alternations(from: triangle.topLeft, to: triangle.topRight, towards: triangle.bottomLeft, module: module)
                && alternations(
                    from: triangle.topLeft, to: triangle.bottomLeft, towards: triangle.topRight, module: module)
        }
    }

    /// ``finderModule(_:_:_:_:_:tolerance:)``'s test at its default tolerance in whole numbers, for the
    /// scan's every run: with T the five runs' total, |a − T/7| < T/14 is |14a − 2T| < T, and
    /// |c − 3T/7| < 3T/14 is |14c − 6T| < 3T. Where both sides are equal the module T/7 is a
    /// whole number of halves, exact in floating point too, so both tests agree.
    @inline(__always)
    static func mayBeFinder(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ e: Int) -> Bool {
        let total = a + b + c + d + e
        guard total >= 7, a > 0, b > 0, c > 0, d > 0, e > 0 else { return false }
        return abs(14 * a - 2 * total) < total && abs(14 * b - 2 * total) < total && abs(14 * c - 6 * total) < 3 * total
            && abs(14 * d - 2 * total) < total && abs(14 * e - 2 * total) < total
    }

    /// The module size of five runs `a` to `e` in the ratio 1:1:3:1:1 (each 1 within half a
    /// module, the 3 within one and a half, at the default tolerance), or `nil`.
    @inline(__always)
    static func finderModule(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ e: Int, tolerance fraction: Double = 0.5)
        -> Double?
    {
        let total = a + b + c + d + e
        guard total >= 7, a > 0, b > 0, c > 0, d > 0, e > 0 else { return nil }
        let module = Double(total) / 7
        let tolerance = module * fraction
        guard abs(Double(a) - module) < tolerance, abs(Double(b) - module) < tolerance,
            abs(Double(c) - 3 * module) < 3 * tolerance,
            abs(Double(d) - module) < tolerance, abs(Double(e) - module) < tolerance
        else { return nil }
        return module
    }

    /// The run pattern through (x, y) along (dx, dy): where its centre run starts and ends (in
    /// steps from (x, y)) and its module (in steps), when it is 1:1:3:1:1.
    private static func crossCheck(
        _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Int, y: Int,
        dx: Int, dy: Int, threshold: UInt8, ink: Bool = true, tolerance: Double = 0.5
    ) -> (first: Int, last: Int, module: Double)? {
        // "Dark" is the pattern's ink: below the threshold, or for a light pattern (`ink` false) not.
        func dark(_ step: Int) -> Bool? {
            let px = x + step * dx
            let py = y + step * dy
            guard px >= 0, py >= 0, px < width, py < height else { return nil }
            return (pixels[py * width + px] < threshold) == ink
        }
        guard dark(0) == true else { return nil }
        // From the centre outwards: the centre run, then light, dark on each side.
        var first = 0
        var last = 0
        while dark(first - 1) == true { first -= 1 }
        while dark(last + 1) == true { last += 1 }
        let centre = last - first + 1
        func run(from start: Int, step: Int, isDark: Bool) -> Int {
            var position = start
            var length = 0
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
        guard let module = finderModule(darkBefore, lightBefore, centre, lightAfter, darkAfter, tolerance: tolerance)
        else { return nil }
        return (first, last, module)
    }
}
