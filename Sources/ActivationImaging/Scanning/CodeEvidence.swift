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
        let width = image.width, height = image.height
        guard width >= 21, height >= 21 else { return 0 }
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
        return clusters.count { $0.hits >= 2 }
    }

    /// The finder patterns of `image` as the pipeline judges them: on its adaptively thresholded
    /// copy (the one the threshold passes read, handed back so that they need not make it again).
    static func thresholdedFinderPatterns(in image: GrayImage) -> (binary: GrayImage, count: Int) {
        let binary = image.adaptiveThreshold(window: ScanPass.thresholdWindow(image))
        return (binary, finderPatterns(in: binary))
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
        return (Double(up + down) / 2, module)
    }
}
