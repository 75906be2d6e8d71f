/// The sum, sum of squares, least and greatest sample of a square block of 8-bit samples:
/// what a JPEG block's DC (its mean) and whether it is textured or clipped are read from.
public struct BlockMoments: Sendable, Equatable {
    public var sum: Int
    public var squares: Int
    public var low: Int
    public var high: Int

    @inlinable
    public init(sum: Int, squares: Int, low: Int, high: Int) {
        (self.sum, self.squares, self.low, self.high) = (sum, squares, low, high)
    }

    /// The moments of the `block` × `block` block whose top-left sample is `origin` in rows
    /// `stride` samples apart. An 8 × 8 block is read a row of eight at a time under `.simd`;
    /// any other size, and every size under `.scalar`, sample by sample. Integer sums: both
    /// give the same answer to the bit.
    @inlinable
    public init(_ pixels: UnsafeBufferPointer<UInt8>, origin: Int, stride: Int, block: Int, implementation: KernelImplementation = .current) {
        precondition(block > 0 && origin >= 0 && origin + (block - 1) * stride + block <= pixels.count, "block outside the buffer")
        if block == 8 && implementation == .simd {
            self = Self.eight(UnsafeRawPointer(pixels.baseAddress!) + origin, stride: stride)
        } else {
            self = Self.scalar(pixels, origin: origin, stride: stride, block: block)
        }
    }

    @inlinable
    static func scalar(_ pixels: UnsafeBufferPointer<UInt8>, origin: Int, stride: Int, block: Int) -> BlockMoments {
        var sum = 0, squares = 0, low = 255, high = 0
        for y in 0..<block {
            let line = origin + y * stride
            for x in 0..<block {
                let v = Int(pixels[line + x])
                sum += v
                squares += v * v
                low = min(low, v)
                high = max(high, v)
            }
        }
        return BlockMoments(sum: sum, squares: squares, low: low, high: high)
    }

    /// Eight rows of eight lanes: sums in 16 bits (at most 8 · 255 per lane), squares in 32.
    @inlinable
    static func eight(_ origin: UnsafeRawPointer, stride: Int) -> BlockMoments {
        var sums = SIMD8<UInt16>(), squares = SIMD8<UInt32>()
        var low = SIMD8<UInt8>(repeating: 255), high = SIMD8<UInt8>()
        for y in 0..<8 {
            let row = origin.loadUnaligned(fromByteOffset: y * stride, as: SIMD8<UInt8>.self)
            let wide = SIMD8<UInt16>(truncatingIfNeeded: row)
            sums &+= wide
            let wider = SIMD8<UInt32>(truncatingIfNeeded: wide)
            squares &+= wider &* wider
            low = pointwiseMin(low, row)
            high = pointwiseMax(high, row)
        }
        return BlockMoments(sum: Int(sums.wrappedSum()), squares: Int(squares.wrappedSum()), low: Int(low.min()), high: Int(high.max()))
    }
}
