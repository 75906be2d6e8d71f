import ImagingCore

/// 3×3 integer stencils evaluated on an 8-bit plane, with per-tile moments of the result.
///
/// Values exist for the interior pixels (x in 1…width−2, y in 1…height−2); each is
/// credited to the tile containing its pixel. Rows are processed one at a time with
/// one row of Int16 scratch: no full-frame copy is made.
public enum Stencil: Sendable, CaseIterable {
    /// The 4-neighbour Laplacian `[0 1 0; 1 −4 1; 0 1 0]`: second derivative, the
    /// classic focus measure. Values lie in −1020…1020.
    case laplacian
    /// Immerkær's noise mask `[1 −2 1; −2 4 −2; 1 −2 1]`, the difference of two
    /// Laplacians: it cancels image structure up to second order and leaves noise.
    /// Noise σ ≈ √(π/2) · mean|value| / 6. Values lie in −4080…4080.
    case noise
    /// Central difference along x, `I(x+1) − I(x−1)`: twice the horizontal gradient.
    case gradientX
    /// Central difference along y, `I(y+1) − I(y−1)`.
    case gradientY
    /// Second difference along x, `I(x−1) − 2I(x) + I(x+1)`.
    case secondX
    /// Second difference along y, `I(y−1) − 2I(y) + I(y+1)`.
    case secondY
    /// Central difference along the main diagonal, `I(x+1, y+1) − I(x−1, y−1)`.
    case gradientDiagonal
    /// Central difference along the anti-diagonal, `I(x−1, y+1) − I(x+1, y−1)`.
    case gradientAntidiagonal
    /// Second difference along the main diagonal, `I(x−1, y−1) − 2I + I(x+1, y+1)`.
    case secondDiagonal
    /// Second difference along the anti-diagonal, `I(x+1, y−1) − 2I + I(x−1, y+1)`.
    case secondAntidiagonal

    /// Evaluates one row: `out[i]` is the stencil at column `i + 1` of `center`.
    /// `above`, `center` and `below` hold `width` samples; `out` receives `width − 2`.
    public func row(
        above: UnsafePointer<UInt8>, center: UnsafePointer<UInt8>, below: UnsafePointer<UInt8>, width: Int,
        into out: UnsafeMutablePointer<Int16>, implementation: KernelImplementation = .current
    ) {
        guard width >= 3 else { return }
        switch implementation {
        case .scalar: scalarRow(above, center, below, width, out)
        case .simd: simdRow(above, center, below, width, out)
        }
    }

    /// The scalar reference.
    @inline(__always)
    func scalarRow(
        _ a: UnsafePointer<UInt8>, _ c: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ width: Int,
        _ out: UnsafeMutablePointer<Int16>
    ) {
        for x in 1..<(width - 1) {
            switch self {
            case .laplacian:
                out[x - 1] = Int16(a[x]) + Int16(b[x]) + Int16(c[x - 1]) + Int16(c[x + 1]) - 4 * Int16(c[x])
            case .noise:
                let outer = Int16(a[x - 1]) + Int16(a[x + 1]) + Int16(b[x - 1]) + Int16(b[x + 1])
                let edges = Int16(a[x]) + Int16(b[x]) + Int16(c[x - 1]) + Int16(c[x + 1])
                out[x - 1] = outer - 2 * edges + 4 * Int16(c[x])
            case .gradientX:
                out[x - 1] = Int16(c[x + 1]) - Int16(c[x - 1])
            case .gradientY:
                out[x - 1] = Int16(b[x]) - Int16(a[x])
            case .secondX:
                out[x - 1] = Int16(c[x - 1]) + Int16(c[x + 1]) - 2 * Int16(c[x])
            case .secondY:
                out[x - 1] = Int16(a[x]) + Int16(b[x]) - 2 * Int16(c[x])
            case .gradientDiagonal:
                out[x - 1] = Int16(b[x + 1]) - Int16(a[x - 1])
            case .gradientAntidiagonal:
                out[x - 1] = Int16(b[x - 1]) - Int16(a[x + 1])
            case .secondDiagonal:
                out[x - 1] = Int16(a[x - 1]) + Int16(b[x + 1]) - 2 * Int16(c[x])
            case .secondAntidiagonal:
                out[x - 1] = Int16(a[x + 1]) + Int16(b[x - 1]) - 2 * Int16(c[x])
            }
        }
    }

