/// Cheap signs that an image holds a code the engines have not read yet: the pipeline spends its
/// expensive passes only where they can pay off, so that an image without a code costs little
/// more than its first passes (issue 13).
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
        let columns = image.width / block, rows = image.height / block
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
                            sum += abs(Int(pixels[line + min(x + 1, width - 1)]) - here) + abs(Int(pixels[below + x]) - here)
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
            var stack = [start], box = (left: columns, top: rows, right: 0, bottom: 0)
            dense[start] = false
            while let index = stack.popLast() {
                let (row, column) = index.quotientAndRemainder(dividingBy: columns)
                box = (min(box.left, column), min(box.top, row), max(box.right, column + 1), max(box.bottom, row + 1))
                for dy in -1...1 {
                    for dx in -1...1 {
                        let y = row + dy, x = column + dx
                        guard y >= 0, y < rows, x >= 0, x < columns, dense[y * columns + x] else { continue }
                        dense[y * columns + x] = false
                        stack.append(y * columns + x)
                    }
                }
            }
            // Half the part's size and two blocks on every side, in pixels.
            let width = box.right - box.left, height = box.bottom - box.top
            let marginX = (width / 2 + 2) * block, marginY = (height / 2 + 2) * block
            regions.append(Region(x: max(0, box.left * block - marginX), y: max(0, box.top * block - marginY),
                                  width: min(image.width, box.right * block + marginX) - max(0, box.left * block - marginX),
                                  height: min(image.height, box.bottom * block + marginY) - max(0, box.top * block - marginY)))
        }
        // Merge overlapping rectangles until none overlap.
        var merged = true
        while merged {
            merged = false
            outer: for i in regions.indices {
                for j in regions.indices where j > i {
                    let a = regions[i], b = regions[j]
                    guard a.x < b.x + b.width, b.x < a.x + a.width, a.y < b.y + b.height, b.y < a.y + a.height else { continue }
                    let left = min(a.x, b.x), top = min(a.y, b.y)
                    regions[i] = Region(x: left, y: top, width: max(a.x + a.width, b.x + b.width) - left, height: max(a.y + a.height, b.y + b.height) - top)
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
