import Foundation
import ImageKernels
import ImagingCore
import QualityAssessment
import QualityGating
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

func analyze(_ pixels: [Float], width: Int, height: Int) -> QualityReport {
    let plane = Scenes.plane(pixels, width: width, height: height)
    return QualityAnalyzer().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
}

/// Fails when a sequence decreases by more than `tolerance` anywhere.
func expectNonDecreasing(_ values: [Double], tolerance: Double, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for (a, b) in zip(values, values.dropFirst()) where b < a - tolerance {
        Issue.record("\(what) decreased: \(values)", sourceLocation: sourceLocation)
        return
    }
}

@Suite("Detectors on scenes with known answers")
struct DetectorTests {
    let width = 512, height = 384

    @Test func gaussianBlurLadderIsMonotone() {
        let scene = Scenes.photo()
        let reports = [0, 0.7, 1.4, 2.5, 4].map { analyze(Scenes.gaussian(scene, width: width, height: height, sigma: Float($0)), width: width, height: height) }
        let confidences = reports.map { $0.blur!.confidence }
        expectNonDecreasing(confidences, tolerance: 0.02, "blur confidence")
        expectNonDecreasing(reports.map { $0.blur!.edgeWidth }, tolerance: 0, "edge width")
        #expect(confidences.first! < 0.2, "sharp scene: \(confidences)")
        #expect(confidences.last! > 0.8, "σ = 4 px: \(confidences)")
    }

    @Test func motionBlurLadderIsMonotone() {
        let scene = Scenes.photo(seed: 2)
        let reports = [1, 3, 7, 13, 21].map { analyze(Scenes.motion(scene, width: width, height: height, length: $0), width: width, height: height) }
        let confidences = reports.map { $0.blur!.confidence }
        expectNonDecreasing(confidences, tolerance: 0.02, "blur confidence under motion")
        #expect(confidences.last! > 0.5, "21-px motion: \(confidences)")
    }

    @Test func smudgeLadderIsMonotone() {
        let scene = Scenes.photo(seed: 3)
        let reports = [0, 0.25, 0.5, 0.75, 1].map { analyze(Scenes.smudged(scene, width: width, height: height, strength: Float($0)), width: width, height: height) }
        let confidences = reports.map { $0.smudge!.confidence }
        expectNonDecreasing(confidences, tolerance: 0.02, "smudge confidence")
        // The clean scene passes the default policy; the strongest veil fails it.
        let threshold = QualityPolicy.default.smudge
        #expect(confidences.first! < threshold && confidences.last! > threshold, "\(confidences)")
    }

    /// Clean scenes that lift blacks or hold little to judge, each under the default smudge
    /// threshold: a night street with lamps (dark textured ground, white discs), fog (a smooth
    /// sky over a row of trees whose contrast fades with distance while the nearest keep their
    /// blacks), and a flat grey wall. The same night scene and fog under a strong film fail.
    @Test func cleanNightFogAndWallsAreNotSmudged() {
        var generator = SeededGenerator(seed: 31)
        let night = (0..<(width * height)).map { i -> Float in
            let x = i % width, y = i / width
            for (cx, cy) in [(80, 90), (250, 70), (420, 110), (160, 260)] where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= 64 {
                return 255
            }
            return Float.random(in: 4...45, using: &generator)
        }
        let horizon = height / 2
        let fog = (0..<(width * height)).map { i -> Float in
            let x = i % width, y = i / width
            let noise = Float.random(in: -1...1, using: &generator)
            guard y >= horizon else { return 200 + 30 * Float(y) / Float(horizon) + noise }
            // Below the horizon, trunks every 24 px whose darkness fades into the airlight
            // (level 225) with distance: nearest at the bottom.
            let nearness = Float(y - horizon) / Float(height - horizon)
            let texture = Float.random(in: 0...40, using: &generator)
            let object = (x / 6) % 4 == 0 ? texture : 120 + texture
            return nearness * object + (1 - nearness) * 225 + noise
        }
        let wall = (0..<(width * height)).map { _ in Float(128) + Float.random(in: -1...1, using: &generator) }
        let threshold = QualityPolicy.default.smudge
        for (name, scene) in [("night", night), ("fog", fog), ("wall", wall)] {
            let smudge = analyze(scene, width: width, height: height).smudge!
            #expect(smudge.confidence < threshold, "clean \(name): \(smudge.confidence) (veilFraction \(smudge.veilFraction), veilShare \(smudge.veilShare))")
        }
        for (name, scene) in [("night", night), ("fog", fog)] {
            let smudge = analyze(Scenes.smudged(scene, width: width, height: height, strength: 1), width: width, height: height).smudge!
            #expect(smudge.confidence > threshold, "filmed \(name): \(smudge.confidence)")
        }
    }

