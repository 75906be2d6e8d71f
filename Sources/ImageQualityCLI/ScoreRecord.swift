import Foundation
import ImageCodecs
import ImagingCore
import QualityGating
import QualityMetrics

/// Decodes, analyses and gates one image at a time; one per worker thread.
final class ImageScorer {
    private let decoder: ImageDecoder
    private let analyzer: QualityAnalyzer
    private let gate: QualityGate

    init(options: DecodeOptions, analyzer: QualityAnalyzer, policy: QualityPolicy) {
        decoder = ImageDecoder(options: QualityAnalyzer.decodeOptions(for: analyzer.detectors, base: options))
        self.analyzer = analyzer
        gate = QualityGate(policy: policy)
    }

    func score(path: String) -> ScoreRecord {
        let clock = ContinuousClock()
        let start = clock.now
        let result: Result<ScoredImage, ImagingError>
        do {
            let image = try decoder.decode(contentsOf: path)
            let report = analyzer.analyze(AnalysisImage(image))
            result = .success(ScoredImage(image, report: report, decision: gate.decide(report)))
        } catch {
            result = .failure(error)
        }
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return ScoreRecord(path: path, result: result, elapsedMs: milliseconds)
    }
}

/// What the record keeps of a decoded and analysed image.
struct ScoredImage: Sendable {
    var format: ImageFormat
    var size: ImageSize
    var pageCount: Int
    var warnings: [DecodeWarning]
    var report: QualityReport
    var decision: GateDecision

    init(_ image: DecodedImage, report: QualityReport, decision: GateDecision) {
        format = image.format
        size = image.orientedSize
        pageCount = image.pageCount
        warnings = image.warnings
        self.report = report
        self.decision = decision
    }
}

/// A number rounded to 4 decimals for records.
func rounded(_ value: Double) -> JSONValue {
    .double((value * 10_000).rounded() / 10_000)
}

/// One input's outcome, printable in every output format.
struct ScoreRecord: Sendable {
    var path: String
    var result: Result<ScoredImage, ImagingError>
    var elapsedMs: Double

    var isFailure: Bool {
        if case .failure = result { return true }
        return false
    }

    /// Whether the gate passed (false for failures).
    var passed: Bool {
        if case .success(let image) = result { return image.decision.pass }
        return false
    }

