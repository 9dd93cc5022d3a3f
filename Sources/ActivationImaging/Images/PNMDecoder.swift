/// Netpbm images (PBM, PGM, PPM; plain and raw), the format zbar's own tools read and write.
enum PNMDecoder {
    static func decode(_ bytes: [UInt8], name: String, maxPixels: Int) throws -> GrayImage {
        var reader = Reader(bytes: bytes)
        func corrupt(_ why: String) -> ImagingError {
            ImagingError(.corruptImage, source: name, "PNM is damaged or truncated (\(why))")
        }
        guard bytes.count >= 2, let kind = Int(String(UnicodeScalar(bytes[1]))) else { throw corrupt("no header") }
        reader.offset = 2
        guard let width = reader.number(), let height = reader.number(), width > 0, height > 0 else {
            throw corrupt("bad size")
        }
        try ImageDecoder.checkPixels(width: width, height: height, limit: maxPixels, name: name)
        let isBitmap = kind == 1 || kind == 4
        let maxValue = isBitmap ? 1 : (reader.number() ?? 0)
        guard (1...65535).contains(maxValue) else { throw corrupt("bad maximum value") }
        let channels = (kind == 3 || kind == 6) ? 3 : 1
        let count = width * height
        var gray = [UInt8](repeating: 255, count: count)

        if kind <= 3 {
            // Plain (ASCII) samples.
            for index in 0..<count {
                var sum = 0
                for _ in 0..<channels {
                    guard let sample = isBitmap ? reader.bit() : reader.number(), sample <= maxValue else {
                        throw corrupt("missing samples")
                    }
                    sum += sample
                }
                gray[index] = isBitmap ? (sum == 0 ? 255 : 0) : UInt8(sum * 255 / (channels * maxValue))
            }
            return GrayImage(unchecked: width, height, gray)
        }

        reader.offset += 1  // the single whitespace after the header
        if isBitmap {
            let rowBytes = (width + 7) / 8
            guard reader.offset + rowBytes * height <= bytes.count else { throw corrupt("the file is truncated") }
            for y in 0..<height {
                for x in 0..<width {
                    let byte = bytes[reader.offset + y * rowBytes + x / 8]
                    gray[y * width + x] = (byte >> (7 - UInt8(x % 8))) & 1 == 1 ? 0 : 255
                }
            }
            return GrayImage(unchecked: width, height, gray)
        }
        let sampleBytes = maxValue > 255 ? 2 : 1
        guard reader.offset + count * channels * sampleBytes <= bytes.count else {
            throw corrupt("the file is truncated")
        }
        var position = reader.offset
        for index in 0..<count {
            var sum = 0
            for _ in 0..<channels {
                sum += sampleBytes == 2 ? Int(bytes[position]) << 8 | Int(bytes[position + 1]) : Int(bytes[position])
                position += sampleBytes
            }
            gray[index] = UInt8(min(255, sum * 255 / (channels * maxValue)))
        }
        return GrayImage(unchecked: width, height, gray)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func skipSpaceAndComments() {
            while offset < bytes.count {
                if bytes[offset] == UInt8(ascii: "#") {
                    while offset < bytes.count, bytes[offset] != 0x0A { offset += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) {
                    offset += 1
                } else {
                    return
                }
            }
        }

        mutating func number() -> Int? {
            skipSpaceAndComments()
            var value = 0
            var digits = 0
            while offset < bytes.count, (0x30...0x39).contains(bytes[offset]), digits < 9 {
                value = value * 10 + Int(bytes[offset] - 0x30)
                offset += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        mutating func bit() -> Int? {
            skipSpaceAndComments()
            guard offset < bytes.count, bytes[offset] == 0x30 || bytes[offset] == 0x31 else { return nil }
            defer { offset += 1 }
            return Int(bytes[offset] - 0x30)
        }
    }
}
