import ImageKernels
import ImagingCore
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

@Suite("Directional edges and legibility under motion")
struct DirectionalEdgesTests {
    /// Upper half: columns ramp from 40 to 200 over 8 pixels and back, every 64 pixels.
    /// Lower half: rows step sharply between the same levels every 32 pixels.
    static func rampsAndSteps(width: Int = 256, height: Int = 256) -> PixelBuffer<UInt8> {
        var pixels = [Float](repeating: 40, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                if y < height / 2 {
                    let p = x % 64
                    pixels[y * width + x] = p < 8 ? 40 + 20 * Float(p) : p < 32 ? 200 : p < 40 ? 200 - 20 * Float(p - 32) : 40
                } else {
                    pixels[y * width + x] = (y / 32) % 2 == 0 ? 200 : 40
                }
            }
        }
        return Scenes.plane(pixels, width: width, height: height)
    }

    @Test func aRampMeasuresItsLengthAndTheStepsItsSharpness() {
        let plane = Self.rampsAndSteps()
        let edges = DirectionalEdges.measure(plane, histogram: Histogram(plane))
        // Contrast 160 over the ramp's slope of 20 levels a pixel: 8 pixels, along x.
        #expect(abs(edges.softWidth - 8) < 0.15, "\(edges)")
        #expect(min(edges.softDirection, 180 - edges.softDirection) < 1, "\(edges)")
        // Steps: the central difference halves 160 over two rows, 80 against 20.
        #expect(abs(edges.anisotropy - 4) < 0.1, "\(edges)")
    }

    @Test func theSoftDirectionFollowsTheRamps() {
        // The same plane transposed: ramps along y, steps along x.
        let plane = Self.rampsAndSteps()
        var samples = [UInt8](repeating: 0, count: plane.width * plane.height)
        for y in 0..<plane.height { for x in 0..<plane.width { samples[x * plane.width + y] = plane[x, y] } }
        let transposed = PixelBuffer(width: plane.height, height: plane.width, samples: samples)
        let edges = DirectionalEdges.measure(transposed, histogram: Histogram(transposed))
        #expect(abs(edges.softWidth - 8) < 0.15, "\(edges)")
        #expect(abs(edges.softDirection - 90) < 1, "\(edges)")
    }

    @Test func flatAndTinyPlanesMeasureNothing() {
        let flat = PixelBuffer(width: 64, height: 64, samples: [UInt8](repeating: 128, count: 64 * 64))
        #expect(DirectionalEdges.measure(flat, histogram: Histogram(flat)) == .none)
        let tiny = PixelBuffer(width: 2, height: 9, samples: (0..<18).map { UInt8($0 * 10) })
        #expect(DirectionalEdges.measure(tiny, histogram: Histogram(tiny)) == .none)
    }

    @Test func upperPercentileInterpolatesWithinTheBin() {
        // 1 000 samples: 990 in bin 2, 10 in bin 7. The top 0.5% (5 samples) lie in the
        // upper half of bin 7: the value is 7.5.
        var counts = [Int](repeating: 0, count: 10)
        counts[2] = 990
        counts[7] = 10
        #expect(abs(DirectionalEdges.upperPercentile(counts, share: 0.005) - 7.5) < 1e-9)
        #expect(DirectionalEdges.upperPercentile([0, 0], share: 0.005) == 0)
    }

    @Test func motionSmearsOneDirectionAndGaussianBlurNone() {
        let width = 600, height = 800
        let page = Scenes.page(width: width, height: height)
        func text(_ pixels: [Float]) -> TextObservation { analyze(pixels, width: width, height: height).text! }
        let clean = text(page)
        let smeared = text(Scenes.motion(page, width: width, height: height, length: 13))
        let gaussian = text(Scenes.gaussian(page, width: width, height: height, sigma: 2.5))
        #expect(clean.edgeAnisotropy < 1.3 && clean.softEdgeWidth < 3, "\(clean)")
        #expect(gaussian.edgeAnisotropy < 1.3 && gaussian.softEdgeWidth > 4, "\(gaussian)")
        #expect(smeared.edgeAnisotropy > 2 && smeared.softEdgeWidth > 8, "\(smeared)")
    }

    @Test func legibilityFallsAlongAMotionLadderUntilTheGateRejects() {
        let width = 600, height = 800
        let page = Scenes.page(width: width, height: height)
        let reports = [1, 3, 7, 13, 21].map { analyze(Scenes.motion(page, width: width, height: height, length: $0), width: width, height: height) }
        expectNonDecreasing(reports.map { -$0.text!.legibility }, tolerance: 0.5, "legibility along the motion ladder")
        // Sharp, the soft edges are the central difference's own 2 pixels, and legibility
        // stays within 10% of the line pitch (30 pixels).
        #expect(abs(reports[0].text!.softEdgeWidth - 2) < 0.1 && reports[0].text!.edgeAnisotropy < 1.05, "\(reports[0].text!)")
        #expect(abs(reports[0].text!.legibility - 30) < 3, "\(reports[0].text!)")
        // 13 pixels of motion smear strokes 3 pixels wide over more than four times their width.
        // The synthetic page's marks are bars, not characters: judge it as the document it stands for.
        var policy = QualityPolicy.default
        policy.content = .document
        let decision = QualityGate(policy: policy).decide(reports[3])
        #expect(!decision.pass && decision.reasons.contains(.predictedAccuracy), "\(reports[3].text!)")
    }

    @Test func aSharpPageDecodedAtHalfSizeKeepsItsLegibility() {
        // The same pixels standing for a page twice their size (a JPEG decoded at 1/2):
        // the decode's own sharp-edge width must not count as blur of the full page.
        let plane = Scenes.plane(Scenes.page(), width: 600, height: 800)
        let half = QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: ImageSize(width: 1200, height: 1600)))
        let text = half.text!
        #expect(abs(text.softEdgeWidth - 2) < 0.1, "\(text)")
        var edgeWidthOnly = text
        edgeWidthOnly.softEdgeWidth = 0
        #expect(abs(text.legibility - edgeWidthOnly.legibility(edgeWidth: half.blur!.edgeWidth, scale: 2)) < 1e-9, "\(text)")
        // Blur still counts at full resolution: a 6-pixel ramp decoded at 1/2 is 12 pixels.
        #expect(abs(TextDetector.fullResolutionWidth(6, scale: 2) - (32.0 * 4 + 4).squareRoot()) < 1e-9)
        #expect(TextDetector.fullResolutionWidth(7.5, scale: 1) == 7.5)
        #expect(TextDetector.fullResolutionWidth(1.5, scale: 2) == 1.5)
    }

    @Test func legibilityIsTheSmallerOfTheTwoResolutions() {
        var text = TextObservation(
            detected: true, strokeWidth: 3, inkFraction: 0.1, linePitch: 30, lineRegularity: 0.5, contrast: 200)
        // Unmeasured directional edges leave the edge-width legibility.
        #expect(abs(text.legibility(edgeWidth: 0.5, scale: 1) - 30) < 1e-9)
        // Soft width 5 with anisotropy 16 (fourth root 2): 2.5 · 30 / 10.
        text.softEdgeWidth = 5
        text.edgeAnisotropy = 16
        #expect(abs(text.legibility(edgeWidth: 0.5, scale: 1) - 7.5) < 1e-9)
        // A sharp page: 2.5 · 30 / 2 exceeds the pitch, which stays.
        text.softEdgeWidth = 2
        text.edgeAnisotropy = 1
        #expect(abs(text.legibility(edgeWidth: 0.5, scale: 1) - 30) < 1e-9)
    }
}
