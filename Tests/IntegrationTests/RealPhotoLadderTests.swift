import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// Ladders of known severity on the real photographs of `Datasets/` (committed with the
/// repository): along each ladder, per source photo, the confidence never decreases by
/// more than 0.02 (0.04 where a saturated confidence wobbles, as each test says).
@Suite("Ladders on real photographs", .serialized)
struct RealPhotoLadderTests {
    static let datasets = Fixtures.datasets

    static func rows(_ set: String) throws -> [[String: String]] { try Fixtures.datasetRows(set) }

    static func report(_ set: String, _ path: String, detectors: Set<DetectorKind> = [.blur, .exposure]) throws -> QualityReport {
        let assessor = Assessor(Assessor.Configuration(analyzer: QualityAnalyzer(detectors: detectors)))
        let assessment = assessor.assess(contentsOf: "\(datasets)/\(set)/\(path)")
        if let error = assessment.error { throw error }
        return try #require(assessment.image).report
    }

    /// Checks that `value` never falls by more than `tolerance` along `levels` for every source,
    /// or, with `rejectedAbove`, by more only between two rungs that are both above it (no
    /// decision moves).
    func expectLadders(
        _ set: String, levels: [String: Double], detectors: Set<DetectorKind> = [.blur, .exposure], tolerance: Double = 0.02,
        rejectedAbove: Double? = nil, value: (QualityReport) -> Double
    ) throws {
        var bySource: [String: [(Double, Double)]] = [:]
        for row in try Self.rows(set) {
            guard let path = row["path"], let source = row["source"], let key = row["degradation"].map({ "\($0):\(row["severity"] ?? "")" }),
                let level = levels[key]
            else { continue }
            bySource[source, default: []].append((level, value(try Self.report(set, path, detectors: detectors))))
        }
        #expect(bySource.count == 16)
        for (source, ladder) in bySource {
            let values = ladder.sorted { $0.0 < $1.0 }.map(\.1)
            #expect(values.count == levels.count)
            for (a, b) in zip(values, values.dropFirst()) where b < a - tolerance && !(rejectedAbove.map { a > $0 && b > $0 } ?? false) {
                Issue.record("\(source): \(values)")
                break
            }
        }
    }

    /// Tolerance 0.04: saturated, the confidence wobbles (kde-path: 0.978, 0.956).
    @Test func gaussianBlur() throws {
        try expectLadders(
            "blur", levels: ["clean:0": 0, "gaussian:0.0007": 1, "gaussian:0.003": 2, "gaussian:0.006": 3, "gaussian:0.012": 4], tolerance: 0.04
        ) {
            $0.blur!.confidence
        }
    }

    /// More than 0.02 only between two rungs the default blur threshold both rejects: past the
    /// disk's first zero the heaviest defocus sinks the spectrum under the noise, and the
    /// cepstral dip fades while the widths go on growing (skimage-rocket: 0.71, 0.68).
    @Test func defocusBlur() throws {
        try expectLadders(
            "blur", levels: ["clean:0": 0, "defocus:0.004": 1, "defocus:0.008": 2, "defocus:0.016": 3], rejectedAbove: QualityPolicy.default.blur
        ) { $0.blur!.confidence }
    }

    /// Motion blur along the axes and both diagonals, made here from each clean photo
    /// (linear light, a box of 1%, 2% and 4% of the long side). Tolerance 0.04, and more only
    /// between two rungs the default blur threshold both rejects: the edge width counts the
    /// motion direction's width only while it is 1.5× the sharpest direction's, so along a
    /// ladder it can fall back to the tiles' width (kde-grey along y: 0.84, 0.73, 0.95, every
    /// rung rejected), and no decision moves.
    @Test func motionBlur() throws {
        let decoder = ImageDecoder(options: QualityAnalyzer(detectors: [.blur]).decodeOptions())
        let analyzer = QualityAnalyzer(detectors: [.blur])
        var drops: [String] = []
        for row in try Self.rows("blur") where row["degradation"] == "clean" {
            let image = try decoder.decode(contentsOf: "\(Self.datasets)/blur/\(row["path"]!)")
            let luma = image.luma.eightBit
            let width = luma.width, height = luma.height
            let pixels = (0..<height).flatMap { y in (0..<width).map { x in Float(luma[x, y]) } }
            func confidence(_ pixels: [Float]) -> Double {
                let plane = Scenes.plane(pixels, width: width, height: height)
                return analyzer.analyze(AnalysisImage(luma: plane, fullSize: plane.size)).blur!.confidence
            }
            let clean = confidence(pixels)
            for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                let step = dx != 0 && dy != 0 ? 2.0.squareRoot() : 1
                var values = [clean]
                for fraction in [0.01, 0.02, 0.04] {
                    let length = Int((fraction * Double(max(width, height)) / step).rounded())
                    values.append(confidence(Scenes.motion(pixels, width: width, height: height, length: length, dx: dx, dy: dy)))
                }
                let threshold = QualityPolicy.default.blur
                if zip(values, values.dropFirst()).contains(where: { $1 < $0 - 0.04 && !($0 > threshold && $1 > threshold) }) {
                    drops.append("\(row["source"]!) (\(dx),\(dy)): \(values.map { ($0 * 1000).rounded() / 1000 })")
                }
            }
        }
        #expect(drops == [])
    }

    /// An oil film over the whole frame scattering more and more of the light (the physical
    /// model of `Datasets/smudge`).
    @Test func smudgeVeil() throws {
        try expectLadders("smudge", levels: ["clean:0": 0, "oil:0.4": 1, "oil:0.6": 2, "oil:0.8": 3], detectors: [.smudge]) {
            $0.smudge!.confidence
        }
    }

    @Test func overAndUnderExposure() throws {
        // Direction-specific evidence: a dark original brightened first becomes better exposed,
        // so the combined confidence may fall before it rises. The evidences are log-odds,
        // compared as probabilities (a saturated log-odds of 18 may wobble by 0.6).
        func probability(_ logOdds: Double) -> Double { 1 / (1 + exp(-logOdds)) }
        try expectLadders("exposure", levels: ["clean:0": 0, "exposure:0.3": 1, "exposure:1.5": 2, "exposure:2": 3, "exposure:3": 4]) {
            probability($0.exposure!.overEvidence)
        }
        try expectLadders("exposure", levels: ["clean:0": 0, "exposure:-0.3": 1, "exposure:-1.5": 2, "exposure:-2": 3, "exposure:-3": 4]) {
            probability($0.exposure!.underEvidence)
        }
    }
}
