import ImagingCore

/// Sums over a set of values: enough for count, mean, variance and mean absolute value.
/// Integer sums are exact, so SIMD and scalar reductions agree to the bit.
public struct Moments: Sendable, Equatable {
    public var count: Int64 = 0
    public var sum: Int64 = 0
    public var sumOfSquares: Int64 = 0
    public var sumOfAbsolutes: Int64 = 0

    public init() {}

    public init(count: Int64, sum: Int64, sumOfSquares: Int64, sumOfAbsolutes: Int64) {
        self.count = count
        self.sum = sum
        self.sumOfSquares = sumOfSquares
        self.sumOfAbsolutes = sumOfAbsolutes
    }

    public var mean: Double { count > 0 ? Double(sum) / Double(count) : 0 }

    /// Population variance.
    public var variance: Double {
        guard count > 0 else { return 0 }
        let m = mean
        return max(0, Double(sumOfSquares) / Double(count) - m * m)
    }

    public var standardDeviation: Double { variance.squareRoot() }

    public var meanAbsolute: Double { count > 0 ? Double(sumOfAbsolutes) / Double(count) : 0 }

    public static func + (a: Moments, b: Moments) -> Moments {
        Moments(
            count: a.count + b.count, sum: a.sum + b.sum, sumOfSquares: a.sumOfSquares + b.sumOfSquares,
            sumOfAbsolutes: a.sumOfAbsolutes + b.sumOfAbsolutes)
    }
}

/// Per-tile moments over a plane cut into `tileSize`-pixel squares (the last row and
/// column of tiles may be smaller).
public struct TileGrid: Sendable, Equatable {
    public let tileSize: Int
    public let columns: Int
    public let rows: Int
    public var tiles: [Moments]

    public init(size: ImageSize, tileSize: Int) {
        precondition(tileSize > 0)
        self.tileSize = tileSize
        columns = max(1, (size.width + tileSize - 1) / tileSize)
        rows = max(1, (size.height + tileSize - 1) / tileSize)
        tiles = Array(repeating: Moments(), count: columns * rows)
    }

    public subscript(column: Int, row: Int) -> Moments {
        get { tiles[row * columns + column] }
        set { tiles[row * columns + column] = newValue }
    }

    /// All tiles together.
    public var total: Moments { tiles.reduce(Moments(), +) }
}

/// Accumulates one row of Int16 values into the tiles of `tileRow`, the values
/// standing at columns `firstColumn ..< firstColumn + count` of the plane.
@inline(__always)
func accumulate(
    _ values: UnsafePointer<Int16>, count: Int, firstColumn: Int, into grid: inout TileGrid, tileRow: Int,
    implementation: KernelImplementation
) {
    var start = 0
    while start < count {
        let column = (firstColumn + start) / grid.tileSize
        let end = min(count, (column + 1) * grid.tileSize - firstColumn)
        let moments: Moments
        switch implementation {
        case .scalar: moments = scalarMoments(values + start, count: end - start)
        case .simd: moments = simdMoments(values + start, count: end - start)
        }
        grid[column, tileRow] = grid[column, tileRow] + moments
        start = end
    }
}

@inline(__always)
func scalarMoments(_ values: UnsafePointer<Int16>, count: Int) -> Moments {
    var sum: Int64 = 0, squares: Int64 = 0, absolutes: Int64 = 0
    for i in 0..<count {
        let v = Int64(values[i])
        sum += v
        squares += v * v
        absolutes += abs(v)
    }
    return Moments(count: Int64(count), sum: sum, sumOfSquares: squares, sumOfAbsolutes: absolutes)
}

@inline(__always)
func simdMoments(_ values: UnsafePointer<Int16>, count: Int) -> Moments {
    // Lanes of Int32: |v| ≤ 4080, v² ≤ 16.6 M; flushed to Int64 every 64 vectors (≤ 1.07 G per lane).
    var sum: Int64 = 0, squares: Int64 = 0, absolutes: Int64 = 0
    var i = 0
    let raw = UnsafeRawPointer(values)
    while i + 8 <= count {
        var s = SIMD8<Int32>(), q = SIMD8<Int32>(), a = SIMD8<Int32>()
        var blocks = 0
        while i + 8 <= count && blocks < 64 {
            let v = SIMD8<Int32>(widening: raw.loadUnaligned(fromByteOffset: i * 2, as: SIMD8<Int16>.self))
            s &+= v
            q &+= v &* v
            a &+= v.magnitudes
            i += 8
            blocks += 1
        }
        sum += Int64(s.wrappedSum())
        squares += Int64(q[0]) + Int64(q[1]) + Int64(q[2]) + Int64(q[3]) + Int64(q[4]) + Int64(q[5]) + Int64(q[6]) + Int64(q[7])
        absolutes += Int64(a.wrappedSum())
    }
    let tail = scalarMoments(values + i, count: count - i)
    return Moments(count: Int64(count), sum: sum + tail.sum, sumOfSquares: squares + tail.sumOfSquares, sumOfAbsolutes: absolutes + tail.sumOfAbsolutes)
}
