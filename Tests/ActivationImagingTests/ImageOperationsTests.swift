import Foundation
import TestSupport
import Testing

@testable import ActivationImaging

/// The pipeline's image operations are written for speed (running sums, tables, unchecked inner
/// loops, separate border and interior loops); these hold each to its plain per-pixel definition,
/// pixel for pixel, on random images of awkward sizes and on a real photo.
@Suite("Image operations against their per-pixel definitions")
struct ImageOperationsTests {
    /// Random images, from smaller than every window to wider than tall and back.
    static let images: [GrayImage] = {
        var generator = SystemRandomNumberGenerator()
        var images = [(1, 1), (2, 3), (3, 3), (5, 17), (17, 5), (31, 29), (64, 48), (101, 7)].map { width, height in
            GrayImage(
                unchecked: width, height, (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
            )
        }
        // Smooth regions and hard edges, as in photos: random blocks.
        let width = 90
        let height = 70
        images.append(
            GrayImage(
                unchecked: width, height,
                (0..<width * height).map { index in
                    UInt8(truncatingIfNeeded: ((index % width) / 9 * 37 + (index / width) / 7 * 91) % 256)
                }))
        return images
    }()

    /// A part of a real photo (a carpet's texture): the per-pixel definitions are slow in a debug build.
    static func photo() throws -> GrayImage {
        try ImageDecoder().decodeFile(ImageFixture.path("corpus/falsepositives-2/13.png")).cropped(
            x: 100, y: 120, width: 160, height: 130)
    }

    func clamped(_ image: GrayImage, _ x: Int, _ y: Int) -> Int {
        Int(image[max(0, min(image.width - 1, x)), max(0, min(image.height - 1, y))])
    }

    @Test("adaptive threshold: each pixel against the mean of its window, clipped at the borders")
    func adaptiveThreshold() throws {
        for image in Self.images + [try Self.photo()] {
            for window in [3, 15, max(15, min(image.width, image.height) / 12), 41] {
                let radius = max(1, window / 2)
                let offset = 5
                let fast = image.adaptiveThreshold(window: window, offset: offset)
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        var sum = 0
                        var area = 0
                        for row in max(0, y - radius)...min(image.height - 1, y + radius) {
                            for column in max(0, x - radius)...min(image.width - 1, x + radius) {
                                sum += Int(image[column, row])
                                area += 1
                            }
                        }
                        let expected: UInt8 = Int(image[x, y]) * area < sum - offset * area ? 0 : 255
                        guard fast[x, y] == expected else {
                            Issue.record(
                                """
                                \(image.width)×\(image.height), window \(window): (\(x), \(y)) is \(fast[x, y]), not \
                                \(expected)
                                """
                            )
                            return
                        }
                    }
                }
            }
        }
    }

    @Test("box blurs: 3×3 inside the border, and the running (2r+1) box with the border pixel repeated")
    func boxBlurs() throws {
        for image in Self.images + [try Self.photo()] {
            let small = image.boxBlurred()
            for y in 0..<image.height {
                for x in 0..<image.width {
                    var expected = image[x, y]
                    if x > 0, y > 0, x < image.width - 1, y < image.height - 1 {
                        var sum = 0
                        for row in y - 1...y + 1 { for column in x - 1...x + 1 { sum += Int(image[column, row]) } }
                        expected = UInt8(sum / 9)
                    }
                    #expect(small[x, y] == expected, "\(image.width)×\(image.height) 3×3 at (\(x), \(y))")
                    if small[x, y] != expected { return }
                }
            }
            for radius in [1, 3, 4] {
                let rows = image.boxBlurred(radius: radius, alongRowsOnly: true)
                let span = 2 * radius + 1
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        let sum = (-radius...radius).reduce(0) { $0 + clamped(image, x + $1, y) }
                        #expect(
                            Int(rows[x, y]) == sum / span,
                            "\(image.width)×\(image.height) radius \(radius) at (\(x), \(y))")
                        if Int(rows[x, y]) != sum / span { return }
                    }
                }
                // Both directions: the rows' blur, then the same down the columns.
                let both = image.boxBlurred(radius: radius)
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        let sum = (-radius...radius).reduce(0) { $0 + clamped(rows, x, y + $1) }
                        #expect(
                            Int(both[x, y]) == sum / span,
                            "\(image.width)×\(image.height) radius \(radius), columns, at (\(x), \(y))")
                        if Int(both[x, y]) != sum / span { return }
                    }
                }
            }
        }
    }

    @Test("sharpening: p + 1.5 (p − 3×3 mean), rounded half away from zero, clamped")
    func sharpened() throws {
        for image in Self.images + [try Self.photo()] {
            let blurred = image.boxBlurred()
            for amount in [1.5, 0.8] {
                let fast = image.sharpened(amount: amount)
                for index in image.pixels.indices {
                    let value =
                        Double(image.pixels[index]) + amount
                        * (Double(image.pixels[index]) - Double(blurred.pixels[index]))
                    let expected = UInt8(max(0, min(255, value.rounded())))
                    #expect(
                        fast.pixels[index] == expected,
                        "\(image.width)×\(image.height), amount \(amount), pixel \(index)")
                    if fast.pixels[index] != expected { return }
                }
            }
        }
    }

    @Test("widening and enlarging: linear and bilinear interpolation at the sampling positions")
    func interpolation() throws {
        for image in Self.images + [try Self.photo()] {
            for factor in [1.25, 2.0] {
                let wide = image.stretched(horizontally: factor)
                #expect(wide.height == image.height && wide.width == Int((Double(image.width) * factor).rounded()))
                for x in 0..<wide.width {
                    let position = max(0, (Double(x) + 0.5) / factor - 0.5)
                    let low = min(image.width - 1, Int(position))
                    let high = min(image.width - 1, low + 1)
                    let weight = Int(((position - Double(low)) * 256).rounded())
                    for y in 0..<image.height {
                        let expected = (Int(image[low, y]) * (256 - weight) + Int(image[high, y]) * weight + 128) >> 8
                        #expect(
                            Int(wide[x, y]) == expected,
                            "\(image.width)×\(image.height) widened \(factor) at (\(x), \(y))")
                        if Int(wide[x, y]) != expected { return }
                    }
                }
            }
            let large = image.scaled(by: 2)
            #expect(large.width == image.width * 2 && large.height == image.height * 2)
            let one = 1 << 16
            func axis(_ index: Int, _ limit: Int) -> (low: Int, high: Int, weight: Int) {
                let position = max(0, (Double(index) + 0.5) / 2 - 0.5)
                let low = min(limit - 1, Int(position))
                return (low, min(limit - 1, low + 1), Int(((position - Double(low)) * Double(one)).rounded()))
            }
            for y in 0..<large.height {
                let row = axis(y, image.height)
                for x in 0..<large.width {
                    let column = axis(x, image.width)
                    let upper =
                        Int(image[column.low, row.low]) * (one - column.weight) + Int(image[column.high, row.low])
                        * column.weight
                    let lower =
                        Int(image[column.low, row.high]) * (one - column.weight) + Int(image[column.high, row.high])
                        * column.weight
                    let expected = (upper * (one - row.weight) + lower * row.weight + (1 << 31)) >> 32
                    #expect(Int(large[x, y]) == expected, "\(image.width)×\(image.height) enlarged at (\(x), \(y))")
                    if Int(large[x, y]) != expected { return }
                }
            }
        }
    }

    @Test("unsharp masking along the rows: three row blurs, then p + gain (p − blur), clamped")
    func unsharpRows() throws {
        for image in Self.images + [try Self.photo()] {
            for (radius, amount) in [(4, 2.0), (1, 1.5), (3, 0.5)] {
                let fast = image.unsharpMasked(radius: radius, amount: amount, alongRowsOnly: true)
                let blurred = image.boxBlurred(radius: radius, alongRowsOnly: true).boxBlurred(
                    radius: radius, alongRowsOnly: true
                )
                .boxBlurred(radius: radius, alongRowsOnly: true)
                let gain = Int((amount * 256).rounded())
                for index in image.pixels.indices {
                    let pixel = Int(image.pixels[index])
                    let expected = UInt8(max(0, min(255, pixel + (gain * (pixel - Int(blurred.pixels[index]))) >> 8)))
                    #expect(
                        fast.pixels[index] == expected,
                        "\(image.width)×\(image.height) radius \(radius), pixel \(index)")
                    if fast.pixels[index] != expected { return }
                }
            }
        }
    }

    @Test("rotation: each pixel bilinear from where the inverse turn puts it, white outside")
    func rotation() throws {
        for image in Self.images + [try Self.photo()] {
            for degrees in [22.5, -22.5, 45, 90] {
                let turned = image.rotated(degrees: degrees)
                let radians = degrees * .pi / 180
                let cosine = cos(radians)
                let sine = sin(radians)
                for y in 0..<turned.height {
                    for x in 0..<turned.width {
                        let dx = Double(x) + 0.5 - Double(turned.width) / 2
                        let dy = Double(y) + 0.5 - Double(turned.height) / 2
                        let sourceX = cosine * dx - sine * dy + Double(image.width) / 2 - 0.5
                        let sourceY = sine * dx + cosine * dy + Double(image.height) / 2 - 0.5
                        let x0 = Int(sourceX.rounded(.down))
                        let y0 = Int(sourceY.rounded(.down))
                        var expected: UInt8 = 255
                        if x0 >= 0, y0 >= 0, x0 + 1 < image.width, y0 + 1 < image.height {
                            let fx = sourceX - Double(x0)
                            let fy = sourceY - Double(y0)
                            let top = Double(image[x0, y0]) * (1 - fx) + Double(image[x0 + 1, y0]) * fx
                            let bottom = Double(image[x0, y0 + 1]) * (1 - fx) + Double(image[x0 + 1, y0 + 1]) * fx
                            expected = UInt8((top * (1 - fy) + bottom * fy).rounded())
                        }
                        #expect(
                            turned[x, y] == expected,
                            "\(image.width)×\(image.height) turned \(degrees)° at (\(x), \(y))")
                        if turned[x, y] != expected { return }
                    }
                }
            }
        }
    }
}
