/// Reads QR Code Model 1 symbols (ISO/IEC 18004:2000, annex M): the original QR Code, superseded
/// by Model 2 in 1997 but still printed on old labels. Neither zbar nor Debian's zxing-cpp 1.4
/// reads them.
///
/// Model 1 has Model 2's finder patterns, timing patterns and format information (under another
/// mask), but no alignment patterns and its own codeword placement and block tables. The reader
/// takes three finder patterns at a right angle, samples the module grid between them (an affine
/// map: Model 1 symbols are small, 21 to 73 modules), and accepts a symbol only when its format
/// information is Model 1's and every block passes Reed–Solomon correction.
enum QRModel1Reader {
    /// The Model 1 symbols in `image`; `survey` holds its finder patterns when the pipeline has
    /// looked for them already.
    static func read(_ image: GrayImage, survey: FinderSurvey? = nil) -> [ScannedSymbol] {
        for binarization in (survey ?? FinderSurvey(image)).binarizations {
            let (binary, threshold) = (binarization.image, binarization.threshold)
            for triangle in CodeEvidence.finderTriangles(binarization.finders).prefix(8)
            where CodeEvidence.hasTimingPatterns(triangle, in: binary, threshold: threshold) {
                if let symbol = read(binary, threshold: threshold, triangle) { return [symbol] }
            }
        }
        return []
    }

    /// The symbol whose finder patterns are `triangle`, when it is a readable Model 1 symbol.
    private static func read(_ image: GrayImage, threshold: UInt8, _ triangle: CodeEvidence.FinderTriangle)
        -> ScannedSymbol?
    {
        for version in QRGrid.versions(around: triangle) where (1...14).contains(version) {
            let size = 17 + 4 * version
            // The parallelogram of the three finders: Model 1 has no alignment pattern to bend it.
            guard let grid = QRGrid(triangle, size: size) else { continue }
            var modules = [Bool](repeating: false, count: size * size)
            var inside = true
            for index in modules.indices {
                let point = grid.pixel(Double(index % size) + 0.5, Double(index / size) + 0.5)
                let x = Int(point.x.rounded(.down))
                let y = Int(point.y.rounded(.down))
                guard x >= 0, y >= 0, x < image.width, y < image.height else {
                    inside = false
                    break
                }
                modules[index] = image.pixels[y * image.width + x] < threshold
            }
            guard inside, let bytes = decode(Matrix(size: size, modules: modules), version: version) else { continue }
            return ScannedSymbol(
                symbology: .qr, bytes: bytes, text: PayloadText.decode(bytes).text, corners: grid.corners)
        }
        return nil
    }

    /// The sampled modules, `true` for dark.
    struct Matrix {
        var size: Int
        var modules: [Bool]
        func isDark(column: Int, row: Int) -> Bool { modules[row * size + column] }
    }

    /// The payload of a sampled Model 1 symbol, or `nil` when it is none.
    static func decode(_ matrix: Matrix, version: Int) -> [UInt8]? {
        guard let format = formatInformation(matrix) else { return nil }
        let blocks = blockTable[version - 1][format.level]
        var codewords = placedCodewords(matrix, mask: format.mask)
        guard codewords.count == blocks.count * (blocks.data + blocks.ecc) else { return nil }
        // A Model 1 bit stream starts with four zero bits: the first codeword's high nibble is
        // known, so it is set rather than read.
        codewords[0] &= 0x0F
        // Unlike Model 2, blocks are not interleaved: each block's data codewords in turn, then
        // each block's error-correction codewords.
        var data: [UInt8] = []
        for block in 0..<blocks.count {
            let dataStart = block * blocks.data
            let eccStart = blocks.count * blocks.data + block * blocks.ecc
            var codeword = Array(
                codewords[dataStart..<dataStart + blocks.data] + codewords[eccStart..<eccStart + blocks.ecc])
            // Two codewords of each block are kept back from correction: a misread symbol must
            // fail rather than be corrected into another payload.
            guard ReedSolomon.correct(&codeword, eccCount: blocks.ecc, maximumErrors: (blocks.ecc - 2) / 2) != nil
            else { return nil }
            data += codeword.prefix(blocks.data)
        }
        return QRBitStream.payload(data, version: version, leadingZeroBits: 4)
    }

    // MARK: Format information

    /// Error-correction level (as the table's index: L, M, Q, H) and data mask.
    struct Format {
        var level: Int
        var mask: Int
    }

    /// The 15 format bits, BCH-encoded, under each model's mask.
    static func formatCodeword(_ data: Int, mask: Int) -> Int {
        var remainder = data << 10
        for bit in stride(from: 14, through: 10, by: -1) where remainder >> bit & 1 == 1 {
            remainder ^= 0b101_0011_0111 << (bit - 10)
        }
        return ((data << 10) | remainder) ^ mask
    }

    static let model1Mask = 0x2825, model2Mask = 0x5412

