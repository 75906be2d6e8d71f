import ImagingCore

/// Box-filter downscaling by an integer factor: each output pixel is the rounded
/// mean of a `factor × factor` block (partial blocks at the right and bottom edges
/// average the pixels they have). Area averaging is what a sensor of bigger pixels
/// would have seen, so statistics measured after it compare across resolutions.
public enum AreaDownscale {
    /// The downscaled plane, `ceil(width / factor) × ceil(height / factor)`.
    /// `factor` 1 returns the plane unchanged; `factor` must be at most 16.
    ///
    /// Complexity: O(width × height); memory: one row of UInt16 column sums.
    public static func downscale(
        _ plane: PixelBuffer<UInt8>, by factor: Int, implementation: KernelImplementation = .current
    ) -> PixelBuffer<UInt8> {
        precondition(factor >= 1 && factor <= 16, "factor must be in 1...16")
        if factor == 1 { return plane }
        let width = plane.width, height = plane.height, stride = plane.rowStride
        let outWidth = (width + factor - 1) / factor, outHeight = (height + factor - 1) / factor
        var out = PixelBuffer<UInt8>(width: outWidth, height: outHeight)
        var columnSums = [UInt16](repeating: 0, count: width)
        plane.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { destination in
                columnSums.withUnsafeMutableBufferPointer { sums in
                    for oy in 0..<outHeight {
                        let y0 = oy * factor, rows = min(factor, height - y0)
                        // Vertical sums of `rows` rows: ≤ 16 × 255, fits UInt16.
                        switch implementation {
                        case .scalar:
                            for x in 0..<width {
                                var total: UInt16 = 0
                                for r in 0..<rows { total += UInt16(pixels[(y0 + r) * stride + x]) }
                                sums[x] = total
                            }
                        case .simd:
                            var x = 0
                            while x + 16 <= width {
                                var total = SIMD16<UInt16>()
                                for r in 0..<rows {
                                    let p = UnsafeRawPointer(pixels.baseAddress! + (y0 + r) * stride + x)
                                    total &+= SIMD16<UInt16>(truncatingIfNeeded: p.loadUnaligned(as: SIMD16<UInt8>.self))
                                }
                                UnsafeMutableRawPointer(sums.baseAddress! + x).storeBytes(of: total, as: SIMD16<UInt16>.self)
                                x += 16
                            }
                            while x < width {
                                var total: UInt16 = 0
                                for r in 0..<rows { total += UInt16(pixels[(y0 + r) * stride + x]) }
                                sums[x] = total
                                x += 1
                            }
                        }
                        for ox in 0..<outWidth {
                            let x0 = ox * factor, columns = min(factor, width - x0)
                            var total = 0
                            for c in 0..<columns { total += Int(sums[x0 + c]) }
                            let count = columns * rows
                            destination[oy * outWidth + ox] = UInt8((total + count / 2) / count)
                        }
                    }
                }
            }
        }
        return out
    }

    /// The largest factor (≤ 16) that keeps the longer side at least `longSide` pixels.
    public static func factor(for size: ImageSize, keepingLongSide longSide: Int) -> Int {
        let long = max(size.width, size.height)
        return max(1, min(16, long / max(1, longSide)))
    }
}