    /// The JSON Lines record of DESIGN.md.
    var json: JSONValue {
        switch result {
        case .failure(let error):
            return .object([
                ("path", .string(path)),
                ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
            ])
        case .success(let image):
            var members: [(String, JSONValue)] = [
                ("path", .string(path)),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
            ]
            if image.pageCount > 1 { members.append(("pages", .int(image.pageCount))) }
            members += Self.detectorMembers(image.report)
            let decision = image.decision
            members.append((
                "gate",
                .object([
                    ("pass", .bool(decision.pass)), ("score", rounded(decision.score)),
                    ("reasons", .array(decision.reasons.map(JSONValue.string))),
                ])
            ))
            if !image.warnings.isEmpty {
                members.append((
                    "warnings",
                    .array(image.warnings.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
                ))
            }
            members.append(("elapsedMs", .double((elapsedMs * 10).rounded() / 10)))
            return .object(members)
        }
    }

    static func detectorMembers(_ report: QualityReport) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        if let blur = report.blur {
            members.append((
                "blur",
                .object([
                    ("confidence", rounded(blur.confidence)), ("edgeWidth", rounded(blur.edgeWidth)),
                    ("edgeWidthMedian", rounded(blur.edgeWidthMedian)), ("texturedFraction", rounded(blur.texturedFraction)),
                    ("motionWidth", rounded(blur.motionWidth)), ("laplacianVariance", rounded(blur.laplacianVariance)),
                ])
            ))
        }
        if let smudge = report.smudge {
            members.append((
                "smudge",
                .object([
                    ("confidence", rounded(smudge.confidence)), ("spectralSlope", rounded(smudge.spectralSlope)),
                    ("slopeSpread", rounded(smudge.slopeSpread)), ("highFrequency", rounded(smudge.highFrequency)),
                    ("veil", rounded(smudge.veil)), ("softness", rounded(smudge.softness)),
                    ("widthSpread", rounded(smudge.widthSpread)), ("softIslands", rounded(smudge.softIslands)),
                    ("evidence", rounded(smudge.evidence)),
                ])
            ))
        }
        if let exposure = report.exposure {
            members.append((
                "exposure",
                .object([
                    ("confidence", rounded(exposure.confidence)), ("direction", .string(exposure.direction.rawValue)),
                    ("median", rounded(exposure.median)), ("p02", rounded(exposure.p02)), ("p98", rounded(exposure.p98)),
                    ("shadowClip", rounded(exposure.shadowClip)), ("highlightClip", rounded(exposure.highlightClip)),
                    ("underEvidence", rounded(exposure.underEvidence)), ("overEvidence", rounded(exposure.overEvidence)),
                    ("inkLevel", rounded(exposure.inkLevel)),
                ])
            ))
        }
        if let aesthetic = report.aesthetic {
            members.append((
                "aesthetic",
                .object([
                    ("score", rounded(aesthetic.score)), ("isUtility", .bool(aesthetic.isUtility)),
                    ("contrast", rounded(aesthetic.contrast)), ("colourfulness", rounded(aesthetic.colourfulness)),
                    ("noise", rounded(aesthetic.noise)), ("composition", rounded(aesthetic.composition)),
                    ("utilityEvidence", rounded(aesthetic.utilityEvidence)),
                ])
            ))
        }
        if let text = report.text {
            members.append((
                "text",
                .object([
                    ("detected", .bool(text.detected)), ("strokeWidth", rounded(text.strokeWidth)),
                    ("inkFraction", rounded(text.inkFraction)), ("linePitch", rounded(text.linePitch)),
                    ("lineRegularity", rounded(text.lineRegularity)), ("contrast", rounded(text.contrast)),
                    ("softEdgeWidth", rounded(text.softEdgeWidth)), ("edgeAnisotropy", rounded(text.edgeAnisotropy)),
                    ("legibility", rounded(text.legibility)),
                ])
            ))
        }
        return members
    }

    /// Columns of the flat formats (csv, tsv, table).
    static let columns: [Column] = [
        Column(header: "status", path: "status", width: 24),
        Column(header: "format", path: "format", width: 7),
        Column(header: "width", path: "width", width: 7),
        Column(header: "height", path: "height", width: 7),
        Column(header: "blur", path: "blur", width: 7),
        Column(header: "smudge", path: "smudge", width: 7),
        Column(header: "exposure", path: "exposure", width: 9),
        Column(header: "aesthetic", path: "aesthetic", width: 10),
        Column(header: "gate", path: "gate", width: 6),
        Column(header: "gateScore", path: "gateScore", width: 10),
        Column(header: "elapsedMs", path: "elapsedMs", width: 10),
        Column(header: "path", path: "path", width: 40),
        Column(header: "message", path: "message"),
    ]

    /// The record flattened for the columns above: `status` is `ok`, the first warning's
    /// code, or the error's code; `message` says why (warnings, or the gate's reasons).
    var flat: JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(path))]
        switch result {
        case .failure(let error):
            members += [("status", .string(error.code)), ("message", .string(error.message))]
        case .success(let image):
            let report = image.report
            members += [
                ("status", .string(image.warnings.first?.code ?? "ok")),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
            ]
            if let blur = report.blur { members.append(("blur", rounded(blur.confidence))) }
            if let smudge = report.smudge { members.append(("smudge", rounded(smudge.confidence))) }
            if let exposure = report.exposure { members.append(("exposure", rounded(exposure.confidence))) }
            if let aesthetic = report.aesthetic { members.append(("aesthetic", rounded(aesthetic.score))) }
            members += [
                ("gate", .string(image.decision.pass ? "pass" : "reject")),
                ("gateScore", rounded(image.decision.score)),
                ("elapsedMs", .double((elapsedMs * 10).rounded() / 10)),
                ("message", .string((image.decision.reasons + image.warnings.map(\.message)).joined(separator: "; "))),
            ]
        }
        return .object(members)
    }
}
