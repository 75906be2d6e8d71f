import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// `pixels` with Gaussian noise of standard deviation `sigma` levels added (Box–Muller, seeded).
func withNoise(_ pixels: [Float], sigma: Float, seed: UInt64) -> [Float] {
    var generator = SeededGenerator(seed: seed)
    return pixels.map { value in
        let u = Float.random(in: Float.ulpOfOne..<1, using: &generator), v = Float.random(in: 0..<1, using: &generator)
        return value + sigma * (-2 * log(u)).squareRoot() * cos(2 * Float.pi * v)
    }
}

@Suite("Noise and compression on images with known answers")
struct NoiseAndCompressionTests {
    let width = 1024, height = 768

    func report(_ plane: PixelBuffer<UInt8>) -> QualityReport {
        QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
    }

    func report(_ image: DecodedImage) -> QualityReport {
        QualityAnalyzer().analyze(AnalysisImage(image))
    }

    /// Noise on a flat mid-grey: Immerkær's estimate is the pixels' standard deviation (its
    /// 10th percentile over 768 tiles of 1 024 pixels a few percent under it), and in
    /// linear light it is that times the sRGB curve's slope at level 128.
    @Test func noiseOnAFlatGreyIsItsSigma() {
        let plane = Scenes.plane(withNoise(Array(repeating: 128, count: width * height), sigma: 6, seed: 7), width: width, height: height)
        let values = plane.samples.map(Double.init)
        let mean = values.reduce(0, +) / Double(values.count)
        let deviation = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
        let noise = NoiseDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(noise.decodedSigma > 0.9 * deviation && noise.decodedSigma < deviation, "\(noise.decodedSigma) against \(deviation)")
        #expect(abs(noise.sigma - noise.decodedSigma * NoiseDetector.srgbSlope(128)) < 1e-3 * noise.sigma)
        #expect(noise.tiles == 32 * 24)
    }

    /// A photo-like scene under noise of 0 to 16 levels: the confidence never falls, the
    /// clean scene passes the default policy and the noisiest fails it, with the reason `noise`.
    @Test func noiseLadderIsMonotoneAndCrossesTheThreshold() {
        // As large as the bundled model's smallest photo (1 280 px): smaller images are not judged.
        let wide = 1600, tall = 1200
        let scene = Scenes.photo(width: wide, height: tall)
        let reports = [Float(0), 2, 4, 8, 16].map { report(Scenes.plane(withNoise(scene, sigma: $0, seed: 11), width: wide, height: tall)) }
        let confidences = reports.map { $0.observation("noise", as: NoiseObservation.self)!.confidence }
        expectNonDecreasing(confidences, tolerance: 0, "noise confidence")
        let threshold = QualityPolicy.default.confidenceThresholds["noise"]!
        #expect(confidences.first! < threshold && confidences.last! > threshold, "\(confidences) against \(threshold)")
        #expect(reports.allSatisfy { $0.observation("noise", as: NoiseObservation.self)!.judged })
        let gate = QualityGate(policy: .default)
        #expect(!gate.decide(reports.first!).reasons.contains(.noise))
        #expect(gate.decide(reports.last!).reasons.contains(.noise))
        // The same noise on a copy under 1 280 px is measured but not judged.
        let small = report(Scenes.plane(withNoise(Scenes.photo(width: width, height: height), sigma: 16, seed: 11), width: width, height: height))
        let smallNoise = small.observation("noise", as: NoiseObservation.self)!
        #expect(smallNoise.sigma > 0 && smallNoise.confidence == 0 && !smallNoise.judged)
    }

    /// The crop's far edge cuts a row of tiles to 8 pixels (1 000 = 31 × 32 + 8): those slivers
    /// are left out, and the whole tiles along the edges (31 × 32 mask responses, corners
    /// 31 × 31) are kept.
    @Test func sliversOfTilesAtTheCropsEdgeAreLeftOut() {
        let wide = 1600, tall = 1000
        let plane = Scenes.plane(withNoise(Array(repeating: 128, count: wide * tall), sigma: 4, seed: 8), width: wide, height: tall)
        let noise = NoiseDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(noise.tiles == 32 * 31 && noise.judged)
    }

    /// The same noisy scene at half the resolution (2 × 2 pixels averaged, which halves white
    /// noise) gives about the same `sigma`: it is stated as at the analysis size.
    @Test func halfTheResolutionGivesTheSameSigma() {
        let wide = 2048, tall = 1536
        let full = Scenes.plane(withNoise(Array(repeating: 100, count: wide * tall), sigma: 12, seed: 5), width: wide, height: tall)
        let half = PixelBuffer<UInt8>.make(width: wide / 2, height: tall / 2) { x, y in
            var sum = 0
            for dy in 0..<2 {
                for dx in 0..<2 { sum += Int(full[2 * x + dx, 2 * y + dy]) }
            }
            return Double(sum) / 4
        }
        let a = NoiseDetector().analyze(AnalysisImage(luma: full, fullSize: full.size))
        let b = NoiseDetector().analyze(AnalysisImage(luma: half, fullSize: half.size))
        #expect(abs(a.decodedSigma / b.decodedSigma - 2) < 0.15, "\(a.decodedSigma) \(b.decodedSigma)")
        #expect(abs(a.sigma / b.sigma - 1) < 0.08, "\(a.sigma) \(b.sigma)")
    }