    @Test func exposureLaddersAreMonotoneWithDirection() {
        let scene = Scenes.photo(seed: 4)
        let over = [0, 0.7, 1.4, 2.1, 2.8].map { analyze(Scenes.exposed(scene, stops: Float($0)), width: width, height: height).exposure! }
        let under = [0, -1, -2, -3, -4].map { analyze(Scenes.exposed(scene, stops: Float($0)), width: width, height: height).exposure! }
        // Each direction's evidence grows along its own ladder (the confidence is the larger
        // of the two, so a slightly bright start may first fall when darkened).
        expectNonDecreasing(over.map(\.overEvidence), tolerance: 0.05, "over-exposure evidence \(over)")
        expectNonDecreasing(under.map(\.underEvidence), tolerance: 0.05, "under-exposure evidence \(under)")
        expectNonDecreasing(over.map(\.confidence), tolerance: 0.02, "over-exposure confidence \(over)")
        // The unaltered scene (median 141, a bit bright) passes the default policy.
        #expect(over.first!.confidence < QualityPolicy.default.exposure && over.first!.direction == .ok, "\(over.first!)")
        #expect(over.last!.confidence > 0.7 && over.last!.direction == .over, "\(over)")
        #expect(under.last!.confidence > 0.7 && under.last!.direction == .under, "\(under.map(\.confidence))")
    }

    /// Full resolution 2048 × 1536 and its half (area-downscaled): both are at least the
    /// analysis size, so both are measured at the same scale.
    @Test(arguments: [Float(0.5), 3, 8])
    func halfResolutionMovesNoConfidenceFarAndFlipsNoDecision(softness: Float) {
        for seed: UInt64 in [1, 6] {
            let full = Scenes.plane(Scenes.softPhoto(width: 2048, height: 1536, softness: softness, seed: seed), width: 2048, height: 1536)
            let half = AreaDownscale.downscale(full, by: 2)
            let a = QualityAnalyzer().analyze(AnalysisImage(luma: full, fullSize: full.size))
            let b = QualityAnalyzer().analyze(AnalysisImage(luma: half, fullSize: half.size))
            for (name, x, y) in [
                ("blur", a.blur!.confidence, b.blur!.confidence), ("smudge", a.smudge!.confidence, b.smudge!.confidence),
                ("exposure", a.exposure!.confidence, b.exposure!.confidence), ("aesthetic", a.aesthetic!.score, b.aesthetic!.score),
            ] {
                #expect(abs(x - y) <= 0.1, "\(name) seed \(seed) softness \(softness): full \(x), half \(y)")
            }
            #expect(QualityGate().decide(a).pass == QualityGate().decide(b).pass, "gate flipped at seed \(seed) softness \(softness)")
        }
    }

