import ImagingCore

/// Area resampling to an exact size: each output pixel is the mean of the input
/// area it covers, with fractional pixels at its borders weighted by coverage.
///
/// Downscaling only (the output is never larger than the input in either axis).
/// One output row at a time: one Float row of input width, the weighted sum of the input
/// rows it covers, is all the memory it needs, never a float copy of the input.
public enum AreaResample {
    /// Coverage spans of the output cells along one axis, in flat arrays (one allocation
    /// each, not one per cell).
    struct Spans {
        var first: [Int] = []    // first input index each output cell touches
        var offset: [Int] = []   // where the cell's weights start in `values`
        var count: [Int] = []    // how many input pixels the cell touches
        var values: [Float] = [] // coverage of each touched input pixel, summing to 1 per cell

        init(input: Int, output: Int) {
            let scale = Double(input) / Double(output)
            first.reserveCapacity(output)
            offset.reserveCapacity(output)
            count.reserveCapacity(output)
            for o in 0..<output {
                let start = Double(o) * scale, end = Double(o + 1) * scale
                let i0 = Int(start.rounded(.down)), i1 = min(input, Int(end.rounded(.up)))
                first.append(i0)
                offset.append(values.count)
                count.append(max(0, i1 - i0))
                for i in i0..<i1 {
                    let covered = min(end, Double(i + 1)) - max(start, Double(i))
                    values.append(Float(covered / scale))
                }
            }
        }

        /// The weight of the `k`-th input pixel of cell `o`.
        func weight(_ o: Int, _ k: Int) -> Float { values[offset[o] + k] }
    }

    /// The plane resampled to `size`, rounded to 8 bits.
    /// - Precondition: `size` is positive and no larger than the plane in either axis.
    public static func resize(
        _ plane: PixelBuffer<UInt8>, to size: ImageSize, implementation: KernelImplementation = .current
    ) -> PixelBuffer<UInt8> {
        resample(plane, to: size, implementation: implementation)
    }

    /// Each channel of interleaved samples (RGB, …) resampled to `size`, as `resize(_:to:)` does a plane.
    public static func resize(
        interleaved buffer: PixelBuffer<UInt8>, to size: ImageSize, implementation: KernelImplementation = .current
    ) -> PixelBuffer<UInt8> {
        resample(buffer, to: size, implementation: implementation)
    }

    /// The plane resampled to `size` in the output rows `rows` only, each the same bits as
    /// `resize(_:to:)` gives it; every other row is 0 (a plane of `size` already is returned
    /// as it is). A reader of one region of the resampled plane (a line, a table's cell)
    /// pays for that region's rows, not the page's.
    /// - Precondition: as `resize(_:to:)`; `rows` lies within `size`'s height.
    public static func resize(
        _ plane: PixelBuffer<UInt8>, to size: ImageSize, rows: Range<Int>, implementation: KernelImplementation = .current
    ) -> PixelBuffer<UInt8> {
        precondition(rows.lowerBound >= 0 && rows.upperBound <= size.height)
        return resample(plane, to: size, rows: rows, implementation: implementation)
    }

