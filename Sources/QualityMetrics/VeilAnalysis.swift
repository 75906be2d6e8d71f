import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The veil of light scattered by something on the lens, measured as the physics of an
/// additive veil predicts: `observed = scene · t + scattered · (1 − t)`.
///
/// - `veilFraction`: in each 32-pixel tile, the darkest tones (2nd percentile of the
///   darkest channel) over the brightest (98th percentile of luma), in linear light. A
///   clean scene has something near black in most tiles (shadows, dark surfaces, the dark
///   side of every edge), so the ratio is near 0; scattered light adds to every pixel and
///   lifts it. The cue is the 10th percentile over textured tiles (flat ones hold nothing
///   to veil): only a veil over the whole frame lifts even the tiles with the deepest
///   shadows (a white wall or the sky is one bright tile among many).
/// - `localContrast`: the 90th percentile over 8-pixel blocks of the standard deviation
///   of log₂ luminance: how many stops of contrast the most contrasty places keep. A veil
///   compresses it everywhere; blur lowers it only where detail was finer than a block.
///
/// Cost: one pass over the analysis image with a 256-entry table.
struct VeilAnalysis {
    var veilFraction = 0.0
    var localContrast = 0.0

    static let tile = 32
    /// Tiles flatter than this luma variance (a standard deviation of 2 levels) hold no scene
    /// to veil and are left out: a flat wall has no dark tone, veiled or not.
    static let flatVariance = 4.0
    static let block = 8
    /// sRGB level → linear light.
    static let linear: [Double] = (0..<256).map { linearLight(Double($0)) }
    /// sRGB level → log₂(linear + 0.005) (0.005 keeps black finite, about −7.6 stops).
    static let logLuminance: [Double] = linear.map { log2($0 + 0.005) }

    init(_ image: AnalysisImage) {
        let luma = image.luma
        let width = luma.width, height = luma.height
        let n = Self.tile
        var fractions: [Double] = []
        var darkest = [Int](repeating: 0, count: 256), bright = [Int](repeating: 0, count: 256)
        var y0 = 0
        while y0 + n <= height {
            var x0 = 0
            while x0 + n <= width {
                for i in 0..<256 { darkest[i] = 0; bright[i] = 0 }
                var sum = 0, squares = 0
                for y in y0..<(y0 + n) {
                    for x in x0..<(x0 + n) {
                        let l = Int(luma[x, y])
                        sum += l
                        squares += l * l
                        bright[l] += 1
                        if let rgb = image.rgb {
                            darkest[Int(min(rgb[x, y, 0], rgb[x, y, 1], rgb[x, y, 2]))] += 1
                        } else {
                            darkest[l] += 1
                        }
                    }
                }
                let count = Double(n * n), mean = Double(sum) / count
                let textured = Double(squares) / count - mean * mean >= Self.flatVariance
                let high = Self.linear[Histogram(counts: bright).percentile(0.98)]
                if textured && high > 0.02 {
                    fractions.append(Self.linear[Histogram(counts: darkest).percentile(0.02)] / high)
                }
                x0 += n
            }
            y0 += n
        }
        fractions.sort()
        veilFraction = fractions.isEmpty ? 0 : percentile(fractions, 0.1)

        let b = Self.block
        var deviations: [Double] = []
        deviations.reserveCapacity((width / b) * (height / b))
        var by = 0
        while by + b <= height {
            var bx = 0
            while bx + b <= width {
                var sum = 0.0, squares = 0.0
                for y in by..<(by + b) {
                    for x in bx..<(bx + b) {
                        let v = Self.logLuminance[Int(luma[x, y])]
                        sum += v
                        squares += v * v
                    }
                }
                let count = Double(b * b), mean = sum / count
                deviations.append(max(0, squares / count - mean * mean).squareRoot())
                bx += b
            }
            by += b
        }
        deviations.sort()
        localContrast = deviations.isEmpty ? 0 : percentile(deviations, 0.9)
    }
}