    /// Tiles within 8 levels of black or white are left out (clipping hides the grain there):
    /// a frame of them, large enough to be judged, is not.
    @Test(arguments: [Float(4), 251])
    func clippedTilesAreNotJudged(level: Float) {
        let wide = 1600, tall = 1200
        let plane = Scenes.plane(withNoise(Array(repeating: level, count: wide * tall), sigma: 1, seed: 3), width: wide, height: tall)
        let noise = NoiseDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        #expect(noise.tiles == 0 && noise.confidence == 0 && !noise.judged)
        // Mid-grey with the same noise is measured.
        let grey = Scenes.plane(withNoise(Array(repeating: 128, count: wide * tall), sigma: 1, seed: 3), width: wide, height: tall)
        #expect(NoiseDetector().analyze(AnalysisImage(luma: grey, fullSize: grey.size)).tiles == 32 * 32)
    }

    /// The standard tables' luminance DC steps, as libjpeg scales them.
    @Test func standardDCStepsAndTheirQualities() {
        #expect([10, 20, 50, 75, 90, 95, 100].map(CompressionDetector.standardDCStep(quality:)) == [80, 40, 16, 8, 3, 2, 1])
        // The highest quality with at least that step: 49 to 51 all give 16.
        #expect([80, 40, 16, 8, 3, 2, 1].map(CompressionDetector.quality(forDCStep:)) == [10, 20, 51, 76, 92, 95, 100])
    }

    /// A textured scene saved as a JPEG: the lattice of its block means gives the quantizer's
    /// DC step, whatever the quality, and the default policy rejects the heavy ones.
    @Test(arguments: [20, 50, 75, 95])
    func theDCStepOfAJPEGIsItsQuantizer(quality: Int) throws {
        let scene = Scenes.plane(Scenes.photo(width: width, height: height, seed: 4), width: width, height: height)
        let image = try ImageDecoder().decode(try JPEGEncoder.encode(scene, quality: quality))
        let report = report(image)
        let compression = try #require(report.observation("compression", as: CompressionObservation.self))
        #expect(compression.dcStep == Double(CompressionDetector.standardDCStep(quality: quality)), "quality \(quality): \(compression)")
        let rejected = QualityGate(policy: .default).decide(report).reasons.contains(.compression)
        // The threshold passes a DC step of 12 and rejects 13 (quality 60 and below).
        #expect(rejected == (quality <= 60), "quality \(quality): confidence \(compression.confidence)")
    }

    /// A colour photo the size a phone saves (4 032 × 3 024) at quality 30, through the whole
    /// pipeline: decoded at half size, with its luma made from RGB, its blocks are 4 pixels
    /// across and keep their means, and the step is the quantizer's.
    @Test func aPhonesColourJPEGDecodedAtHalfSizeKeepsItsStep() throws {
        let wide = 4032, tall = 3024
        let luma = Scenes.plane(Scenes.photo(width: wide, height: tall, seed: 9), width: wide, height: tall)
        var samples = [UInt8](repeating: 0, count: wide * tall * 3)
        for (i, value) in luma.samples.enumerated() {
            samples[3 * i] = value
            samples[3 * i + 1] = UInt8(20 + Int(value) * 3 / 4)
            samples[3 * i + 2] = 255 - value / 2
        }
        let folder = try TemporaryDirectory()
        let path = try folder.write("phone.jpg", JPEGEncoder.encode(PixelBuffer(width: wide, height: tall, channels: 3, samples: samples), quality: 30))
        let assessment = Assessor().assess(contentsOf: path)
        let image = try #require(assessment.image)
        let compression = try #require(image.report.observation("compression", as: CompressionObservation.self))
        #expect(compression.dcStep == Double(CompressionDetector.standardDCStep(quality: 30)), "\(compression)")
        #expect(image.decision.reasons.contains(.compression))
    }

    /// A frame never compressed (no lattice), and one whose grid an orientation moved to the
    /// far edges (a mirrored frame whose width is not a multiple of 8).
    @Test func anUncompressedFrameHasNoStepAndAFlippedGridIsFound() throws {
        let plain = Scenes.plane(withNoise(Scenes.photo(width: width, height: height, seed: 6), sigma: 1, seed: 2), width: width, height: height)
        let none = CompressionDetector().analyze(AnalysisImage(luma: plain, fullSize: plain.size))
        #expect(none.dcStep == 1 && none.confidence < QualityPolicy.default.confidenceThresholds["compression"]!, "\(none)")

        let odd = Scenes.plane(Scenes.photo(width: 1001, height: 757, seed: 8), width: 1001, height: 757)
        let decoded = try ImageDecoder().decode(try JPEGEncoder.encode(odd, quality: 30)).luma.eightBit
        let mirrored = PixelBuffer<UInt8>.make(width: 1001, height: 757) { x, y in Double(decoded[1000 - x, 756 - y]) }
        let flipped = CompressionDetector().analyze(AnalysisImage(luma: mirrored, fullSize: mirrored.size))
        #expect(flipped.dcStep == Double(CompressionDetector.standardDCStep(quality: 30)), "\(flipped)")
    }
}