    @inline(__always)
    func simdRow(
        _ a: UnsafePointer<UInt8>, _ c: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ width: Int,
        _ out: UnsafeMutablePointer<Int16>
    ) {
        typealias V = SIMD16<Int16>
        @inline(__always) func load(_ p: UnsafePointer<UInt8>, _ x: Int) -> V {
            V(widening: UnsafeRawPointer(p + x).loadUnaligned(as: SIMD16<UInt8>.self))
        }
        let last = width - 1  // exclusive end of the interior
        var x = 1
        while x + 16 + 1 <= width {
            let value: V
            switch self {
            case .laplacian:
                value = load(a, x) &+ load(b, x) &+ load(c, x - 1) &+ load(c, x + 1) &- 4 &* load(c, x)
            case .noise:
                let outer = load(a, x - 1) &+ load(a, x + 1) &+ load(b, x - 1) &+ load(b, x + 1)
                let edges = load(a, x) &+ load(b, x) &+ load(c, x - 1) &+ load(c, x + 1)
                value = outer &- 2 &* edges &+ 4 &* load(c, x)
            case .gradientX:
                value = load(c, x + 1) &- load(c, x - 1)
            case .gradientY:
                value = load(b, x) &- load(a, x)
            case .secondX:
                value = load(c, x - 1) &+ load(c, x + 1) &- 2 &* load(c, x)
            case .secondY:
                value = load(a, x) &+ load(b, x) &- 2 &* load(c, x)
            case .gradientDiagonal:
                value = load(b, x + 1) &- load(a, x - 1)
            case .gradientAntidiagonal:
                value = load(b, x - 1) &- load(a, x + 1)
            case .secondDiagonal:
                value = load(a, x - 1) &+ load(b, x + 1) &- 2 &* load(c, x)
            case .secondAntidiagonal:
                value = load(a, x + 1) &+ load(b, x - 1) &- 2 &* load(c, x)
            }
            UnsafeMutableRawPointer(out + (x - 1)).storeBytes(of: value, as: V.self)
            x += 16
        }
        if x < last {
            // The remainder, by the scalar reference on a window starting one column earlier.
            scalarRow(a + (x - 1), c + (x - 1), b + (x - 1), last - x + 2, out + (x - 1))
        }
    }

    /// Per-tile moments of the stencil over `plane`.
    ///
    /// Complexity: O(width × height); memory: one row of Int16.
    public func tileMoments(
        _ plane: PixelBuffer<UInt8>, tileSize: Int, implementation: KernelImplementation = .current
    ) -> TileGrid {
        var grid = TileGrid(size: plane.size, tileSize: tileSize)
        let width = plane.width, height = plane.height, stride = plane.rowStride
        guard width >= 3, height >= 3 else { return grid }
        var scratch = [Int16](repeating: 0, count: width - 2)
        plane.withUnsafeBufferPointer { pixels in
            scratch.withUnsafeMutableBufferPointer { row in
                let base = pixels.baseAddress!
                for y in 1..<(height - 1) {
                    self.row(
                        above: base + (y - 1) * stride, center: base + y * stride, below: base + (y + 1) * stride,
                        width: width, into: row.baseAddress!, implementation: implementation)
                    accumulate(
                        row.baseAddress!, count: width - 2, firstColumn: 1, into: &grid, tileRow: y / tileSize,
                        implementation: implementation)
                }
            }
        }
        return grid
    }
}

/// Per-tile moments of the plane's own values (brightness and contrast per tile).
public func planeTileMoments(
    _ plane: PixelBuffer<UInt8>, tileSize: Int, implementation: KernelImplementation = .current
) -> TileGrid {
    var grid = TileGrid(size: plane.size, tileSize: tileSize)
    let width = plane.width, stride = plane.rowStride
    guard width > 0 else { return grid }
    var scratch = [Int16](repeating: 0, count: width)
    plane.withUnsafeBufferPointer { pixels in
        scratch.withUnsafeMutableBufferPointer { row in
            for y in 0..<plane.height {
                let source = pixels.baseAddress! + y * stride
                for x in 0..<width { row[x] = Int16(source[x]) }
                accumulate(
                    row.baseAddress!, count: width, firstColumn: 0, into: &grid, tileRow: y / tileSize,
                    implementation: implementation)
            }
        }
    }
    return grid
}
