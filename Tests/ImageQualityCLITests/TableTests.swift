import ArgumentParser
import Foundation
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics
import Testing
import _ImagingTestSupport

@testable import ImageQualityCLI

/// Assessments with known decisions, for the table, the summary and ranking.
enum Batch {
    static func photo(_ path: String, score: Double, blur: Double = 0.1, exposure: Double = 0.1, failures: [GateFailure] = []) -> Assessment {
        var report = QualityReport(fullSize: ImageSize(width: 640, height: 480))
        report.blur = BlurObservation(confidence: blur, edgeWidth: 1, edgeWidthMedian: 1, texturedFraction: 1, laplacianVariance: 1, motionWidth: 0)
        report.exposure = ExposureObservation(
            confidence: exposure, direction: .under, median: 40, p02: 0, p98: 120, shadowClip: 0.2, highlightClip: 0,
            underEvidence: 2, overEvidence: -4, inkLevel: -1)
        let decision = GateDecision(pass: failures.isEmpty, score: score, content: .photo, failures: failures)
        let image = AssessedImage(format: .jpeg, size: report.fullSize, pageCount: 1, report: report, decision: decision, warnings: [])
        return Assessment(path: path, outcome: .assessed(image), elapsedMilliseconds: 12)
    }

    static func failed(_ path: String) -> Assessment {
        Assessment(path: path, outcome: .failed(ImagingError(.truncated, "PNG: unexpected end of PNG data")))
    }

    static let dark = GateFailure(reason: .exposure, measured: 0.9377, threshold: 0.4487, words: "underexposed")
    static let illegible = GateFailure(reason: .textLegibility, measured: 9.6, threshold: 12)

    static let mixed = [
        photo("photos/2024/holiday/IMG_0001.jpg", score: 0.69),
        photo("photos/2024/holiday/with a very long folder name that does not fit/IMG_0002.jpg", score: 0.04, exposure: 0.94, failures: [dark]),
        photo("scans/receipt.png", score: 0.3, failures: [illegible, dark]),
        failed("broken.png"),
    ]
}

