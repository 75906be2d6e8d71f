import Foundation
import ImageCodecs
import ImagingCore
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// The aesthetic score along graded distortions of one scene: each rung is worse than the
/// one before, so the score must fall, whatever the distortion.
@Suite("Aesthetic score on distortion ladders")
struct AestheticsTests {
    let width = 512, height = 384
    /// Decodes as the analyzer asks (with colour).
    let decoder = ImageDecoder(options: QualityAnalyzer().decodeOptions())

    /// A colourful scene: the photo-like luma, each region tinted by a second scene.
    func colourScene(saturation: Double = 1) -> PixelBuffer<UInt8> {
        let luma = Scenes.photo(width: width, height: height, seed: 21), tint = Scenes.photo(width: width, height: height, seed: 22)
        var rgb = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
        for y in 0..<height {
            for x in 0..<width {
                let l = Double(luma[y * width + x]), t = Double(tint[y * width + x]) / 255
                let chroma = (r: 60 * (t - 0.5), b: 60 * (0.5 - abs(t - 0.5) * 2))
                let r = l + saturation * chroma.r, b = l + saturation * chroma.b
                let g = l - saturation * (0.299 * chroma.r + 0.114 * chroma.b) / 0.587
                for (c, v) in [r, g, b].enumerated() { rgb[x, y, c] = UInt8(max(0, min(255, v.rounded()))) }
            }
        }
        return rgb
    }

    /// The score of an RGB image saved as a quality-95 JPEG.
    func score(rgb: PixelBuffer<UInt8>) throws -> Double {
        score(try decoder.decode(try JPEGEncoder.encode(rgb, quality: 95)))
    }

    /// The report of a grey image.
    func report(luma pixels: [Float]) -> QualityReport {
        let plane = Scenes.plane(pixels, width: width, height: height)
        return QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
    }

    func score(luma pixels: [Float]) -> Double { report(luma: pixels).aesthetic!.score }

    func score(_ image: DecodedImage) -> Double {
        QualityAnalyzer().analyze(AnalysisImage(image)).aesthetic!.score
    }

    func score(jpeg pixels: [Float], quality: Int) throws -> Double {
        let bytes = try JPEGEncoder.encode(Scenes.plane(pixels, width: width, height: height), quality: quality)
        return score(try decoder.decode(bytes))
    }

    func expectFalling(_ scores: [Double], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (a, b) in zip(scores, scores.dropFirst()) where b >= a {
            Issue.record("\(what): the score does not fall along the ladder: \(scores)", sourceLocation: sourceLocation)
            return
        }
    }

