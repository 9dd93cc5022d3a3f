/// Reed–Solomon error correction over GF(256) as QR codes use it: the field of the polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (0x11D), generator roots α⁰ … αⁿ⁻¹.
///
/// Decoding is Berlekamp–Massey (the error locator), Chien search (the positions) and Forney (the
/// values), followed by a check that the corrected block has no syndrome left, so that a block with
/// more errors than the code can fix is rejected rather than "corrected" into another codeword.
enum ReedSolomon {
    /// αⁱ for i in 0..<510 (doubled so a sum of two logarithms needs no modulo) and log(x).
    private static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 510)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for power in 255..<510 { exp[power] = exp[power - 255] }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    static func divide(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return tables.exp[tables.log[Int(a)] + 255 - tables.log[Int(b)]]
    }

    /// αᵖᵒʷᵉʳ for any power (negative too).
    static func alpha(_ power: Int) -> UInt8 { tables.exp[((power % 255) + 255) % 255] }

    /// A polynomial (coefficients from x⁰ up) at `x`.
    private static func evaluate(_ polynomial: [UInt8], at x: UInt8) -> UInt8 {
        var result: UInt8 = 0
        for coefficient in polynomial.reversed() { result = multiply(result, x) ^ coefficient }
        return result
    }

    /// Corrects `block` (data then `eccCount` error-correction codewords, the first codeword the
    /// highest power) in place; at most `maximumErrors` errors are accepted (fewer than the code's
    /// `eccCount / 2` keeps some codewords back against miscorrection).
    ///
    /// - Returns: the number of codewords corrected, or `nil` when the block cannot be corrected.
    static func correct(_ block: inout [UInt8], eccCount: Int, maximumErrors: Int) -> Int? {
        let n = block.count
        guard eccCount > 0, eccCount < n, n <= 255 else { return nil }
        func syndromes() -> [UInt8] {
            (0..<eccCount).map { power in
                let x = alpha(power)
                return block.reduce(0) { multiply($0, x) ^ $1 }
            }
        }
        let syndrome = syndromes()
        guard syndrome.contains(where: { $0 != 0 }) else { return 0 }

        // Berlekamp–Massey: the shortest error locator Λ(x) generating the syndromes.
        var locator: [UInt8] = [1]
        var previous: [UInt8] = [1]
        var errors = 0
        var shift = 1
        var previousDiscrepancy: UInt8 = 1
        for step in 0..<eccCount {
            var discrepancy = syndrome[step]
            for index in stride(from: 1, through: min(errors, locator.count - 1), by: 1) {
                discrepancy ^= multiply(locator[index], syndrome[step - index])
            }
            if discrepancy == 0 {
                shift += 1
                continue
            }
            let scale = divide(discrepancy, previousDiscrepancy)
            var updated = locator
            if updated.count < previous.count + shift {
                updated += [UInt8](repeating: 0, count: previous.count + shift - updated.count)
            }
            for (index, coefficient) in previous.enumerated() { updated[index + shift] ^= multiply(scale, coefficient) }
            if 2 * errors <= step {
                previous = locator
                errors = step + 1 - errors
                previousDiscrepancy = discrepancy
                shift = 1
            } else {
                shift += 1
            }
            locator = updated
        }
        while locator.count > 1 && locator.last == 0 { locator.removeLast() }
        guard errors == locator.count - 1, errors <= maximumErrors, 2 * errors <= eccCount else { return nil }

        // Chien search: position i (degree n-1-i) is wrong where Λ(α^-(n-1-i)) = 0.
        var positions: [Int] = []
        for index in 0..<n where evaluate(locator, at: alpha(-(n - 1 - index))) == 0 { positions.append(index) }
        guard positions.count == errors else { return nil }

        // Forney: e = X · Ω(X⁻¹) / Λ'(X⁻¹), with Ω = S·Λ mod x^eccCount (first root α⁰).
        var evaluator = [UInt8](repeating: 0, count: eccCount)
        for (i, s) in syndrome.enumerated() {
            for (j, l) in locator.enumerated() where i + j < eccCount { evaluator[i + j] ^= multiply(s, l) }
        }
        // The formal derivative keeps the odd powers (2 = 0 in this field).
        var derivative = [UInt8](repeating: 0, count: max(1, locator.count - 1))
        for index in stride(from: 1, to: locator.count, by: 2) { derivative[index - 1] = locator[index] }
        for index in positions {
            let x = alpha(n - 1 - index)
            let inverse = alpha(-(n - 1 - index))
            let denominator = evaluate(derivative, at: inverse)
            guard denominator != 0 else { return nil }
            block[index] ^= multiply(x, divide(evaluate(evaluator, at: inverse), denominator))
        }
        guard !syndromes().contains(where: { $0 != 0 }) else { return nil }
        return errors
    }
}
