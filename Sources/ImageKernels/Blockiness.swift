import ImagingCore

/// How much more an 8-bit plane steps across a block grid than beside it: the blocking a
/// JPEG compressed too hard leaves at every 8th pixel (at every 4th when it was decoded at
/// half size).
///
/// Per direction, the mean absolute step between neighbours is taken at each phase of the
/// grid (the step after column 0, 1, …, period − 1, counted from the plane's first column);
/// the grid's phase is the one whose mean is highest, so no offset, crop or mirroring needs
/// to be known. A direction's blockiness is that mean over the mean of the other phases,
/// minus 1; the measure is the mean of the two directions. Noise and texture step alike at
/// every phase (near 0); a blocky JPEG steps more at its grid (0.2 to 1 and more; at most
/// `maximum`).
public enum Blockiness {
    /// The blockiness of `plane` for a grid of `period` pixels (2…8); 0 for a plane under two
    /// periods in either direction, or with no step at all.
    public static func measure(_ plane: PixelBuffer<UInt8>, period: Int) -> Double {
        precondition(plane.channels == 1 && (2...8).contains(period), "blockiness needs one channel and a period of 2 to 8")
        let width = plane.width, height = plane.height, stride = plane.rowStride
        guard width >= 2 * period + 1, height >= 2 * period + 1 else { return 0 }
        // Steps after columns 0…8k−1 of every row (8 phases of a period-8 lane layout, folded
        // to `period` phases at the end), and after each row, by the row's phase.
        var across = [Int64](repeating: 0, count: 8), down = [Int64](repeating: 0, count: period)
        var acrossCount = [Int64](repeating: 0, count: 8)
        let vectors = (width - 1) / 8
        plane.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress!
            for y in 0..<height {
                let row = base + y * stride
                var sums = SIMD8<Int32>()
                for v in 0..<vectors {
                    let a = SIMD8<Int32>(widening: UnsafeRawPointer(row + 8 * v).loadUnaligned(as: SIMD8<UInt8>.self))
                    let b = SIMD8<Int32>(widening: UnsafeRawPointer(row + 8 * v + 1).loadUnaligned(as: SIMD8<UInt8>.self))
                    sums &+= (a &- b).magnitudes
                }
                for lane in 0..<8 {
                    across[lane] += Int64(sums[lane])
                    acrossCount[lane] += Int64(vectors)
                }
                guard y + 1 < height else { continue }
                let below = row + stride
                var rowSum = SIMD8<Int32>()
                var x = 0
                while x + 8 <= width {
                    let a = SIMD8<Int32>(widening: UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<UInt8>.self))
                    let b = SIMD8<Int32>(widening: UnsafeRawPointer(below + x).loadUnaligned(as: SIMD8<UInt8>.self))
                    rowSum &+= (a &- b).magnitudes
                    x += 8
                }
                var total = Int64(rowSum.wrappedSum())
                while x < width {
                    total += Int64(abs(Int(row[x]) - Int(below[x])))
                    x += 1
                }
                down[y % period] += total
            }
        }
        var acrossPhases = [Double](repeating: 0, count: period), acrossCounts = [Double](repeating: 0, count: period)
        for lane in 0..<8 {
            acrossPhases[lane % period] += Double(across[lane])
            acrossCounts[lane % period] += Double(acrossCount[lane])
        }
        var downCounts = [Double](repeating: 0, count: period)
        for y in 0..<(height - 1) { downCounts[y % period] += Double(width) }
        let horizontal = contrast(zip(acrossPhases, acrossCounts).map { $1 > 0 ? $0 / $1 : 0 })
        let vertical = contrast(zip(down.map(Double.init), downCounts).map { $1 > 0 ? $0 / $1 : 0 })
        return (horizontal + vertical) / 2
    }

    /// The most a direction's blockiness can be: a plane that steps only at its grid (flat
    /// blocks, no texture) would otherwise measure without bound.
    public static let maximum = 100.0

    /// The highest phase mean over the mean of the others, minus 1 (0 when they are all 0),
    /// at most `maximum`.
    static func contrast(_ means: [Double]) -> Double {
        guard let peak = means.indices.max(by: { means[$0] < means[$1] }) else { return 0 }
        let others = means.indices.filter { $0 != peak }.map { means[$0] }
        let rest = others.reduce(0, +) / Double(others.count)
        guard means[peak] > 0 else { return 0 }
        return rest > 0 ? min(maximum, means[peak] / rest - 1) : maximum
    }
}