    /// A horizontal ramp of 2 levels a pixel: each 32-pixel tile's standard deviation is
    /// 2·√((32² − 1)/12) = 18.47 levels and its steep gradient 2 levels a pixel, so its spread
    /// across the ramp is 9.23 px (9.30 after quantisation noise is taken out); along the
    /// ramp there is no gradient, and the spread is the 64-px cap.
    @Test func aRampsSpreadIsItsDeviationOverItsSlope() {
        let ramp = (0..<(64 * 64)).map { Float(2 * ($0 % 64)) }
        let tiles = TileAnalysis(Scenes.plane(ramp, width: 64, height: 64))
        #expect(tiles.spreads[0].count == 4)
        for spread in tiles.spreads[0] { #expect(abs(spread - 9.30) < 0.05, "\(tiles.spreads[0])") }
        #expect(tiles.spreads[1] == [64, 64, 64, 64])
    }

    /// A shake that dwells at two points, 6 px apart, half the exposure at each: two sharp
    /// copies. Each edge keeps its sharpness, so the edge width stays; its gradient halves
    /// while texture uncorrelated at 6 px keeps 1/√2 of its deviation, so the spread grows by
    /// up to √2 (by 1.25 on this scene, whose texture is partly correlated at that distance)
    /// and the evidence of blur with it. On this scene that does not reach the threshold. The
    /// copies lie along the x axis, where the cepstral dip does not look (JPEG's blocks lie
    /// there): this shake is the spread's alone (`KernelCepstrumTests` has one the dip sees).
    @Test func twoSharpCopiesWidenTheSpreadNotTheEdgeWidth() {
        let scene = Scenes.photo(seed: 4)
        var shaken = scene
        for y in 0..<height { for x in 0..<width { shaken[y * width + x] = 0.5 * (scene[y * width + x] + scene[y * width + max(0, x - 6)]) } }
        let sharp = analyze(scene, width: width, height: height).blur!, copies = analyze(shaken, width: width, height: height).blur!
        #expect(copies.spread > 1.2 * sharp.spread && copies.spread < 1.42 * sharp.spread, "spread \(sharp.spread) → \(copies.spread)")
        #expect(abs(copies.edgeWidth / sharp.edgeWidth - 1) < 0.05, "edge width \(sharp.edgeWidth) → \(copies.edgeWidth)")
        #expect(copies.evidence > sharp.evidence, "evidence \(sharp.evidence) → \(copies.evidence)")
    }

    @Test func flatAndLowTextureScenesAreNotCalledBlurred() {
        var generator = SeededGenerator(seed: 11)
        let wall = (0..<(width * height)).map { _ in Float(228) + Float.random(in: -2...2, using: &generator) }
        #expect(analyze(wall, width: width, height: height).blur!.confidence < 0.3)
        let sky = (0..<(width * height)).map { i in Float(120 + 100 * (i / width)) / Float(height) + 100 }
        #expect(analyze(sky, width: width, height: height).blur!.confidence < 0.3)
    }

    @Test func aSharpSubjectOnASoftBackgroundIsSharp() {
        let background = Scenes.gaussian(Scenes.photo(seed: 8), width: width, height: height, sigma: 5)
        var composite = background
        let subject = Scenes.photo(seed: 9)
        // The subject covers 14% of the frame (the detector reads the sharpest 10% of tiles).
        for y in 110..<270 { for x in 160..<340 { composite[y * width + x] = subject[y * width + x] } }
        #expect(analyze(composite, width: width, height: height).blur!.confidence < 0.5)
        #expect(analyze(background, width: width, height: height).blur!.confidence > 0.8)
    }

    /// Blank lines between paragraphs make a multiple of the pitch correlate as well as the
    /// pitch: the estimate must still be the distance between lines, and the clean page
    /// reads as sharp text as large as its pitch.
    @Test func linePitchIsTheLineDistanceWhenParagraphsRepeat() {
        for lines in [3, 4, 5] {
            let report = analyze(Scenes.page(height: 1000, linesPerParagraph: lines), width: 600, height: 1000)
            #expect(abs(report.text!.linePitch - 30) < 1.5, "\(lines) lines per paragraph: \(report.text!.linePitch)")
            #expect(abs(report.text!.legibility - report.text!.linePitch) < 0.2 * report.text!.linePitch)
        }
    }

    @Test func aCleanPageIsNotOverExposedEvenWithClippedPaper() {
        for paper: Float in [245, 255] {
            let report = analyze(Scenes.page(paper: paper), width: 600, height: 800)
            #expect(report.exposure!.confidence < 0.5, "paper \(paper): \(report.exposure!)")
            #expect(report.exposure!.direction != .over)
            #expect(report.text!.detected)
            #expect(abs(report.text!.linePitch - 30) < 1.5, "line pitch \(report.text!.linePitch)")
        }
        // The same page washed out (ink lifted to 20 levels under the paper) is over-exposed.
        let washed = analyze(Scenes.page(paper: 255, ink: 235), width: 600, height: 800)
        #expect(washed.exposure!.direction == .over, "\(washed.exposure!) \(washed.text!)")
        #expect(washed.exposure!.confidence >= 0.5)
    }

    @Test func pagesAreUtilityPhotosAreNot() {
        #expect(analyze(Scenes.page(), width: 600, height: 800).aesthetic!.isUtility)
        #expect(!analyze(Scenes.photo(), width: width, height: height).aesthetic!.isUtility)
    }

    @Test func confidencesStayInRange() {
        for seed: UInt64 in 1...4 {
            let report = analyze(Scenes.photo(seed: seed), width: width, height: height)
            for value in [report.blur!.confidence, report.smudge!.confidence, report.exposure!.confidence, report.aesthetic!.score] {
                #expect(value >= 0 && value <= 1)
            }
        }
    }
}

@Suite("Quality gate")
struct GateTests {
    func report(blur: Double, exposure: Double, linePitch: Double = 0) -> QualityReport {
        var report = QualityReport(fullSize: ImageSize(width: 100, height: 100))
        report.blur = BlurObservation(confidence: blur, edgeWidth: 1, edgeWidthMedian: 1, texturedFraction: 1, laplacianVariance: 1, motionWidth: 0)
        report.exposure = ExposureObservation(
            confidence: exposure, direction: .ok, median: 128, p02: 0, p98: 255, shadowClip: 0, highlightClip: 0,
            underEvidence: 0, overEvidence: 0, inkLevel: -1)
        report.text = TextObservation(
            detected: linePitch > 0, strokeWidth: 2, inkFraction: 0.1, linePitch: linePitch, lineRegularity: 0.5,
            contrast: 200)
        // A page: characters found in lines (a photo with no text has none).
        report.text?.characters = linePitch > 0 ? 500 : 0
        return report
    }

