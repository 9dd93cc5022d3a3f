import Foundation

/// The image operations the decoding pipeline tries when a plain pass finds nothing. Each returns
/// a new image; all are single passes over the pixels (the threshold uses an integral image).
extension GrayImage {
    /// Scaled by `factor`: area averaging when shrinking (keeps thin modules from vanishing),
    /// bilinear when enlarging.
    public func scaled(by factor: Double) -> GrayImage {
        let newWidth = max(1, Int((Double(width) * factor).rounded()))
        let newHeight = max(1, Int((Double(height) * factor).rounded()))
        var output = [UInt8](repeating: 255, count: newWidth * newHeight)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                if factor < 1 {
                    let step = 1 / factor
                    for y in 0..<newHeight {
                        let y0 = Int(Double(y) * step)
                        let y1 = max(y0 + 1, min(height, Int(Double(y + 1) * step)))
                        for x in 0..<newWidth {
                            let x0 = Int(Double(x) * step)
                            let x1 = max(x0 + 1, min(width, Int(Double(x + 1) * step)))
                            var sum = 0
                            for row in y0..<y1 { for column in x0..<x1 { sum += Int(source[row * width + column]) } }
                            target[y * newWidth + x] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
                        }
                    }
                } else if newWidth == 2 * width && newHeight == 2 * height {
                    Self.doubled(source, into: target, width: width, height: height)
                } else {
                    // Bilinear, in 16-bit fixed point: the source columns and weights of each output
                    // column are worked out once, not once a pixel (and no floating-point rounding
                    // in the inner loop, which was a tenth of a scan of an image without a code).
                    let one = 1 << 16
                    func axis(_ count: Int, within limit: Int) -> (low: [Int], high: [Int], weight: [Int]) {
                        var low = [Int](repeating: 0, count: count)
                        var high = low
                        var weight = low
                        for index in 0..<count {
                            let position = max(0, (Double(index) + 0.5) / factor - 0.5)
                            low[index] = min(limit - 1, Int(position))
                            high[index] = min(limit - 1, low[index] + 1)
                            weight[index] = Int(((position - Double(low[index])) * Double(one)).rounded())
                        }
                        return (low, high, weight)
                    }
                    let columns = axis(newWidth, within: width)
                    let rows = axis(newHeight, within: height)
                    columns.low.withUnsafeBufferPointer { low in
                        columns.high.withUnsafeBufferPointer { high in
                            columns.weight.withUnsafeBufferPointer { weight in
                                for y in 0..<newHeight {
                                    let top = rows.low[y] * width
                                    let bottom = rows.high[y] * width
                                    let fy = rows.weight[y]
                                    let out = y * newWidth
                                    for x in 0..<newWidth {
                                        let x0 = low[x]
                                        let x1 = high[x]
                                        let fx = weight[x]
                                        let upper = Int(source[top + x0]) * (one - fx) + Int(source[top + x1]) * fx
                                        let lower =
                                            Int(source[bottom + x0]) * (one - fx) + Int(source[bottom + x1]) * fx
                                        target[out + x] = UInt8(
                                            truncatingIfNeeded: (upper * (one - fy) + lower * fy + (1 << 31)) >> 32)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(unchecked: newWidth, newHeight, output)
    }

    /// ``scaled(by:)`` by 2, with its bilinear weights worked out: every output pixel lies a
    /// quarter or three quarters of the way between two input pixels on each axis (or on the
    /// first one, at the left and top edges), so the 16-bit fixed-point sum
    /// (2¹⁶ weights, + 2³¹, >> 32) is (9a + 3b + 3c + d + 8) >> 4 and its kin, exactly.
    private static func doubled(
        _ source: UnsafeBufferPointer<UInt8>, into target: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int
    ) {
        guard let base = source.baseAddress else { return }
        let newWidth = 2 * width
        // The input rows widened (4 × the value) for the two input rows in use.
        var upper = [UInt16](repeating: 0, count: newWidth)
        var lower = upper
        var upperRow = -1
        var lowerRow = -1
        func widen(_ row: Int, into line: inout [UInt16]) {
            line.withUnsafeMutableBufferPointer { line in
                widenedRow(base + row * width, width: width) { index, value in line[index] = value }
            }
        }
        for y in 0..<2 * height {
            // Down the rows as widenedRow goes along them: output row 0 on input row 0, 2k + 1 a
            // quarter past input row k, 2k + 2 three quarters.
            let low = y == 0 ? 0 : (y - 1) / 2
            let high = min(height - 1, low + 1)
            let quarters = y == 0 ? 0 : y % 2 == 1 ? 1 : 3
            if upperRow != low {
                if lowerRow == low {
                    swap(&upper, &lower)
                    swap(&upperRow, &lowerRow)
                } else {
                    widen(low, into: &upper)
                    upperRow = low
                }
            }
            if lowerRow != high {
                widen(high, into: &lower)
                lowerRow = high
            }
            let top = UInt32(4 - quarters)
            let bottom = UInt32(quarters)
            let out = y * newWidth
            upper.withUnsafeBufferPointer { upper in
                lower.withUnsafeBufferPointer { lower in
                    for x in 0..<newWidth {
                        target[out + x] = UInt8(
                            truncatingIfNeeded: (UInt32(upper[x]) &* top &+ UInt32(lower[x]) &* bottom &+ 8) >> 4)
                    }
                }
            }
        }
    }

    /// One row widened by 2, at four times its values: output 0 is input 0, output 2x + 1 lies a
    /// quarter past input x and output 2x + 2 three quarters (the last input repeated past the
    /// end). Linear interpolation at these positions, with the weights in quarters.
    /// `store` takes each output index and value.
    @inline(__always)
    private static func widenedRow(_ source: UnsafePointer<UInt8>, width: Int, _ store: (Int, UInt16) -> Void) {
        store(0, 4 &* UInt16(source[0]))
        for x in 0..<width {
            let a = UInt16(source[x])
            let b = UInt16(source[min(width - 1, x + 1)])
            store(2 * x + 1, 3 &* a &+ b)
            if x + 1 < width { store(2 * x + 2, a &+ 3 &* b) }
        }
    }

    /// Widened by `factor` (at least 1), the height kept: linear interpolation along each row.
    /// A horizontal scanline reader needs more pixels per bar, not more rows, so this costs half
    /// of ``scaled(by:)`` for linear codes.
    public func stretched(horizontally factor: Double) -> GrayImage {
        let factor = max(1, factor)
        let newWidth = max(1, Int((Double(width) * factor).rounded()))
        // The source columns and 8-bit weights of each output column, worked out once.
        var low = [Int](repeating: 0, count: newWidth)
        var weight = low
        for x in 0..<newWidth {
            let position = max(0, (Double(x) + 0.5) / factor - 0.5)
            low[x] = min(width - 1, Int(position))
            weight[x] = Int(((position - Double(low[x])) * 256).rounded())
        }
        if newWidth == 2 * width {
            // (a·(256 − w) + b·w + 128) >> 8 with w = 64 · quarters is the widened row's
            // (4 × the value + 2) >> 2.
            return GrayImage.filled(width: newWidth, height: height) { target in
                pixels.withUnsafeBufferPointer { source in
                    guard let source = source.baseAddress else { return }
                    for y in 0..<height {
                        let out = y * newWidth
                        Self.widenedRow(source + y * width, width: width) { index, value in
                            target[out + index] = UInt8(truncatingIfNeeded: (value &+ 2) >> 2)
                        }
                    }
                }
            }
        }
        let high = low.map { min(width - 1, $0 + 1) }
        return GrayImage.filled(width: newWidth, height: height) { target in
            pixels.withUnsafeBufferPointer { source in
                low.withUnsafeBufferPointer { low in
                    high.withUnsafeBufferPointer { high in
                        weight.withUnsafeBufferPointer { weight in
                            for y in 0..<height {
                                let row = y * width
                                let out = y * newWidth
                                for x in 0..<newWidth {
                                    let w = weight[x]
                                    target[out + x] = UInt8(
                                        truncatingIfNeeded: (Int(source[row + low[x]]) * (256 - w) + Int(
                                            source[row + high[x]]) * w + 128) >> 8)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Shrunk by a whole `factor`: each output pixel the mean of a `factor`×`factor` block (every
    /// input pixel counts; a partial block at the right or bottom edge is dropped).
    public func downsampled(by factor: Int) -> GrayImage {
        guard factor > 1, width >= factor, height >= factor else { return self }
        let newWidth = width / factor
        let newHeight = height / factor
        var output = [UInt8](repeating: 255, count: newWidth * newHeight)
        // Column sums over the block's rows first (a straight loop the compiler vectorizes), then
        // the sums of each block's columns: the slow part is touching every pixel once.
        var columns = [UInt32](repeating: 0, count: width)
        let area = UInt32(factor * factor)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                columns.withUnsafeMutableBufferPointer { columns in
                    guard let base = source.baseAddress, let sums = columns.baseAddress else { return }
                    for y in 0..<newHeight {
                        columns.update(repeating: 0)
                        for row in y * factor..<(y + 1) * factor {
                            let line = base + row * width
                            for x in 0..<width { sums[x] &+= UInt32(line[x]) }
                        }
                        for x in 0..<newWidth {
                            var sum: UInt32 = 0
                            for column in x * factor..<(x + 1) * factor { sum &+= sums[column] }
                            target[y * newWidth + x] = UInt8(truncatingIfNeeded: sum / area)
                        }
                    }
                }
            }
        }
        return GrayImage(unchecked: newWidth, newHeight, output)
    }

    /// Contrast stretched so the darkest 1% become black and the lightest 1% white: rescues faint
    /// prints and over-exposed photos.
    public func stretchedContrast() -> GrayImage {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        let cut = pixels.count / 100
        var low = 0
        var high = 255
        var seen = 0
        while low < 255 && seen + histogram[low] <= cut {
            seen += histogram[low]
            low += 1
        }
        seen = 0
        while high > 0 && seen + histogram[high] <= cut {
            seen += histogram[high]
            high -= 1
        }
        guard high > low else { return self }
        let table = (0..<256).map { UInt8(max(0, min(255, ($0 - low) * 255 / (high - low)))) }
        return GrayImage(unchecked: width, height, pixels.map { table[Int($0)] })
    }

    /// The global threshold that best separates the image's dark and light pixels (Otsu's: the
    /// largest variance between the two classes of the histogram).
    public func otsuThreshold() -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        let total = Double(pixels.count)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var darkCount = 0.0
        var darkSum = 0.0
        var best = 0.0
        var threshold = 128
        for value in 0..<255 {
            darkCount += Double(histogram[value])
            darkSum += Double(value * histogram[value])
            let lightCount = total - darkCount
            guard darkCount > 0, lightCount > 0 else { continue }
            let difference = darkSum / darkCount - (sum - darkSum) / lightCount
            let between = darkCount * lightCount * difference * difference
            if between > best {
                best = between
                threshold = value + 1
            }
        }
        return UInt8(threshold)
    }

    /// Black and white by comparing each pixel with the mean of its `window`×`window` neighbourhood
    /// (minus `offset`): handles shadows and uneven light that defeat a global threshold.
    ///
    /// The box sums slide: one running sum per column over the window's rows, and one running sum
    /// along each row over those, so memory is one row of sums whatever the image size.
    public func adaptiveThreshold(window: Int, offset: Int = 5) -> GrayImage {
        let radius = max(1, window / 2)
        var columnSums = [Int](repeating: 0, count: width)
        return GrayImage.filled(width: width, height: height) { target in
            pixels.withUnsafeBufferPointer { source in
                columnSums.withUnsafeMutableBufferPointer { columnSums in
                    // Rows 0...radius-1 start the column sums; each output row then adds one row
                    // below the window and drops one above it.
                    for row in 0..<min(radius, height) {
                        for x in 0..<width { columnSums[x] += Int(source[row * width + x]) }
                    }
                    // The window is whole across the columns from `radius` to `width - radius - 1`;
                    // only the columns before and after need their part of it counted.
                    let inner = min(radius, width)..<max(min(radius, width), width - radius)
                    for y in 0..<height {
                        let entering = y + radius
                        let leaving = y - radius - 1
                        if entering < height {
                            for x in 0..<width { columnSums[x] += Int(source[entering * width + x]) }
                        }
                        if leaving >= 0 { for x in 0..<width { columnSums[x] -= Int(source[leaving * width + x]) } }
                        let rows = min(height, y + radius + 1) - max(0, y - radius)
                        let line = y * width
                        var sum = 0
                        for x in 0..<min(radius, width) { sum += columnSums[x] }
                        func judge(_ x: Int) {
                            if x + radius < width { sum += columnSums[x + radius] }
                            if x - radius - 1 >= 0 { sum -= columnSums[x - radius - 1] }
                            let area = rows * (min(width, x + radius + 1) - max(0, x - radius))
                            target[line + x] = Int(source[line + x]) * area < sum - offset * area ? 0 : 255
                        }
                        for x in 0..<inner.lowerBound { judge(x) }
                        let area = rows * (2 * radius + 1)
                        let bias = offset * area
                        for x in inner {
                            sum += columnSums[x + radius]
                            if x > radius { sum -= columnSums[x - radius - 1] }
                            target[line + x] = Int(source[line + x]) * area < sum - bias ? 0 : 255
                        }
                        for x in inner.upperBound..<width { judge(x) }
                    }
                }
            }
        }
    }

    /// Rotated by `degrees` (counter-clockwise) about the centre, on a white canvas large enough
    /// for the whole image. Turns a code tilted by that much back to upright.
    public func rotated(degrees: Double) -> GrayImage {
        let radians = degrees * .pi / 180
        let cosine = cos(radians)
        let sine = sin(radians)
        let newWidth = Int((Double(width) * abs(cosine) + Double(height) * abs(sine)).rounded(.up))
        let newHeight = Int((Double(width) * abs(sine) + Double(height) * abs(cosine)).rounded(.up))
        var output = [UInt8](repeating: 255, count: newWidth * newHeight)
        let centreX = Double(width) / 2
        let centreY = Double(height) / 2
        let newCentreX = Double(newWidth) / 2
        let newCentreY = Double(newHeight) / 2
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for y in 0..<newHeight {
                    let dy = Double(y) + 0.5 - newCentreY
                    for x in 0..<newWidth {
                        let dx = Double(x) + 0.5 - newCentreX
                        // Inverse mapping: where in the source this target pixel comes from.
                        let sourceX = cosine * dx - sine * dy + centreX - 0.5
                        let sourceY = sine * dx + cosine * dy + centreY - 0.5
                        // Outside the image unless both are at least 0; then truncation is the floor.
                        guard sourceX >= 0, sourceY >= 0 else { continue }
                        let x0 = Int(sourceX)
                        let y0 = Int(sourceY)
                        guard x0 + 1 < width, y0 + 1 < height else { continue }
                        let fx = sourceX - Double(x0)
                        let fy = sourceY - Double(y0)
                        let base = y0 * width + x0
                        let top = Double(source[base]) * (1 - fx) + Double(source[base + 1]) * fx
                        let bottom = Double(source[base + width]) * (1 - fx) + Double(source[base + width + 1]) * fx
                        // A value from 0 to 255: rounding half up is adding a half and truncating.
                        target[y * newWidth + x] = UInt8(truncatingIfNeeded: Int(top * (1 - fy) + bottom * fy + 0.5))
                    }
                }
            }
        }
        return GrayImage(unchecked: newWidth, newHeight, output)
    }

    /// The pixels of a rectangle (clamped to the image; an empty rectangle gives an empty image).
    func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> GrayImage {
        let left = max(0, min(x, width))
        let top = max(0, min(y, height))
        let right = max(left, min(x + cropWidth, width))
        let bottom = max(top, min(y + cropHeight, height))
        var output: [UInt8] = []
        output.reserveCapacity((right - left) * (bottom - top))
        for row in top..<bottom { output += pixels[row * width + left..<row * width + right] }
        return GrayImage(unchecked: right - left, bottom - top, output)
    }

    /// Light and dark swapped: a light code on a dark ground becomes an ordinary one.
    public func inverted() -> GrayImage {
        GrayImage(unchecked: width, height, pixels.map { 255 - $0 })
    }

    /// A 3×3 box blur: smooths JPEG blocking and sensor noise.
    public func boxBlurred() -> GrayImage {
        var output = pixels
        guard width >= 3, height >= 3 else { return self }
        // The sums of three rows in each column, then of three of those along the row.
        var columns = [UInt16](repeating: 0, count: width)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                columns.withUnsafeMutableBufferPointer { columns in
                    for y in 1..<height - 1 {
                        let above = (y - 1) * width
                        let row = y * width
                        let below = (y + 1) * width
                        for x in 0..<width {
                            columns[x] =
                                UInt16(source[above + x]) &+ UInt16(source[row + x]) &+ UInt16(source[below + x])
                        }
                        for x in 1..<width - 1 {
                            let sum = UInt32(columns[x - 1]) &+ UInt32(columns[x]) &+ UInt32(columns[x + 1])
                            target[row + x] = UInt8(truncatingIfNeeded: sum / 9)
                        }
                    }
                }
            }
        }
        return GrayImage(unchecked: width, height, output)
    }

    /// Blurred by a `(2·radius+1)`-wide box along rows, then (unless `alongRowsOnly`) along
    /// columns (edges repeat the border pixel); three of these approximate a Gaussian of σ ≈ radius.
    ///
    /// Running sums make the cost per pixel independent of the radius: one sum slides along each
    /// row, then one sum per column slides down the rows (row by row, as memory lies).
    public func boxBlurred(radius: Int, alongRowsOnly: Bool = false) -> GrayImage {
        guard radius > 0, width > 1 || height > 1 else { return self }
        let span = UInt32(2 * radius + 1)
        // x / span as (x · reciprocal) >> 24, exact for the sums of at most 255 · span.
        let reciprocal = ((1 << 24) + span - 1) / span
        var horizontal = [UInt8](repeating: 0, count: pixels.count)
        var output = horizontal
        var columnSums = [UInt32](repeating: 0, count: width)
        pixels.withUnsafeBufferPointer { source in
            horizontal.withUnsafeMutableBufferPointer { target in
                guard let source = source.baseAddress, let target = target.baseAddress else { return }
                for y in stride(from: 0, to: height, by: 2) {
                    let next = min(y + 1, height - 1)
                    Self.boxBlurRows(
                        source + y * width, source + next * width, into: target + y * width, target + next * width,
                        width: width, radius: radius, reciprocal: reciprocal)
                }
            }
        }
        guard !alongRowsOnly else { return GrayImage(unchecked: width, height, horizontal) }
        horizontal.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                columnSums.withUnsafeMutableBufferPointer { sums in
                    for offset in -radius...radius {
                        let row = max(0, min(height - 1, offset)) * width
                        for x in 0..<width { sums[x] &+= UInt32(source[row + x]) }
                    }
                    for y in 0..<height {
                        let row = y * width
                        let entering = min(height - 1, y + radius + 1) * width
                        let leaving = max(0, y - radius) * width
                        for x in 0..<width {
                            target[row + x] = UInt8(truncatingIfNeeded: (sums[x] &* reciprocal) >> 24)
                            sums[x] = sums[x] &+ UInt32(source[entering + x]) &- UInt32(source[leaving + x])
                        }
                    }
                }
            }
        }
        return GrayImage(unchecked: width, height, output)
    }

    /// Two rows blurred by a `(2·radius+1)`-wide box, the border pixel repeated: a sum slides
    /// along each row, and where the window lies inside the row no index needs clamping. The two
    /// sums are independent, so the processor works on both while each waits for its last
    /// addition; one row goes as both (`first` and `second` the same, and their targets too).
    /// `reciprocal` is ⌈2²⁴ / span⌉, so that x / span is (x · reciprocal) >> 24.
    @inline(__always)
    private static func boxBlurRows(
        _ first: UnsafePointer<UInt8>, _ second: UnsafePointer<UInt8>, into firstTarget: UnsafeMutablePointer<UInt8>,
        _ secondTarget: UnsafeMutablePointer<UInt8>, width: Int, radius: Int, reciprocal: UInt32
    ) {
        let inner = min(radius, width)..<max(min(radius, width), width - radius - 1)
        var sum1: UInt32 = 0
        var sum2: UInt32 = 0
        for offset in -radius...radius {
            let at = max(0, min(width - 1, offset))
            sum1 += UInt32(first[at])
            sum2 += UInt32(second[at])
        }
        func slide(_ x: Int) {
            let entering = min(width - 1, x + radius + 1)
            let leaving = max(0, x - radius)
            firstTarget[x] = UInt8(truncatingIfNeeded: (sum1 &* reciprocal) >> 24)
            secondTarget[x] = UInt8(truncatingIfNeeded: (sum2 &* reciprocal) >> 24)
            sum1 = sum1 &+ UInt32(first[entering]) &- UInt32(first[leaving])
            sum2 = sum2 &+ UInt32(second[entering]) &- UInt32(second[leaving])
        }
        for x in 0..<inner.lowerBound { slide(x) }
        for x in inner {
            firstTarget[x] = UInt8(truncatingIfNeeded: (sum1 &* reciprocal) >> 24)
            secondTarget[x] = UInt8(truncatingIfNeeded: (sum2 &* reciprocal) >> 24)
            sum1 = sum1 &+ UInt32(first[x + radius + 1]) &- UInt32(first[x - radius])
            sum2 = sum2 &+ UInt32(second[x + radius + 1]) &- UInt32(second[x - radius])
        }
        for x in inner.upperBound..<width { slide(x) }
    }

    /// Unsharp masking at a scale: the image plus `amount` times its difference from a Gaussian-like
    /// blur of σ ≈ `radius` (three box blurs), along rows only if asked (for horizontal scanlines).
    /// Where focus blur has merged bars or modules a few pixels wide, the 3×3
    /// ``sharpened(amount:)`` is too narrow to separate them again.
    public func unsharpMasked(radius: Int, amount: Double, alongRowsOnly: Bool = false) -> GrayImage {
        let gain = Int32((amount * 256).rounded())
        var output = pixels
        if alongRowsOnly && radius > 0 && (width > 1 || height > 1) {
            // Row by row, the three blurs in two scratch rows that stay in cache: the same
            // arithmetic as three whole-image passes of boxBlurred(radius:alongRowsOnly:).
            let reciprocal = ((1 << 24) + UInt32(2 * radius + 1) - 1) / UInt32(2 * radius + 1)
            // Two rows at a time, in four scratch rows (two for each).
            var scratch = [UInt8](repeating: 0, count: 4 * width)
            pixels.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        guard let source = source.baseAddress, let target = target.baseAddress,
                            let scratch = scratch.baseAddress
                        else { return }
                        let (a1, b1, a2, b2) = (scratch, scratch + width, scratch + 2 * width, scratch + 3 * width)
                        func sharpen(_ y: Int, blurred: UnsafePointer<UInt8>) {
                            let row = source + y * width
                            for x in 0..<width {
                                let value = Int32(row[x]) + (gain * (Int32(row[x]) - Int32(blurred[x]))) >> 8
                                target[y * width + x] = UInt8(truncatingIfNeeded: max(0, min(255, value)))
                            }
                        }
                        for y in stride(from: 0, to: height, by: 2) {
                            // An odd last row goes as both rows of the pair, into the first scratch rows.
                            let pair = y + 1 < height
                            let (a2, b2) = pair ? (a2, b2) : (a1, b1)
                            let row1 = source + y * width
                            let row2 = pair ? row1 + width : row1
                            Self.boxBlurRows(
                                row1, row2, into: a1, a2, width: width, radius: radius, reciprocal: reciprocal)
                            Self.boxBlurRows(a1, a2, into: b1, b2, width: width, radius: radius, reciprocal: reciprocal)
                            Self.boxBlurRows(b1, b2, into: a1, a2, width: width, radius: radius, reciprocal: reciprocal)
                            sharpen(y, blurred: a1)
                            if pair { sharpen(y + 1, blurred: a2) }
                        }
                    }
                }
            }
            return GrayImage(unchecked: width, height, output)
        }
        func blur(_ image: GrayImage) -> GrayImage { image.boxBlurred(radius: radius, alongRowsOnly: alongRowsOnly) }
        let blurred = blur(blur(blur(self)))
        pixels.withUnsafeBufferPointer { source in
            blurred.pixels.withUnsafeBufferPointer { blur in
                output.withUnsafeMutableBufferPointer { target in
                    for index in 0..<source.count {
                        let value = Int32(source[index]) + (gain * (Int32(source[index]) - Int32(blur[index]))) >> 8
                        target[index] = UInt8(max(0, min(255, value)))
                    }
                }
            }
        }
        return GrayImage(unchecked: width, height, output)
    }

    /// Unsharp masking (the image plus its difference from a 3×3 blur): restores module edges
    /// softened by focus blur.
    public func sharpened(amount: Double = 1.5) -> GrayImage {
        let blurred = boxBlurred()
        var output = pixels
        if amount == 1.5 {
            // p + 1.5 (p − b) = (5p − 3b) / 2 exactly, halves rounded away from zero as below.
            pixels.withUnsafeBufferPointer { source in
                blurred.pixels.withUnsafeBufferPointer { blur in
                    output.withUnsafeMutableBufferPointer { target in
                        for index in 0..<source.count {
                            let twice = 5 * Int32(source[index]) - 3 * Int32(blur[index])
                            target[index] = UInt8(truncatingIfNeeded: max(0, min(255, (twice + 1) >> 1)))
                        }
                    }
                }
            }
            return GrayImage(unchecked: width, height, output)
        }
        for index in pixels.indices {
            let value = Double(pixels[index]) + amount * (Double(pixels[index]) - Double(blurred.pixels[index]))
            output[index] = UInt8(max(0, min(255, value.rounded())))
        }
        return GrayImage(unchecked: width, height, output)
    }
}

extension GrayImage {
    /// A `width`×`height` image whose every pixel `fill` writes: the pixels are not cleared first,
    /// which for the pipeline's copies would be a second pass over as much memory.
    static func filled(width: Int, height: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> GrayImage {
        let count = width * height
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(buffer)
            initialized = count
        }
        return GrayImage(unchecked: width, height, pixels)
    }
}
