/// Rendering a ``QRMatrix`` for people and scanners. `margin` is the quiet zone in modules (the
/// standard asks for 4); `scale` is pixels per module (scanners read 1 px/module badly: use 2+).
extension QRMatrix {
    /// The smallest scale the renderers accept.
    public static let minimumScale = 2

    /// A gray bitmap: black modules on white.
    ///
    /// - Throws: ``ImagingError`` (`invalidOption`) for a scale below 2, a negative margin, or an
    ///   image over 100 megapixels.
    public func grayImage(scale: Int, margin: Int) throws -> GrayImage {
        try Self.check(scale: scale, margin: margin)
        let modulesPerSide = size + 2 * margin
        let side = modulesPerSide * scale
        guard side <= 10_000 else {
            throw ImagingError(
                .invalidOption, source: "scale",
                "\(scale) px per module makes a \(side)×\(side) image; use a smaller scale")
        }
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                let left = (x + margin) * scale
                let top = (y + margin) * scale
                for row in top..<top + scale {
                    pixels.replaceSubrange(
                        row * side + left..<row * side + left + scale, with: repeatElement(0, count: scale))
                }
            }
        }
        return GrayImage(unchecked: side, side, pixels)
    }

    /// A PNG file: 1-bit gray (black and white, as qrencode writes), a fraction of the size and the
    /// time of an 8-bit image.
    public func png(scale: Int, margin: Int) throws -> [UInt8] {
        try Self.check(scale: scale, margin: margin)
        let side = (size + 2 * margin) * scale
        guard side <= 10_000 else {
            throw ImagingError(
                .invalidOption, source: "scale",
                "\(scale) px per module makes a \(side)×\(side) image; use a smaller scale")
        }
        // Each row: a filter byte, then 1 bit per pixel, 1 = white.
        let rowBytes = 1 + (side + 7) / 8
        var raw = [UInt8](repeating: 0, count: rowBytes * side)
        var row = [UInt8](repeating: 0xFF, count: rowBytes)
        for moduleRow in 0..<(size + 2 * margin) {
            row.withUnsafeMutableBufferPointer { bits in
                for index in 1..<rowBytes { bits[index] = 0xFF }
                bits[0] = 0
                let y = moduleRow - margin
                guard y >= 0 && y < size else { return }
                for x in 0..<size where self[x, y] {
                    for pixel in (x + margin) * scale..<(x + margin + 1) * scale {
                        bits[1 + pixel >> 3] &= ~(0x80 >> UInt8(pixel & 7))
                    }
                }
            }
            // The first pixel row of a module row as it is; the repeats as PNG "Up" filter rows
            // (filter byte 2, all zero: "same as above"), which zlib compresses to almost nothing.
            let first = moduleRow * scale
            raw.replaceSubrange(first * rowBytes..<(first + 1) * rowBytes, with: row)
            for line in first + 1..<first + scale { raw[line * rowBytes] = 2 }
        }
        return try PNGCodec.encodeBilevel(width: side, height: side, rows: raw)
    }

    /// An SVG document: one path of unit squares in a viewBox of modules, drawn `scale` px per module.
    public func svg(scale: Int, margin: Int) throws -> String {
        try Self.check(scale: scale, margin: margin)
        let side = size + 2 * margin
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < size && self[x, y] { x += 1 }
                path += "M\(start + margin) \(y + margin)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side * scale)" height="\(side * scale)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#fff"/>
            <path fill="#000" d="\(path)"/>
            </svg>

            """
    }

    /// Plain text: two characters per module, `##` dark and two spaces light, one line per row
    /// (the layout of `qrencode -t ASCII`).
    public func text(margin: Int) throws -> String {
        try Self.check(scale: Self.minimumScale, margin: margin)
        var lines: [String] = []
        for y in -margin..<size + margin {
            var line = ""
            for x in -margin..<size + margin { line += self[x, y] ? "##" : "  " }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Unicode half blocks, two module rows per line, for showing a code in a terminal.
    ///
    /// Terminals are mostly light text on a dark background, so by default the *light* modules
    /// are drawn (as blocks) and dark modules are the terminal's background; `darkOnLight` draws
    /// the dark modules instead, for light-background terminals.
    public func terminal(margin: Int, darkOnLight: Bool = false) throws -> String {
        try Self.check(scale: Self.minimumScale, margin: margin)
        func drawn(_ x: Int, _ y: Int) -> Bool {
            guard y < size + margin else { return false }  // below the last row: background
            return self[x, y] == darkOnLight
        }
        var lines: [String] = []
        var y = -margin
        while y < size + margin {
            var line = ""
            for x in -margin..<size + margin {
                switch (drawn(x, y), drawn(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func check(scale: Int, margin: Int) throws {
        guard scale >= minimumScale else {
            throw ImagingError(
                .invalidOption, source: "scale",
                "\(scale) px per module is too small; scanners need at least \(minimumScale)")
        }
        guard (0...100).contains(margin) else {
            throw ImagingError(
                .invalidOption, source: "margin",
                "\(margin) modules is out of range (0–100; the standard asks for 4)")
        }
    }
}