    /// A report with text whose legibility and contrast are set.
    func textReport(blur: Double, legibility: Double, contrast: Double = 200, linePitch: Double = 40) -> QualityReport {
        var report = self.report(blur: blur, exposure: 0.9, linePitch: linePitch)
        report.text!.legibility = legibility
        report.text!.contrast = contrast
        return report
    }

    /// A predictor with round numbers: accuracy σ(ln legibility − 3) = L / (L + e³), so 0.5
    /// at legibility e³ ≈ 20.1; with the layout probe the laid-out share multiplies the odds.
    static let roundPredictor = ReadingPredictor(model: DetectorModel(
        detector: "text",
        evidence: [
            "accuracy": .init(intercept: -3, weights: ["logLegibility": 1], reference: ["logLegibility": log(60)]),
            "accuracyWithLayout": .init(
                intercept: -3, weights: ["logLegibility": 1, "logLaidOutShare": 1], reference: ["logLegibility": log(60), "logLaidOutShare": 0]),
        ],
        mapping: nil, thresholds: [:], fit: nil))

    /// The gate with `roundPredictor`, minimum predicted accuracy 0.5, and no legibility or size floors.
    static func documentGate(minimumLegibility: Double = 0) -> QualityGate {
        var policy = QualityPolicy(
            blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 0, minimumLegibility: minimumLegibility, minimumTextContrast: 20)
        policy.minimumPredictedAccuracy = 0.5
        return QualityGate(policy: policy, predictor: roundPredictor)
    }

