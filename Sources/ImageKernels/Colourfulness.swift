import ImagingCore

/// Hasler and Süsstrunk's colourfulness (2003) of interleaved 8-bit RGB:
/// with rg = R − G and yb = (R + G)/2 − B,
/// M = √(σ²rg + σ²yb) + 0.3 · √(μ²rg + μ²yb).
/// Gray images score 0; their paper rates ≈ 33 "moderately", ≈ 59 "quite", ≥ 82 "highly" colourful.
public struct Colourfulness: Sendable, Equatable {
    /// Exact integer sums of rg, 2·yb and their squares.
    public var count: Int64 = 0
    public var sumRG: Int64 = 0, sumRG2: Int64 = 0
    public var sumYB2x: Int64 = 0, sumYB2x2: Int64 = 0

    /// No pixels yet: pixels are added one at a time with `add(red:green:blue:)`.
    public init() {}

    /// Counts one pixel in (a region chosen pixel by pixel, such as a sheet of paper).
    public mutating func add(red: UInt8, green: UInt8, blue: UInt8) {
        let rg = Int64(red) - Int64(green), yb = Int64(red) + Int64(green) - 2 * Int64(blue)
        count += 1
        sumRG += rg; sumRG2 += rg * rg; sumYB2x += yb; sumYB2x2 += yb * yb
    }

    public init(rgb: PixelBuffer<UInt8>, implementation: KernelImplementation = .current) {
        precondition(rgb.channels == 3, "colourfulness needs RGB")
        let width = rgb.width, stride = rgb.rowStride
        var count: Int64 = 0, sRG: Int64 = 0, sRG2: Int64 = 0, sYB: Int64 = 0, sYB2: Int64 = 0
        rgb.withUnsafeBufferPointer { pixels in
            for y in 0..<rgb.height {
                let row = pixels.baseAddress! + y * stride
                var x = 0
                if implementation == .simd {
                    // 8 pixels at a time; Int32 lanes hold one row's partial sums safely
                    // (|2·yb| ≤ 1020, square ≤ 1.04 M, ≤ 2047 vectors flushed per block).
                    var aRG = SIMD8<Int32>(), aRG2 = SIMD8<Int32>(), aYB = SIMD8<Int32>(), aYB2 = SIMD8<Int32>()
                    var vectors = 0
                    // 32 bytes are loaded for 8 pixels' 24: stop where that would pass the row.
                    while x + 11 <= width {
                        let v = UnsafeRawPointer(row + 3 * x).loadUnaligned(as: SIMD32<UInt8>.self)
                        let r = SIMD8<Int32>(widening: SIMD8<UInt8>(v[0], v[3], v[6], v[9], v[12], v[15], v[18], v[21]))
                        let g = SIMD8<Int32>(widening: SIMD8<UInt8>(v[1], v[4], v[7], v[10], v[13], v[16], v[19], v[22]))
                        let b = SIMD8<Int32>(widening: SIMD8<UInt8>(v[2], v[5], v[8], v[11], v[14], v[17], v[20], v[23]))
                        let rg = r &- g, yb = r &+ g &- 2 &* b
                        aRG &+= rg; aRG2 &+= rg &* rg; aYB &+= yb; aYB2 &+= yb &* yb
                        x += 8
                        vectors += 1
                        if vectors == 1024 || x + 11 > width {
                            sRG += Int64(aRG.wrappedSum()); sYB += Int64(aYB.wrappedSum())
                            for lane in 0..<8 { sRG2 += Int64(aRG2[lane]); sYB2 += Int64(aYB2[lane]) }
                            aRG = .zero; aRG2 = .zero; aYB = .zero; aYB2 = .zero
                            vectors = 0
                        }
                    }
                }
                while x < width {
                    let p = row + 3 * x
                    let rg = Int64(p[0]) - Int64(p[1]), yb = Int64(p[0]) + Int64(p[1]) - 2 * Int64(p[2])
                    sRG += rg; sRG2 += rg * rg; sYB += yb; sYB2 += yb * yb
                    x += 1
                }
                count += Int64(width)
            }
        }
        self.count = count
        sumRG = sRG; sumRG2 = sRG2; sumYB2x = sYB; sumYB2x2 = sYB2
    }

    /// The length of the mean chroma (μrg, μyb) in 8-bit levels: how far the frame's average
    /// colour is from grey, as a white-balance cast moves it (and as a sunset or a forest
    /// does on purpose).
    public var meanChroma: Double {
        guard count > 0 else { return 0 }
        let n = Double(count)
        let meanRG = Double(sumRG) / n, meanYB = Double(sumYB2x) / n / 2
        return (meanRG * meanRG + meanYB * meanYB).squareRoot()
    }

    /// M, in the 0…~180 units of the paper (8-bit samples).
    public var value: Double {
        guard count > 0 else { return 0 }
        let n = Double(count)
        let meanRG = Double(sumRG) / n, meanYB = Double(sumYB2x) / n / 2
        let varRG = max(0, Double(sumRG2) / n - meanRG * meanRG)
        let varYB = max(0, Double(sumYB2x2) / n / 4 - meanYB * meanYB)
        return (varRG + varYB).squareRoot() + 0.3 * (meanRG * meanRG + meanYB * meanYB).squareRoot()
    }
}
