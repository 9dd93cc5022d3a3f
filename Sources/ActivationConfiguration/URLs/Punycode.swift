/// Punycode (RFC 3492), the encoding IDNA uses to write a non-ASCII host label in ASCII
/// (`bücher` → `xn--bcher-kva`).
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// The Punycode form of `label` (without the `xn--` prefix), or `nil` on arithmetic overflow
    /// (only possible for labels far longer than DNS allows).
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map(\.value)
        var output = String(String.UnicodeScalarView(label.unicodeScalars.filter(\.isASCII)))
        let basicCount = output.unicodeScalars.count
        var handled = basicCount
        if basicCount > 0 { output += "-" }
        var n = UInt32(initialN)
        var delta = 0
        var bias = initialBias
        while handled < input.count {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (step, overflow) = Int(next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int.max - step else { return nil }
            delta += step
            n = next
            for value in input {
                if value < n {
                    delta += 1
                } else if value == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.unicodeScalars.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.unicodeScalars.append(digit(q))
                    bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }

    private static func digit(_ value: Int) -> Unicode.Scalar {
        Unicode.Scalar(UInt8(value < 26 ? 0x61 + value : 0x30 + value - 26))
    }

    private static func adapt(_ delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + ((base - tMin + 1) * delta) / (delta + skew)
    }
}
