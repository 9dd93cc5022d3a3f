/// Where the modules of a QR symbol lie in an image: a projective map from module coordinates
/// (0…size on each axis, the symbol's top left at 0, 0) to pixels, fixed by the centres of the
/// three finder patterns and a fourth point (the bottom right alignment pattern, or the corner
/// that makes a parallelogram of the three).
struct QRGrid {
    let size: Int
    /// (x, y, w) = matrix · (u, v, 1), rows first.
    private let matrix: [Double]
    /// Pixel offsets added to the projective map at the points of a `lattice`×`lattice` mesh
    /// over the symbol, interpolated between them: a bent or curved symbol (a label on a
    /// bottle, a code on cloth) is not one projective plane.
    var offsets: [(x: Double, y: Double)] = []
    static let lattice = 4

    /// The grid of a `size`-module symbol whose finders are `triangle`; `fourth` is the pixel
    /// centre of module (`fourthModule`, `fourthModule`), or `nil` for the parallelogram.
    init?(
        _ triangle: CodeEvidence.FinderTriangle, size: Int, fourth: (x: Double, y: Double)? = nil,
        fourthModule: Double = 0
    ) {
        let near = 3.5
        let far = Double(size) - 3.5
        let (tl, tr, bl) = (triangle.topLeft, triangle.topRight, triangle.bottomLeft)
        let corner = fourth ?? (tr.x + bl.x - tl.x, tr.y + bl.y - tl.y)
        let cornerModule = fourth == nil ? far : fourthModule
        let modules = [(near, near), (far, near), (cornerModule, cornerModule), (near, far)]
        let pixels = [(tl.x, tl.y), (tr.x, tr.y), corner, (bl.x, bl.y)]
        guard let fromModules = Self.squareToQuad(modules).flatMap(Self.inverse) else { return nil }
        self.size = size
        matrix = Self.multiply(Self.squareToQuad(pixels) ?? [], fromModules)
        guard matrix.count == 9 else { return nil }
    }

    /// The versions to try for a symbol with these finders, the likeliest first: the finder
    /// centres are 7 modules less than the symbol's size apart, and the module size the finder
    /// runs give is off by a little in a blurred photo, hence the neighbours too.
    static func versions(around triangle: CodeEvidence.FinderTriangle) -> [Int] {
        let module = (triangle.topLeft.module + triangle.topRight.module + triangle.bottomLeft.module) / 3
        let size = triangle.arm / module + 7
        let version = Int(((size - 21) / 4).rounded()) + 1
        return [version, version + 1, version - 1]
    }

    /// The pixel at module coordinates (u, v); module (c, r) has its centre at (c + 0.5, r + 0.5).
    func pixel(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        let base = projected(u, v)
        guard !offsets.isEmpty else { return base }
        return displaced(base, by: meshPosition(u, v))
    }

    /// (u, v) through the projective map alone, without the mesh offsets.
    func projected(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        let w = matrix[6] * u + matrix[7] * v + matrix[8]
        return ((matrix[0] * u + matrix[1] * v + matrix[2]) / w, (matrix[3] * u + matrix[4] * v + matrix[5]) / w)
    }

    /// Where (u, v) lies in the mesh: the cell (`i`, `j`) whose corners are mesh points (i, j) to
    /// (i + 1, j + 1), and the fractions across it.
    struct MeshPosition {
        var i, j: Int
        var fu, fv: Double
    }

    func meshPosition(_ u: Double, _ v: Double) -> MeshPosition {
        let cells = Double(Self.lattice - 1)
        let side = Double(size)
        let gu = max(0, min(cells, u / side * cells))
        let gv = max(0, min(cells, v / side * cells))
        let i = min(Self.lattice - 2, Int(gu))
        let j = min(Self.lattice - 2, Int(gv))
        return MeshPosition(i: i, j: j, fu: gu - Double(i), fv: gv - Double(j))
    }

    /// `base` moved by the mesh offsets, bilinear between the four mesh points around `position`.
    func displaced(_ base: (x: Double, y: Double), by position: MeshPosition) -> (x: Double, y: Double) {
        let (i, j, fu, fv) = (position.i, position.j, position.fu, position.fv)
        func offset(_ a: Int, _ b: Int) -> (x: Double, y: Double) { offsets[b * Self.lattice + a] }
        let (o00, o10, o01, o11) = (offset(i, j), offset(i + 1, j), offset(i, j + 1), offset(i + 1, j + 1))
        let dx = (o00.x * (1 - fu) + o10.x * fu) * (1 - fv) + (o01.x * (1 - fu) + o11.x * fu) * fv
        let dy = (o00.y * (1 - fu) + o10.y * fu) * (1 - fv) + (o01.y * (1 - fu) + o11.y * fu) * fv
        return (base.x + dx, base.y + dy)
    }

    /// The symbol's corners in the image, clockwise from its top left.
    var corners: [Point] {
        let s = Double(size)
        return [pixel(0, 0), pixel(s, 0), pixel(s, s), pixel(0, s)].map {
            Point(x: Int($0.x.rounded()), y: Int($0.y.rounded()))
        }
    }