    /// The format of a Model 1 symbol, read from both copies; `nil` when the nearest valid format
    /// is more than 3 bits off, or a Model 2 format is as near (a Model 2 symbol: zxing's to read).
    static func formatInformation(_ matrix: Matrix) -> Format? {
        let size = matrix.size
        func bits(_ positions: [(column: Int, row: Int)]) -> Int {
            positions.reduce(0) { $0 << 1 | (matrix.isDark(column: $1.column, row: $1.row) ? 1 : 0) }
        }
        let first = bits([0, 1, 2, 3, 4, 5, 7, 8].map { ($0, 8) } + [7, 5, 4, 3, 2, 1, 0].map { (8, $0) })
        let second = bits((0..<7).map { (8, size - 1 - $0) } + (0..<8).map { (size - 8 + $0, 8) })
        var best: (distance: Int, data: Int, model1: Bool) = (16, 0, false)
        for data in 0..<32 {
            for (mask, model1) in [(model1Mask, true), (model2Mask, false)] {
                let codeword = formatCodeword(data, mask: mask)
                for read in [first, second] {
                    let distance = (codeword ^ read).nonzeroBitCount
                    if distance < best.distance || (distance == best.distance && !model1) {
                        best = (distance, data, model1)
                    }
                }
            }
        }
        guard best.distance <= 3, best.model1 else { return nil }
        // The two level bits: 01 L, 00 M, 11 Q, 10 H.
        let level = [1, 0, 3, 2][best.data >> 3]
        return Format(level: level, mask: best.data & 7)
    }

    /// Whether data mask `mask` inverts the module at (column, row).
    static func masked(_ mask: Int, column: Int, row: Int) -> Bool {
        switch mask {
        case 0: return (row + column) % 2 == 0
        case 1: return row % 2 == 0
        case 2: return column % 3 == 0
        case 3: return (row + column) % 3 == 0
        case 4: return (row / 2 + column / 3) % 2 == 0
        case 5: return (row * column) % 6 == 0
        case 6: return (row * column) % 6 < 3
        default: return (row + column + (row * column) % 3) % 2 == 0
        }
    }

    // MARK: Codeword placement

    /// The codewords in placement order (annex M): 2×4 blocks up the two rightmost column pairs
    /// (skipping the extension patterns on the right edge), 4×2 blocks up each 4-wide column band
    /// in the middle, and 2×4 blocks up the column pairs left of the vertical timing pattern.
    static func placedCodewords(_ matrix: Matrix, mask: Int) -> [UInt8] {
        let size = matrix.size
        let bands = size / 4 + 3
        var codewords: [UInt8] = []
        // One codeword whose most significant bit is at (column, row), filling `width` columns
        // leftwards and then rows upwards.
        func codeword(column: Int, row: Int, width: Int) -> UInt8 {
            var value: UInt8 = 0
            for bit in 0..<8 {
                let x = column - bit % width
                let y = row - bit / width
                value = value << 1 | (matrix.isDark(column: x, row: y) != masked(mask, column: x, row: y) ? 1 : 0)
            }
            return value
        }
        for band in 0..<bands {
            if band <= 1 {
                let count = (size - 8) / 4
                for index in 0..<count {
                    if band == 0 && index % 2 == 0 && index > 0 && index < count - 1 { continue }  // extension pattern
                    codewords.append(codeword(column: size - 1 - 2 * band, row: size - 1 - 4 * index, width: 2))
                }
            } else if bands - band <= 4 {
                let fromLeft = bands - band
                // Left of the vertical timing pattern (column 6) the pairs shift by one.
                let column = (fromLeft - 1) * 2 + 1 + (fromLeft == 4 ? 1 : 0)
                for index in 0..<(size - 16) / 4 {
                    codewords.append(codeword(column: column, row: size - 9 - 4 * index, width: 2))
                }
            } else {
                let count = size / 2
                for index in 0..<count {
                    if band == 2 && index >= count - 4 { continue }  // beside the top right finder
                    if index == 0 && band % 2 == 1 && band + 1 != bands - 4 { continue }  // extension pattern
                    // Rows above the horizontal timing pattern (row 6) shift by one.
                    let row = size - 1 - 2 * index - (index >= count - 3 ? 1 : 0)
                    codewords.append(codeword(column: size - 5 - (band - 2) * 4, row: row, width: 4))
                }
            }
        }
        return codewords
    }

    /// Error-correction blocks per version (1…14) and level (L, M, Q, H): ISO/IEC 18004:2000
    /// tables M.2 and M.4.
    struct Blocks { var count, data, ecc: Int }

    static let blockTable: [[Blocks]] = [
        // (error-correction codewords per block, blocks, data codewords per block) for L, M, Q, H
        [(7, 1, 19), (10, 1, 16), (13, 1, 13), (17, 1, 9)],
        [(10, 1, 36), (16, 1, 30), (22, 1, 24), (30, 1, 16)],
        [(15, 1, 57), (28, 1, 44), (36, 1, 36), (48, 1, 24)],
        [(20, 1, 80), (40, 1, 60), (50, 1, 50), (66, 1, 34)],
        [(26, 1, 108), (52, 1, 82), (66, 1, 68), (44, 2, 23)],
        [(34, 1, 136), (32, 2, 53), (42, 2, 43), (56, 2, 29)],
        [(42, 1, 170), (40, 2, 66), (52, 2, 54), (46, 3, 24)],
        [(24, 2, 104), (48, 2, 80), (64, 2, 64), (56, 3, 29)],
        [(30, 2, 123), (60, 2, 93), (50, 3, 52), (68, 3, 34)],
        [(34, 2, 145), (68, 2, 111), (58, 3, 61), (58, 4, 31)],
        [(40, 2, 168), (40, 4, 64), (52, 4, 52), (54, 5, 29)],
        [(46, 2, 192), (46, 4, 73), (58, 4, 61), (62, 5, 33)],
        [(36, 3, 144), (52, 4, 83), (66, 4, 69), (58, 6, 32)],
        [(40, 3, 163), (60, 4, 92), (60, 5, 62), (66, 6, 35)],
    ].map { $0.map { Blocks(count: $0.1, data: $0.2, ecc: $0.0) } }
}