@Suite("Table and summary")
struct TableTests {
    @Test func rowsFitEightyColumnsAndNeverShift() throws {
        var writer = RecordWriter(format: .table, width: 80)
        let lines = Batch.mixed.map { writer.text(for: $0) }.joined().split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        for line in lines { #expect(line.count <= 80, "\(line.count): \(line)") }
        // The path column starts at the same place on every row, header included.
        let pathColumn = try #require(lines[0].range(of: "path")).lowerBound.utf16Offset(in: lines[0])
        #expect(lines[1].dropFirst(pathColumn).hasSuffix("/IMG_0001.jpg"))
        #expect(lines[3].dropFirst(pathColumn).hasPrefix("scans/receipt.png"))
        #expect(lines[4].dropFirst(pathColumn).hasPrefix("broken.png"))
        // A long path keeps its start and its file name, elided in the middle.
        let elided = String(lines[2].dropFirst(pathColumn))
        #expect(elided.hasPrefix("photos") && elided.contains("…") && elided.hasSuffix("/IMG_0002.jpg"), "\(elided)")
        // Decisions and reasons in words, with the values.
        #expect(lines[1].hasPrefix("pass ") && lines[2].hasPrefix("reject ") && lines[4].hasPrefix("failed "))
        #expect(lines[2].contains("underexposed 0.94>0.45"), "\(lines[2])")
        #expect(lines[3].contains("text illegible 9.6<12"), "\(lines[3])")
        #expect(lines[4].contains("truncated: PNG"), "\(lines[4])")
        // The numbers line up under their headers' right edges.
        let score = try #require(lines[0].range(of: "score")).upperBound.utf16Offset(in: lines[0])
        let scores = lines[1...3].map { String(Array($0)[score - 4..<score]) }
        #expect(scores == ["0.69", "0.04", "0.30"])
    }

    @Test func widerTerminalsGiveThePathMoreRoom() {
        let narrow = TableLayout(width: 80), wide = TableLayout(width: 160)
        #expect(narrow.pathWidth >= 24 && wide.pathWidth > narrow.pathWidth + 40)
        #expect(wide.row(for: Batch.mixed[1]).contains("with a very long folder name that does not fit/IMG_0002.jpg"))
        #expect(TableLayout.elidedInTheMiddle("abcdefghij", 10) == "abcdefghij")
        #expect(TableLayout.elidedInTheMiddle("abcdefghijklmnop", 9) == "ab…klmnop")
        #expect(TableLayout.words(code: "decode.unsupportedFormat") == "unsupported format")
    }

    @Test func csvMessagesAreInWords() {
        var writer = RecordWriter(format: .csv)
        let text = Batch.mixed.map { writer.text(for: $0) }.joined()
        #expect(text.contains("text illegible: legibility 9.6 < 12; underexposed: exposure confidence 0.9377 > 0.4487"), "\(text)")
    }

    @Test func theSummaryCountsDecisionsReasonsAndFailures() {
        var summary = BatchSummary()
        Batch.mixed.forEach { summary.add($0) }
        #expect(summary.passed == 1 && summary.rejected == 2 && summary.failed == 1)
        #expect(summary.rejections == ["underexposed": 2, "text illegible": 1])
        let text = summary.text(elapsed: .milliseconds(2000))
        #expect(text == """
            4 images in 2.0 s, 2.0/s: 1 passed, 2 rejected, 1 failed
              rejected: 2 underexposed, 1 text illegible
              failed:   1 decode.truncated

            """, "\(text)")
        // Long lists wrap under their first item.
        var many = BatchSummary()
        many.rejected = 60
        many.rejections = ["underexposed": 20, "overexposed": 15, "smudged lens": 10, "text illegible": 8, "text too small": 5, "blurred": 2]
        let wrapped = many.text(elapsed: .seconds(1), width: 62).split(separator: "\n")
        #expect(Array(wrapped.dropFirst()) == [
            "  rejected: 20 underexposed, 15 overexposed, 10 smudged lens,", "            8 text illegible, 5 text too small, 2 blurred",
        ], "\(wrapped)")
    }

    @Test func keepBestPassesTheTopOfTheBatchByScore() {
        var batch = (0..<10).map { Batch.photo("p\($0).jpg", score: Double($0) / 10, failures: $0 < 3 ? [Batch.dark] : []) }
        batch.append(Batch.failed("broken.png"))
        QualityGate.keepBest(0.25, of: &batch)
        // 10 assessed images: the best 3 (rounded up) pass, whatever their absolute failures were.
        #expect(batch.filter(\.passed).map(\.path) == ["p7.jpg", "p8.jpg", "p9.jpg"])
        let rejected = batch[6].image!.decision
        #expect(rejected.reasons == [.score] && rejected.failures[0].threshold == 0.7)
        #expect(rejected.failures[0].message == "not in the best 25%: gate score 0.6 < 0.7")
        #expect(batch[9].image!.decision.failures.isEmpty && !batch[10].passed)
        // Ties with the cutoff all pass.
        var tied = (0..<4).map { Batch.photo("t\($0).jpg", score: 0.5) }
        QualityGate.keepBest(0.25, of: &tied)
        #expect(tied.filter(\.passed).count == 4)
    }

    @Test func thresholdsFromTheCommandLineApplyAfterThePolicyFile() throws {
        let folder = try TemporaryDirectory()
        let policy = try folder.write("policy.json", Array(#"{"blur":0.4,"smudge":0.9}"#.utf8))
        let flags = try AnalysisFlags.parse(["--policy", policy, "--threshold", "blur=0.2", "--threshold", "minimumLegibility=14", "--fail-under", "0.3"])
        let resolved = try flags.configuration(decodeOptions: .init()).gate.policy
        #expect(resolved.blur == 0.2 && resolved.smudge == 0.9 && resolved.minimumLegibility == 14 && resolved.minimumScore == 0.3)
        #expect(resolved.exposure == QualityPolicy.default.exposure)
        #expect(ThresholdSetting(argument: "blur") == nil && ThresholdSetting(argument: "blur=x") == nil)
        #expect(throws: (any Error).self) { try AnalysisFlags.parse(["--threshold", "blurr=0.2"]) }
        #expect(throws: (any Error).self) { try AnalysisFlags.parse(["--fail-under", "2"]) }
        #expect(Percentage(argument: "10%")?.fraction == 0.1 && Percentage(argument: "0") == nil && Percentage(argument: "101%") == nil)
    }

    @Test func policyAndProfileFilesRefuseUnknownKeys() throws {
        let folder = try TemporaryDirectory()
        let typo = try folder.write("typo.json", Array(#"{"blurr":0.1}"#.utf8))
        #expect(throws: PolicyError(.unknownKey, "the policy \(typo) has an unknown key \"blurr\" (known: blur, smudge, exposure, noise, compression, minimumPredictedAccuracy, minimumLinePitch, minimumLegibility, minimumTextContrast, minimumScore, content)")) {
            try QualityPolicy.load(contentsOf: typo)
        }
        let wrongType = try folder.write("type.json", Array(#"{"blur":"high"}"#.utf8))
        #expect(throws: PolicyError(.invalid, "the policy \(wrongType): \"blur\" must be a number")) { try QualityPolicy.load(contentsOf: wrongType) }
        #expect(throws: PolicyError(.unreadable, "cannot read the policy \(folder.path)/none.json: no such file")) {
            try QualityPolicy.load(contentsOf: folder.path + "/none.json")
        }
        let profile = try folder.write(
            "profile.json", Array(#"{"version":1,"created":"","command":"","dataset":"","detectors":{},"thresholds":{}}"#.utf8))
        #expect(throws: ProfileError(.invalid, "\(profile) has an unknown key \"thresholds\" (known there: version, created, command, dataset, detectors, gate, models)")) {
            try QualityProfile.load(contentsOf: profile)
        }
        // Below the top level too, and values out of range.
        let blur = #""blur":{"measure":"evidence","mapping":{"midpoint":0.2,"slope":1.1,"logarithmic":false},"threshold":0.3,"target":"best F1"}"#
        func profileFile(_ name: String, _ detectors: String, gate: String = "") throws -> String {
            try folder.write(name, Array(#"{"version":1,"created":"","command":"","dataset":"","detectors":{"#.utf8) + Array(detectors.utf8) + Array("}\(gate)}".utf8))
        }
        #expect(try QualityProfile.load(contentsOf: profileFile("good.json", blur)).detectors["blur"]?.threshold == 0.3)
        // A mapping fitted on another measure than the detector's (blur's edge width, before
        // blur mapped an evidence) is refused, not applied to the wrong numbers.
        let older = try profileFile(
            "older.json", #""blur":{"measure":"edgeWidth","mapping":{"midpoint":1.4,"slope":12,"logarithmic":true},"threshold":0.3,"target":"best F1"}"#)
        #expect(
            throws: ProfileError(
                .invalid,
                "\(older): detectors.blur maps \"edgeWidth\", but this version calibrates blur on \"evidence\": recalibrate with imgquality calibrate --detector blur")
        ) { try QualityProfile.load(contentsOf: older) }
        let nested = try profileFile("nested.json", blur.replacingOccurrences(of: #""slope":1.1"#, with: #""slope":1.1,"foo":1"#))
        #expect(throws: ProfileError(.invalid, "\(nested) has an unknown key \"detectors.blur.mapping.foo\" (known there: midpoint, slope, logarithmic)")) {
            try QualityProfile.load(contentsOf: nested)
        }
        let gateTypo = try profileFile("gate.json", blur, gate: #","gate":{"minimumScore":0.5,"target":"","blurr":1}"#)
        #expect(throws: ProfileError(.invalid, "\(gateTypo) has an unknown key \"gate.blurr\" (known there: minimumScore, target, auc, accuracyMapping, minimumPredictedAccuracy)")) {
            try QualityProfile.load(contentsOf: gateTypo)
        }
        let negative = try profileFile("negative.json", blur.replacingOccurrences(of: #""threshold":0.3"#, with: #""threshold":-3"#))
        #expect(throws: ProfileError(.invalid, "\(negative): detectors.blur.threshold must be a confidence from 0 to 1, got -3.0")) {
            try QualityProfile.load(contentsOf: negative)
        }
        let above = try profileFile("above.json", blur, gate: #","gate":{"minimumScore":7,"target":""}"#)
        #expect(throws: ProfileError(.invalid, "\(above): gate.minimumScore must be a gate score from 0 to 1, got 7.0")) {
            try QualityProfile.load(contentsOf: above)
        }
        let outOfRange = try folder.write("range.json", Array(#"{"blur":-1}"#.utf8))
        #expect(throws: PolicyError(.invalid, "the policy \(outOfRange): blur must be from 0 to 1, got -1.0")) { try QualityPolicy.load(contentsOf: outOfRange) }
        #expect(throws: (any Error).self) { try AnalysisFlags.parse(["--threshold", "minimumLinePitch=-5"]) }
        #expect(throws: (any Error).self) { try AnalysisFlags.parse(["--threshold", "minimumScore=2"]) }
    }

    /// A profile's `models` replace the bundled models (weights and thresholds) before its
    /// calibrations map their output; a model that does not fit its detector is refused.
    @Test func aProfileCanReplaceAWholeModel() throws {
        let folder = try TemporaryDirectory()
        let smudge = #"{"format":1,"detector":"smudge","evidence":{"smudge":{"intercept":2.5,"weights":{"veilFraction":1,"veilShare":2}}},"mapping":{"midpoint":0,"slope":1,"logarithmic":false},"thresholds":{"smudge":{"value":0.25,"rule":"test"}}}"#
        let good = try folder.write(
            "good.json", Array(#"{"version":1,"created":"","command":"","dataset":"","detectors":{},"models":{"smudge":"#.utf8) + Array(smudge.utf8) + Array("}}".utf8))
        var analyzer = QualityAnalyzer(), policy = QualityPolicy.default
        try QualityProfile.load(contentsOf: good).apply(to: &analyzer, policy: &policy)
        #expect(analyzer.smudge.evidence == .init(intercept: 2.5, weights: ["veilFraction": 1, "veilShare": 2]))
        #expect(policy.smudge == 0.25 && policy.blur == QualityPolicy.default.blur)

        let short = smudge.replacingOccurrences(of: #","veilShare":2"#, with: "")
        let broken = try folder.write(
            "broken.json", Array(#"{"version":1,"created":"","command":"","dataset":"","detectors":{},"models":{"smudge":"#.utf8) + Array(short.utf8) + Array("}}".utf8))
        #expect(throws: ProfileError(.invalid, "\(broken): models.smudge: evidence \"smudge\" must weigh veilFraction, veilShare, has veilFraction")) {
            try QualityProfile.load(contentsOf: broken)
        }
        let misnamed = try folder.write(
            "misnamed.json", Array(#"{"version":1,"created":"","command":"","dataset":"","detectors":{},"models":{"blur":"#.utf8) + Array(smudge.utf8) + Array("}}".utf8))
        #expect(throws: ProfileError(.invalid, "\(misnamed): models.blur holds a model of \"smudge\"")) {
            try QualityProfile.load(contentsOf: misnamed)
        }
    }
}
