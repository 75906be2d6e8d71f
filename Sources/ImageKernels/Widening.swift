/// Lane widening the compiler keeps inline.
///
/// `SIMD8<Int32>(truncatingIfNeeded: SIMD8<UInt8>)` and its 16-lane kin are generic
/// conversions the optimizer specialises but leaves as a call, once per vector: in a kernel
/// that loads a few vectors per eight pixels the calls cost more than the arithmetic. Built
/// from halves, four and eight lanes at a time, the same conversions inline to a zero or sign
/// extension. The values are the same.
extension SIMD8 where Scalar == Int32 {
    /// Eight bytes, each as a 32-bit lane.
    @inlinable @inline(__always)
    public init(widening bytes: SIMD8<UInt8>) {
        self.init(lowHalf: SIMD4<Int32>(truncatingIfNeeded: bytes.lowHalf), highHalf: SIMD4<Int32>(truncatingIfNeeded: bytes.highHalf))
    }

    /// Eight 16-bit lanes, sign-extended to 32 bits.
    @inlinable @inline(__always)
    public init(widening values: SIMD8<Int16>) {
        self.init(lowHalf: SIMD4<Int32>(truncatingIfNeeded: values.lowHalf), highHalf: SIMD4<Int32>(truncatingIfNeeded: values.highHalf))
    }
}

extension SIMD16 where Scalar == Int16 {
    /// Sixteen bytes, each as a 16-bit lane.
    @inlinable @inline(__always)
    public init(widening bytes: SIMD16<UInt8>) {
        self.init(lowHalf: SIMD8<Int16>(truncatingIfNeeded: bytes.lowHalf), highHalf: SIMD8<Int16>(truncatingIfNeeded: bytes.highHalf))
    }
}

extension SIMD8 where Scalar == Int32 {
    /// |v| lane by lane, without a lane mask (Swift lowers SIMD masks and selects lane by
    /// lane): the sign spread over a lane is 0 or −1, and (v ^ sign) − sign = |v|.
    @inlinable @inline(__always)
    public var magnitudes: SIMD8<Int32> {
        let sign = self &>> 31
        return (self ^ sign) &- sign
    }

    /// The lane-wise least of `a` and `b`, without a lane mask (`pointwiseMin` is a generic
    /// call per vector): b + ((a − b) & the sign of a − b). Exact where a − b does not wrap,
    /// as for pixel values and their sums.
    @inlinable @inline(__always)
    public static func minimum(_ a: SIMD8<Int32>, _ b: SIMD8<Int32>) -> SIMD8<Int32> {
        let difference = a &- b
        return b &+ (difference & (difference &>> 31))
    }
}