    @Test func documentsAreJudgedByTheAccuracyTheRecognizerIsPredictedToReach() {
        let gate = Self.documentGate()
        // A dark (exposure 0.9) and photographically soft (blur 0.9) page of large, legible text passes.
        let legible = gate.decide(textReport(blur: 0.9, legibility: 60))
        #expect(legible.pass && legible.reasons.isEmpty && legible.predictor == "image" && legible.probe == nil)
        #expect(abs(legible.score - 60 / (60 + exp(3))) < 1e-12 && legible.predictedAccuracy == legible.score)
        // Legibility 10 under a line pitch of 40: the blur costs most of it.
        let blurred = gate.decide(textReport(blur: 0.1, legibility: 10))
        #expect(blurred.failures.map(\.message) == ["blurred text: predicted accuracy 0.3324 < 0.5"])
        // The same legibility from lines 12 pixels apart: the size is what is missing.
        let small = gate.decide(textReport(blur: 0.1, legibility: 10, linePitch: 12))
        #expect(small.failures.map(\.message) == ["text too small: predicted accuracy 0.3324 < 0.5"])
        #expect(gate.decide(textReport(blur: 0.1, legibility: 60, contrast: 10)).reasons == [.textContrast])
        // Monotone in legibility, and 0.5 where legibility is e³.
        let scores = [4.0, 8, 12, 16, 24, 40].map { gate.decide(textReport(blur: 0, legibility: $0)).score }
        #expect(scores == scores.sorted() && Set(scores).count == scores.count)
        #expect(abs(gate.decide(textReport(blur: 0, legibility: exp(3))).score - 0.5) < 1e-12)
        // A photo has no prediction.
        let photo = gate.decide(report(blur: 0.1, exposure: 0.1, linePitch: 0))
        #expect(photo.content == .photo && photo.predictedAccuracy == nil && photo.predictor == nil)
    }

    @Test func theLayoutProbeMovesThePredictionAndIsRecorded() {
        let gate = Self.documentGate()
        let page = textReport(blur: 0, legibility: 60)
        // Tesseract lays out half the text the finder saw: the odds halve, to 30 / (30 + e³).
        let half = LayoutProbeResult(probe: "scripted", lines: 10, characters: 250, laidOutShare: 0.5, milliseconds: 1)
        let probed = gate.decide(page, probe: half)
        #expect(probed.predictor == "image+layout" && probed.probe == half)
        #expect(abs(probed.score - 30 / (30 + exp(3))) < 1e-12 && probed.pass)
        // Laying out a tenth: 6 / (6 + e³), under 0.5, and the words say why.
        let tenth = LayoutProbeResult(probe: "scripted", lines: 2, characters: 50, laidOutShare: 0.1, milliseconds: 1)
        #expect(gate.decide(page, probe: tenth).failures.map(\.message) == ["text the recognizer does not find: predicted accuracy 0.23 < 0.5"])
        // A probe that failed leaves the image's model to decide.
        let failed = LayoutProbeResult(probe: "scripted", lines: 0, characters: 0, laidOutShare: 0, milliseconds: 1, error: "no data")
        let unprobed = gate.decide(page, probe: failed)
        #expect(unprobed.predictor == "image" && unprobed.score == gate.decide(page).score && unprobed.probe == failed)
    }
    @Test func legibilityIsLinePitchOverTheBlurLimitedResolution() {
        let text = TextObservation(
            detected: true, strokeWidth: 3, inkFraction: 0.1, linePitch: 30, lineRegularity: 0.5, contrast: 200)
        // Sharp (0.5 px is a sharp edge's own width): the pitch itself, at any scale.
        #expect(abs(text.legibility(edgeWidth: 0.5, scale: 3) - 30) < 1e-9)
        // Blurred: edge width √(0.25 + 4) at scale 1 is 2 px of blur: 30 / √5.
        #expect(abs(text.legibility(edgeWidth: 4.25.squareRoot(), scale: 1) - 30 / 5.0.squareRoot()) < 1e-9)
        // No line period: 13 stroke widths.
        var unlined = text
        unlined.linePitch = 0
        #expect(abs(unlined.legibility(edgeWidth: 0.5, scale: 1) - 39) < 1e-9)
        unlined.detected = false
        #expect(unlined.legibility(edgeWidth: 0.5, scale: 1) == 0)
    }

