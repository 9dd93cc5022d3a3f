/// A point in image coordinates (pixels, origin top left).
public struct Point: Sendable, Hashable, Codable {
    /// Pixels from the left edge.
    public var x: Int
    /// Pixels from the top edge.
    public var y: Int
    /// A point at `x` pixels from the left and `y` from the top.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// One code found in an image.
public struct ScannedSymbol: Sendable, Hashable {
    /// What kind of code it is.
    public var symbology: Symbology
    /// The payload bytes as the code carries them: raw for QR byte-mode data without an ECI
    /// designator, UTF-8 where the code declares an ECI character set; ASCII for linear codes.
    public var bytes: [UInt8]
    /// The payload as text: ``bytes`` decoded as UTF-8 when valid, else by the character-set rules
    /// QR readers apply (Shift_JIS, ISO-8859-1); see ``PayloadText``.
    public var text: String
    /// Four corners, clockwise from the code's top left. For linear codes: the bounding box of the
    /// scan lines that read it.
    public var corners: [Point]

    /// A symbol from its parts; nothing is checked.
    public init(symbology: Symbology, bytes: [UInt8], text: String, corners: [Point]) {
        self.symbology = symbology
        self.bytes = bytes
        self.text = text
        self.corners = corners
    }

    /// The smallest upright rectangle holding ``corners``: (minX, minY, maxX, maxY).
    var bounds: (minX: Int, minY: Int, maxX: Int, maxY: Int) {
        let xs = corners.map(\.x)
        let ys = corners.map(\.y)
        return (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
    }
}
