/// Splits a payload into the QR segments that take the fewest bits: runs of digits in numeric mode,
/// runs of `0-9 A-Z $%*+-./:` and space in alphanumeric mode, the rest in byte mode, switching
/// only where the saving outweighs a segment header (the optimal split, by dynamic programming over
/// the bytes, as in ISO/IEC 18004 Annex J and Nayuki's QR library). A JSON configuration (mostly
/// lower case, with long digit runs in ids) and an `AC1:` code both come out no larger than
/// qrencode's choice.
enum QRSegments {
    struct Segment: Equatable {
        var mode: QREncodingMode
        var bytes: ArraySlice<UInt8>
    }

    /// The character-count bits of a segment header, by mode and version group (1–9, 10–26, 27–40).
    static func countBits(_ mode: QREncodingMode, group: Int) -> Int {
        switch mode {
        case .numeric: [10, 12, 14][group]
        case .alphanumeric: [9, 11, 13][group]
        case .byte, .mixed: [8, 16, 16][group]
        }
    }

    /// The version group whose header sizes apply to `version`.
    static func group(ofVersion version: Int) -> Int {
        version <= 9 ? 0 : version <= 26 ? 1 : 2
    }

    /// Data codewords of version 9, the largest of the first version group, by level (ISO/IEC
    /// 18004 table 7): a split that needs more bits than this cannot stay in that group.
    static func version9DataBits(_ level: ErrorCorrection) -> Int {
        let codewords =
            switch level {
            case .low: 232
            case .medium: 182
            case .quartile: 132
            case .high: 100
            }
        return 8 * codewords
    }

    /// The bits `segments` take: each segment's mode indicator, count and data.
    static func bits(_ segments: [Segment], group: Int) -> Int {
        segments.reduce(0) { total, segment in
            let count = segment.bytes.count
            let data =
                switch segment.mode {
                case .numeric: count / 3 * 10 + [0, 4, 7][count % 3]
                case .alphanumeric: count / 2 * 11 + count % 2 * 6
                case .byte, .mixed: count * 8
                }
            return total + 4 + countBits(segment.mode, group: group) + data
        }
    }

    /// The optimal segments of `payload` for versions in `group`.
    static func split(_ payload: [UInt8], group: Int) -> [Segment] {
        let modes: [QREncodingMode] = [.byte, .alphanumeric, .numeric]
        // Costs in sixths of a bit: a digit is 10/3 bits, an alphanumeric character 11/2, a byte 8.
        let characterCost = [48, 33, 20]
        let headerCost = modes.map { (4 + countBits($0, group: group)) * 6 }
        func encodes(_ mode: Int, _ byte: UInt8) -> Bool {
            switch mode {
            case 0: true
            case 1: QREncodingMode.alphanumericSet.contains(byte)
            default: (0x30...0x39).contains(byte)
            }
        }
        // Fixed-size costs and one flat table: this runs per byte, per version group, per code.
        var costs: InlineArray<3, Int> = [headerCost[0], headerCost[1], headerCost[2]]
        // chosen[3 * i + m]: the mode byte i is written in, when the best split of bytes 0...i ends in mode m.
        var chosen = [Int8](repeating: -1, count: 3 * payload.count)
        for (index, byte) in payload.enumerated() {
            var next: InlineArray<3, Int> = [Int.max, Int.max, Int.max]
            for mode in 0..<3 where encodes(mode, byte) {
                next[mode] = costs[mode] + characterCost[mode]
                chosen[3 * index + mode] = Int8(mode)
            }
            // Or end the segment here and open one in another mode for what follows.
            let continued = next
            for mode in 0..<3 {
                for previous in 0..<3 where continued[previous] != Int.max {
                    let switched = (continued[previous] + 5) / 6 * 6 + headerCost[mode]
                    if switched < next[mode] {
                        next[mode] = switched
                        chosen[3 * index + mode] = Int8(previous)
                    }
                }
            }
            costs = next
        }
        guard !payload.isEmpty else { return [] }
        var mode = costs[0] <= costs[1] && costs[0] <= costs[2] ? 0 : costs[1] <= costs[2] ? 1 : 2
        var perByte = [Int](repeating: 0, count: payload.count)
        for index in stride(from: payload.count - 1, through: 0, by: -1) {
            mode = Int(chosen[3 * index + mode])
            perByte[index] = mode
        }
        var segments: [Segment] = []
        var start = 0
        for index in 1...payload.count where index == payload.count || perByte[index] != perByte[start] {
            segments.append(Segment(mode: modes[perByte[start]], bytes: payload[start..<index]))
            start = index
        }
        return segments
    }
}