    @Test func reasonsNameTheFailingDetectors() {
        let gate = QualityGate(policy: QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 16))
        let clean = gate.decide(report(blur: 0.1, exposure: 0.1))
        #expect(clean.pass && clean.reasons.isEmpty)
        #expect(gate.decide(report(blur: 0.9, exposure: 0.1)).reasons == [.blur])
        #expect(gate.decide(report(blur: 0.9, exposure: 0.8)).reasons == [.blur, .exposure])
        #expect(gate.decide(report(blur: 0.1, exposure: 0.1)).content == .photo)
    }

    @Test func failuresCarryTheMeasurementAndThreshold() {
        let gate = Self.documentGate(minimumLegibility: 12)
        let illegible = gate.decide(textReport(blur: 0.1, legibility: 9.6))
        #expect(illegible.failures.map(\.reason) == [.predictedAccuracy, .textLegibility])
        #expect(illegible.failures.last == GateFailure(reason: .textLegibility, measured: 9.6, threshold: 12))
        #expect(illegible.failures.map(\.message) == ["blurred text: predicted accuracy 0.3234 < 0.5", "text illegible: legibility 9.6 < 12"])
        // A blur says its kind: motion when its motion evidence is above 0, else defocus.
        var shaken = report(blur: 0.8123, exposure: 0.1)
        shaken.blur?.motionEvidence = 1.5
        #expect(gate.decide(shaken).failures.map(\.message) == ["blurred (motion or camera shake): blur confidence 0.8123 > 0.5"])
        shaken.blur?.motionEvidence = -0.5
        #expect(gate.decide(shaken).failures.map(\.message) == ["blurred (out of focus): blur confidence 0.8123 > 0.5"])
        // Rejected below 0.5, a blur names no kind: the criterion's words.
        let gate45 = QualityGate(policy: QualityPolicy(blur: 0.45, smudge: 0.5, exposure: 0.5, minimumLinePitch: 16))
        let mild = gate45.decide(report(blur: 0.4812, exposure: 0.1))
        #expect(mild.failures.map(\.message) == ["blurred: blur confidence 0.4812 > 0.45"])
        // A photo's blur and a page's illegible text are different reasons.
        #expect(GateReason.blur != GateReason.textLegibility)
    }