    /// Each module's gray value at its centre (bilinear), rows first; `nil` when the symbol runs
    /// off the image.
    func sample(_ image: GrayImage) -> [Double]? {
        var values = [Double](repeating: 0, count: size * size)
        for row in 0..<size {
            for column in 0..<size {
                guard let value = image.interpolated(at: pixel(Double(column) + 0.5, Double(row) + 0.5)) else {
                    return nil
                }
                values[row * size + column] = value
            }
        }
        return values
    }

    /// The modules' centres through the projective map and their places in the mesh, worked out
    /// once for a search that moves only the mesh offsets (``QRResampler/bent(_:_:module:)``).
    struct ModuleField {
        let bases: [(x: Double, y: Double)]
        let positions: [MeshPosition]
        /// The modules of each mesh cell, cells rows first.
        let cells: [[Int]]

        init(_ grid: QRGrid) {
            var bases: [(x: Double, y: Double)] = []
            var positions: [MeshPosition] = []
            let cellsPerSide = QRGrid.lattice - 1
            var cells = [[Int]](repeating: [], count: cellsPerSide * cellsPerSide)
            for row in 0..<grid.size {
                for column in 0..<grid.size {
                    let u = Double(column) + 0.5
                    let v = Double(row) + 0.5
                    let position = grid.meshPosition(u, v)
                    bases.append(grid.projected(u, v))
                    positions.append(position)
                    cells[position.j * cellsPerSide + position.i].append(row * grid.size + column)
                }
            }
            (self.bases, self.positions, self.cells) = (bases, positions, cells)
        }

        /// The modules whose place depends on mesh point `index` (those of the cells it is a corner of).
        func modules(movedBy index: Int) -> [Int] {
            let (b, a) = index.quotientAndRemainder(dividingBy: QRGrid.lattice)
            let cellsPerSide = QRGrid.lattice - 1
            var modules: [Int] = []
            for j in max(0, b - 1)...min(cellsPerSide - 1, b) {
                for i in max(0, a - 1)...min(cellsPerSide - 1, a) { modules += cells[j * cellsPerSide + i] }
            }
            return modules
        }

        /// Samples `modules` of `grid` (this field's grid with its offsets) into `values`, exactly
        /// as ``QRGrid/sample(_:)`` does; `false` when one runs off the image.
        func sample(_ image: GrayImage, _ grid: QRGrid, modules: some Sequence<Int>, into values: inout [Double])
            -> Bool
        {
            for index in modules {
                guard let value = image.interpolated(at: grid.displaced(bases[index], by: positions[index])) else {
                    return false
                }
                values[index] = value
            }
            return true
        }
    }

    /// The projective map taking the unit square's corners (0,0), (1,0), (1,1), (0,1) to `quad`.
    private static func squareToQuad(_ quad: [(Double, Double)]) -> [Double]? {
        let (x0, y0) = quad[0]
        let (x1, y1) = quad[1]
        let (x2, y2) = quad[2]
        let (x3, y3) = quad[3]
        let dx3 = x0 - x1 + x2 - x3
        let dy3 = y0 - y1 + y2 - y3
        if abs(dx3) < 1e-9 && abs(dy3) < 1e-9 {
            return [x1 - x0, x3 - x0, x0, y1 - y0, y3 - y0, y0, 0, 0, 1]
        }
        let dx1 = x1 - x2
        let dx2 = x3 - x2
        let dy1 = y1 - y2
        let dy2 = y3 - y2
        let denominator = dx1 * dy2 - dx2 * dy1
        guard abs(denominator) > 1e-12 else { return nil }
        let g = (dx3 * dy2 - dx2 * dy3) / denominator
        let h = (dx1 * dy3 - dx3 * dy1) / denominator
        return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1]
    }

    private static func inverse(_ m: [Double]) -> [Double]? {
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let determinant = m[0] * cofactors[0] + m[1] * cofactors[3] + m[2] * cofactors[6]
        guard abs(determinant) > 1e-12 else { return nil }
        return cofactors.map { $0 / determinant }
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        guard a.count == 9, b.count == 9 else { return [] }
        return (0..<9).map { index in
            let row = index / 3
            let column = index % 3
            return (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }
}

extension GrayImage {
    /// The gray value at a point between pixel centres (pixel (x, y) covers x…x+1), bilinear;
    /// `nil` outside the image.
    func interpolated(at point: (x: Double, y: Double)) -> Double? {
        let x = point.x - 0.5
        let y = point.y - 0.5
        guard x > -1, y > -1, x < Double(width), y < Double(height) else { return nil }
        // Truncation is the floor here: from -1 to 0 both end at column or row 0 once clamped.
        let x0 = max(0, min(width - 1, Int(x)))
        let y0 = max(0, min(height - 1, Int(y)))
        let x1 = min(width - 1, x0 + 1)
        let y1 = min(height - 1, y0 + 1)
        let fx = max(0, min(1, x - Double(x0)))
        let fy = max(0, min(1, y - Double(y0)))
        return pixels.withUnsafeBufferPointer { pixels in
            func at(_ px: Int, _ py: Int) -> Double { Double(pixels[py * width + px]) }
            let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
            let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
            return top * (1 - fy) + bottom * fy
        }
    }
}