    @Test func itFallsWithDefocus() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        expectFalling([0, 1, 2, 4].map { score(luma: Scenes.gaussian(scene, width: width, height: height, sigma: Float($0))) }, "defocus")
    }

    /// Comparable across scenes: a sharp scene scores above another scene blurred.
    @Test func aSharpSceneOutscoresAnotherSceneBlurred() {
        let sharp = Scenes.photo(width: width, height: height, seed: 31)
        let blurred = Scenes.gaussian(Scenes.photo(width: width, height: height, seed: 32), width: width, height: height, sigma: 3)
        #expect(score(luma: sharp) > score(luma: blurred))
    }

    /// The scene as a shake that dwells at `copies` points leaves it, 4 px right and 3 down
    /// from one to the next: that many sharp copies, each with its share of the light (in
    /// linear light, gamma 2.2).
    func dwelt(_ scene: [Float], copies: Int) -> [Float] {
        var linear = [Float](repeating: 0, count: scene.count)
        for copy in 0..<copies {
            let (dx, dy) = (4 * copy, 3 * copy)
            for y in 0..<height {
                for x in 0..<width {
                    let source = scene[min(height - 1, max(0, y - dy)) * width + min(width - 1, max(0, x - dx))]
                    linear[y * width + x] += pow(max(0, source) / 255, 2.2) / Float(copies)
                }
            }
        }
        return linear.map { 255 * pow($0, 1 / 2.2) }
    }

    /// The measures the penalties read, for a grey image.
    func measures(luma pixels: [Float]) -> [String: Double] {
        let analyzed = report(luma: pixels)
        return AestheticsDetector.measures(blur: analyzed.blur!, exposure: analyzed.exposure!, observation: analyzed.aesthetic!)
    }

    /// Each copy keeps sharp edges, so the edge width hardly moves until the copies blend; the
    /// shake penalty reads the spread, which grows as the light is shared among more copies.
    @Test func itFallsWithAShakeThatDwells() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        let ladder = [1, 6, 12, 24].map { measures(luma: dwelt(scene, copies: $0)) }
        let detector = AestheticsDetector()
        var shakeAlone = detector, withoutShake = detector
        shakeAlone.penalties = detector.penalties.filter { $0.key == "shake" }
        withoutShake.penalties["shake"] = nil
        expectFalling(ladder.map { shakeAlone.logScore($0) }, "the shake penalty, dwelling at 1, 6, 12, 24 points")
        // The longest shake: the shake penalty takes it from the clean side of the map to the
        // defective side; the sharp scene it leaves on the clean side.
        let (sharp, shaken) = (ladder[0], ladder[3])
        #expect(detector.mapping(detector.logScore(sharp)) > 0.5)
        #expect(detector.mapping(withoutShake.logScore(shaken)) > 0.5)
        #expect(detector.mapping(detector.logScore(shaken)) < 0.5)
    }

    @Test func itFallsWithNoise() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        let scores = [0, 3, 8, 20].map { sigma in
            var generator = SeededGenerator(seed: 9)
            return score(luma: scene.map { value in
                // The sum of four uniforms, scaled to standard deviation σ.
                let u = (0..<4).map { _ in Float.random(in: -1...1, using: &generator) }.reduce(0, +)
                return value + Float(sigma) * u * 0.866
            })
        }
        expectFalling(scores, "noise")
    }

    @Test func itFallsWithJPEGCompression() throws {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        expectFalling(try [95, 40, 15, 5].map { try score(jpeg: scene, quality: $0) }, "JPEG quality 95, 40, 15, 5")
    }

    @Test func itFallsWithUnderAndOverExposure() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        expectFalling([0, -1, -2, -3].map { score(luma: Scenes.exposed(scene, stops: Float($0))) }, "under-exposure")
        expectFalling([0, 1, 2, 3].map { score(luma: Scenes.exposed(scene, stops: Float($0))) }, "over-exposure")
    }

    @Test func itFallsAsColourWashesOut() throws {
        expectFalling(try [1, 0.5, 0.25, 0.12].map { try score(rgb: colourScene(saturation: $0)) }, "saturation 1, 0.5, 0.25, 0.12")
    }

    /// Black and white is a photographer's choice, not washed-out colour: the scene in grey
    /// stays on the clean side of the score's midpoint (0.5 lies between the ladders' clean
    /// photos and first rungs and their fourth and fifth), a little below the scene in colour.
    @Test func aBlackAndWhitePhotoScoresWithTheCleanOnes() throws {
        let grey = try score(rgb: colourScene(saturation: 0)), colour = try score(rgb: colourScene())
        #expect(grey > 0.5)
        #expect(colour - grey < 0.2)
    }

    @Test func theModelsPenaltiesAreReadFromItsFile() throws {
        let detector = AestheticsDetector()
        #expect(Set(detector.penalties.keys) == Set(AestheticsDetector.modelRequirements.evidence.keys))
        // No penalty at all maps L = 0 through the map alone.
        var none = detector
        none.penalties = [:]
        #expect(none.logScore(["logNoise": 3]) == 0)
        // One penalty: scale · softplus(intercept + weight · measure).
        none.penalties = ["noise": .init(intercept: -1, weights: ["logNoise": 2], scale: 0.5)]
        #expect(abs(none.logScore(["logNoise": 1]) - -0.5 * log(1 + exp(1.0))) < 1e-12)
    }

    /// A model given with `--model` or held by a profile replaces the bundled one.
    @Test func aModelPutInForceReplacesTheBundledOne() {
        var model = ModelSet.bundled["aesthetic"]
        model.evidence["noise"]?.scale = 0
        var analyzer = QualityAnalyzer()
        var policy = QualityPolicy.default
        model.apply(to: &analyzer, policy: &policy)
        #expect(analyzer.aesthetics.penalties["noise"]?.scale == 0)
        #expect(QualityAnalyzer().aesthetics.penalties["noise"]?.scale == ModelSet.bundled["aesthetic"].evidence["noise"]?.scale)
        #expect(policy == QualityPolicy.default)
    }
}