    @Test func exposureFailuresSayWhichWay() {
        let gate = QualityGate(policy: QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 16))
        var dark = report(blur: 0.1, exposure: 0.9)
        dark.exposure?.direction = .under
        let failure = gate.decide(dark).failures
        #expect(failure.map(\.message) == ["underexposed: exposure confidence 0.9 > 0.5"])
        #expect(failure.map(\.words) == ["underexposed"] && failure.map(\.brief) == ["underexposed 0.9>0.5"])
        dark.exposure?.direction = .over
        #expect(gate.decide(dark).failures.map(\.words) == ["overexposed"])
        // Every reason explains itself for --help.
        #expect(GateReason.allCases.allSatisfy { !$0.words.isEmpty && $0.explanation.count > 20 })
    }

    @Test func aMinimumScoreRejectsWhatPassesEachCheck() {
        var policy = QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 16)
        policy.minimumScore = 0.9
        let decision = QualityGate(policy: policy).decide(report(blur: 0.4, exposure: 0))
        #expect(!decision.pass && decision.reasons == [.score], "\(decision)")
        #expect(decision.failures.first?.threshold == 0.9 && decision.failures.first?.message.hasPrefix("low gate score: gate score 0.6") == true)
    }

    /// The member-wise policy takes every built-in photo criterion; noise and compression left
    /// out keep the bundled models' thresholds, as the models' own policy has them.
    @Test func memberwisePolicySetsNoiseAndCompression() {
        let set = QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, noise: 0.3, compression: 0.4, minimumLinePitch: 0)
        #expect(set.noise == 0.3 && set.compression == 0.4 && set.confidenceThresholds["noise"] == 0.3)
        let left = QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 0)
        #expect(left.noise == QualityPolicy.default.noise && left.compression == QualityPolicy.default.compression)
        #expect(QualityPolicy.default.noise == ModelSet.bundled.threshold("noise", of: "noise"))
        var changed = left
        changed.compression = 0.9
        #expect(changed.confidenceThresholds["compression"] == 0.9)
    }

    @Test func scoreFallsAsDefectsGrow() {
        let gate = QualityGate(policy: QualityPolicy(blur: 0.5, smudge: 0.5, exposure: 0.5, minimumLinePitch: 16))
        let scores = [0.0, 0.2, 0.5, 0.8, 1.0].map { gate.decide(report(blur: $0, exposure: 0)).score }
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 > $1 })
        #expect(scores.first == 1 && abs(scores[2] - 0.5) < 1e-9 && scores.last == 0)
    }

    @Test func policyFromJSONKeepsDefaultsForMissingKeys() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("policy.json", Array(#"{"blur":0.05}"#.utf8))
        let policy = try QualityPolicy.load(contentsOf: path)
        #expect(policy.blur == 0.05 && policy.exposure == QualityPolicy.default.exposure)
        #expect(!QualityGate(policy: policy).decide(report(blur: 0.1, exposure: 0)).pass)
        #expect(QualityGate().decide(report(blur: 0.1, exposure: 0)).pass)
    }

    /// A policy written as JSON reads back as the same policy: its photo criteria by name,
    /// the gate's own keys beside them.
    @Test func aPolicyWrittenAsJSONReadsBack() throws {
        var policy = QualityPolicy.default
        try policy.setThreshold("smudge", to: 0.42)
        try policy.setThreshold("minimumTextContrast", to: 17)
        policy.content = .photo
        let data = try JSONEncoder().encode(policy)
        let members = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(members["smudge"] as? Double == 0.42 && members["minimumTextContrast"] as? Double == 17 && members["content"] as? String == "photo")
        #expect(try JSONDecoder().decode(QualityPolicy.self, from: data) == policy)
        #expect(try JSONDecoder().decode(QualityPolicy.self, from: Data("{}".utf8)) == QualityPolicy.default)
    }
}

@Suite("Vision-style requests")
struct RequestTests {
    @Test func aHandlerDecodesOnceAndAnswersEveryRequest() throws {
        let handler = try ImageRequestHandler(contentsOf: Fixtures.path("jpeg/large.jpg"))
        let smudge = handler.perform(DetectLensSmudgeRequest())
        let blur = handler.perform(DetectBlurRequest())
        let exposure = handler.perform(DetectExposureRequest())
        let aesthetics = handler.perform(CalculateImageAestheticsScoresRequest())
        let (report, decision) = handler.perform(DetectTextReadinessRequest())
        // The requests agree with the analyzer run on the same pixels.
        #expect(smudge == report.smudge && blur == report.blur && exposure == report.exposure)
        #expect(aesthetics == report.aesthetic)
        #expect(aesthetics.overallScore == aesthetics.score)
        #expect(decision == QualityGate().decide(report))
        #expect(handler.image.fullSize == ImageSize(width: 256, height: 192))
    }

    @Test func aHandlerReportsDecodeErrors() {
        #expect(throws: ImagingError.self) { try ImageRequestHandler(contentsOf: Fixtures.path("png/truncated.png")) }
    }
}