    /// Resamples every channel of `plane` (one or interleaved): the vertical pass works on
    /// whole interleaved rows, element by element; the horizontal pass per channel, with
    /// the same taps in the same order, so each channel comes out as it would alone.
    /// With `rows`, only those output rows are computed; the others stay 0.
    static func resample(
        _ plane: PixelBuffer<UInt8>, to size: ImageSize, rows: Range<Int>? = nil, implementation: KernelImplementation
    ) -> PixelBuffer<UInt8> {
        precondition(size.width >= 1 && size.height >= 1 && size.width <= plane.width && size.height <= plane.height)
        if size == plane.size { return plane }
        let outRows = rows ?? 0..<size.height
        let channels = plane.channels
        let horizontal = Spans(input: plane.width, output: size.width)
        let vertical = Spans(input: plane.height, output: size.height)
        let outWidth = size.width, width = plane.width, rowLength = width * channels
        // Horizontal weights flattened to `taps` per output pixel (zero-padded) for a tight loop.
        let taps = horizontal.count.max() ?? 1
        var starts = horizontal.first
        var flatWeights = [Float](repeating: 0, count: outWidth * taps)
        for o in 0..<outWidth {
            for k in 0..<horizontal.count[o] { flatWeights[o * taps + k] = horizontal.weight(o, k) }
            // Keep every tap inside the row: shift a span that would run past the end.
            if starts[o] + taps > width {
                let shift = starts[o] + taps - width
                for k in Swift.stride(from: taps - 1, through: shift, by: -1) { flatWeights[o * taps + k] = flatWeights[o * taps + k - shift] }
                for k in 0..<shift { flatWeights[o * taps + k] = 0 }
                starts[o] -= shift
            }
        }
        // The SIMD path's tables, per output sample (pixel × channel) of a row: where its
        // first tap reads in the accumulator row, and its tap weights, planar (tap k of
        // sample j at k × samples + j), so eight samples are computed at once.
        let samples = outWidth * channels
        let vectorised = implementation == .simd && (taps == 2 || taps == 3)
        var sampleIndex = [Int32](), sampleWeights = [Float]()
        if vectorised {
            sampleIndex.reserveCapacity(samples)
            sampleWeights = [Float](repeating: 0, count: taps * samples)
            for o in 0..<outWidth {
                for c in 0..<channels {
                    let j = o * channels + c
                    sampleIndex.append(Int32(starts[o] * channels + c))
                    for k in 0..<taps { sampleWeights[k * samples + j] = flatWeights[o * taps + k] }
                }
            }
        }
        // Vertical pass first, one output row at a time: the weighted sum of the input rows it
        // covers, in their order, into one float row of input width (the only float memory
        // used); then that row is resampled horizontally and rounded.
        var accumulator = [Float](repeating: 0, count: rowLength)
        // The finished output row in floats, before rounding.
        var totals = [Float](repeating: 0, count: outWidth * channels)
        var out = PixelBuffer<UInt8>(width: size.width, height: size.height, channels: channels)
        let stride = plane.rowStride
        plane.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { destination in
                accumulator.withUnsafeMutableBufferPointer { row in
                    flatWeights.withUnsafeBufferPointer { weights in
                        starts.withUnsafeBufferPointer { first in
                            vertical.values.withUnsafeBufferPointer { verticalWeights in
                                for outRow in outRows {
                                    weightedRows(
                                        pixels.baseAddress! + vertical.first[outRow] * stride, stride: stride,
                                        weights: verticalWeights.baseAddress! + vertical.offset[outRow], count: vertical.count[outRow],
                                        into: row.baseAddress!, length: rowLength, implementation)
                                    let target = destination.baseAddress! + outRow * outWidth * channels
                                    totals.withUnsafeMutableBufferPointer { totals in
                                        if vectorised {
                                            sampleIndex.withUnsafeBufferPointer { index in
                                                sampleWeights.withUnsafeBufferPointer { planar in
                                                    resampleRow(
                                                        row.baseAddress!, into: totals.baseAddress!, samples: samples, channels: channels,
                                                        taps: taps, index: index.baseAddress!, weights: planar.baseAddress!)
                                                }
                                            }
                                        } else {
                                            resampleRow(
                                                row.baseAddress!, into: totals.baseAddress!, count: outWidth, channels: channels, taps: taps,
                                                weights: weights.baseAddress!, first: first.baseAddress!)
                                        }
                                        round(totals.baseAddress!, into: target, count: outWidth * channels, implementation)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// One output row from a finished accumulator row: each output sample is the sum, in tap
    /// order, of its taps' weights times the samples they cover. The usual tap counts are
    /// written out (same order, same bits) so the loop runs without an inner loop.
    @inline(__always)
    static func resampleRow(
        _ accumulator: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>, count: Int, channels: Int,
        taps: Int, weights: UnsafePointer<Float>, first: UnsafePointer<Int>
    ) {
        switch taps {
        case 2:
            for ox in 0..<count {
                let w = weights + ox * 2
                for c in 0..<channels {
                    let s = accumulator + first[ox] * channels + c
                    target[ox * channels + c] = w[0] * s[0] + w[1] * s[channels]
                }
            }
        case 3:
            for ox in 0..<count {
                let w = weights + ox * 3
                for c in 0..<channels {
                    let s = accumulator + first[ox] * channels + c
                    target[ox * channels + c] = w[0] * s[0] + w[1] * s[channels] + w[2] * s[2 * channels]
                }
            }
        default:
            for ox in 0..<count {
                let w = weights + ox * taps
                for c in 0..<channels {
                    var total: Float = 0
                    let s = accumulator + first[ox] * channels + c
                    for k in 0..<taps { total += w[k] * s[k * channels] }
                    target[ox * channels + c] = total
                }
            }
        }
    }

    /// `resampleRow(_:into:count:channels:taps:weights:first:)` for two or three taps, eight
    /// output samples at a time: the taps gathered into vectors, then the same products
    /// summed in the same order, so every sample has the same bits as the scalar loop's.
    @inline(__always)
    static func resampleRow(
        _ accumulator: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>, samples: Int, channels: Int,
        taps: Int, index: UnsafePointer<Int32>, weights: UnsafePointer<Float>
    ) {
        let w0 = weights, w1 = weights + samples, w2 = weights + 2 * samples
        let step = channels, step2 = 2 * channels
        var j = 0
        if taps == 3 {
            while j + 8 <= samples {
                var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>()
                for lane in 0..<8 {
                    let s = accumulator + Int(index[j + lane])
                    s0[lane] = s[0]
                    s1[lane] = s[step]
                    s2[lane] = s[step2]
                }
                let total = load(w0 + j) * s0 + load(w1 + j) * s1 + load(w2 + j) * s2
                UnsafeMutableRawPointer(target + j).storeBytes(of: total, as: SIMD8<Float>.self)
                j += 8
            }
        } else {
            while j + 8 <= samples {
                var s0 = SIMD8<Float>(), s1 = SIMD8<Float>()
                for lane in 0..<8 {
                    let s = accumulator + Int(index[j + lane])
                    s0[lane] = s[0]
                    s1[lane] = s[step]
                }
                let total = load(w0 + j) * s0 + load(w1 + j) * s1
                UnsafeMutableRawPointer(target + j).storeBytes(of: total, as: SIMD8<Float>.self)
                j += 8
            }
        }
        while j < samples {
            let s = accumulator + Int(index[j])
            target[j] = taps == 3 ? w0[j] * s[0] + w1[j] * s[step] + w2[j] * s[step2] : w0[j] * s[0] + w1[j] * s[step]
            j += 1
        }
    }

    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    /// Non-negative totals rounded to 8 bits (+ 0.5, then truncation), clamped at 255. The SIMD
    /// path converts eight at a time without the scalar conversion's range check.
    @inline(__always)
    static func round(
        _ totals: UnsafePointer<Float>, into target: UnsafeMutablePointer<UInt8>, count: Int, _ implementation: KernelImplementation
    ) {
        var i = 0
        if implementation == .simd {
            // y = min(t + 0.5, 255) plus 2²³ is y rounded to the nearest integer, held in the low
            // mantissa bits; one less where that rounded up gives the truncation.
            let half = SIMD8<Float>(repeating: 0.5), top = SIMD8<Float>(repeating: 255), magic = SIMD8<Float>(repeating: 8_388_608)
            while i + 8 <= count {
                var y = UnsafeRawPointer(totals + i).loadUnaligned(as: SIMD8<Float>.self) + half
                y.replace(with: top, where: y .> top)
                let nearest = y + magic
                var bits = unsafeBitCast(nearest, to: SIMD8<UInt32>.self)
                bits &-= unsafeBitCast(SIMD8<Int32>(repeating: 0).replacing(with: 1, where: nearest - magic .> y), to: SIMD8<UInt32>.self)
                UnsafeMutableRawPointer(target + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: bits), as: SIMD8<UInt8>.self)
                i += 8
            }
        }
        while i < count {
            target[i] = UInt8(min(255, totals[i] + 0.5))
            i += 1
        }
    }

    /// `destination[i] = 0 + w₀·s₀[i] + w₁·s₁[i] + …` over `count` rows `stride` apart, added
    /// in row order (what adding each row into a zeroed row in turn gives, bit for bit);
    /// element-wise, so SIMD and scalar agree exactly.
    @inline(__always)
    static func weightedRows(
        _ source: UnsafePointer<UInt8>, stride: Int, weights: UnsafePointer<Float>, count: Int,
        into destination: UnsafeMutablePointer<Float>, length: Int, _ implementation: KernelImplementation
    ) {
        var i = 0
        if implementation == .simd {
            while i + 8 <= length {
                var total = SIMD8<Float>()
                for k in 0..<count {
                    let bytes = UnsafeRawPointer(source + k * stride + i).loadUnaligned(as: SIMD8<UInt8>.self)
                    total = total + SIMD8<Float>(repeating: weights[k]) * SIMD8<Float>(SIMD8<Int32>(widening: bytes))
                }
                UnsafeMutableRawPointer(destination + i).storeBytes(of: total, as: SIMD8<Float>.self)
                i += 8
            }
        }
        while i < length {
            var total: Float = 0
            for k in 0..<count { total = total + weights[k] * Float(source[k * stride + i]) }
            destination[i] = total
            i += 1
        }
    }

    /// The largest size with the same aspect ratio whose longer side is at most `longSide`
    /// (the plane's own size when it is already smaller).
    public static func size(fitting plane: ImageSize, longSide: Int) -> ImageSize {
        let long = max(plane.width, plane.height)
        guard long > longSide else { return plane }
        let scale = Double(longSide) / Double(long)
        return ImageSize(
            width: max(1, Int((Double(plane.width) * scale).rounded())),
            height: max(1, Int((Double(plane.height) * scale).rounded())))
    }
}
