import Foundation
import QualityMetrics

/// Per-detector thresholds: an image passes when every confidence is at or below its
/// threshold and, when text lines are found, they are far enough apart to read.
///
/// Loaded from JSON (`--policy FILE`), every key optional:
/// `{"blur":0.5,"smudge":0.6,"exposure":0.5,"minimumLinePitch":16}`.
public struct QualityPolicy: Sendable, Equatable, Codable {
    /// Highest blur confidence that passes.
    public var blur: Double
    /// Highest smudge confidence that passes.
    public var smudge: Double
    /// Highest exposure confidence that passes.
    public var exposure: Double
    /// Smallest distance between text lines that passes, in full-resolution pixels.
    /// Body text's x-height is about a third of its line pitch; Tesseract reads x-heights
    /// from about 6–10 px. On real phone photos of documents, pages with a line pitch
    /// under 18 px lost on average a quarter of their words (`Scripts/measure/accuracy.py`).
    public var minimumLinePitch: Double

    public static let `default` = QualityPolicy(blur: 0.5, smudge: 0.6, exposure: 0.5, minimumLinePitch: 16)

    public init(blur: Double, smudge: Double, exposure: Double, minimumLinePitch: Double) {
        self.blur = blur
        self.smudge = smudge
        self.exposure = exposure
        self.minimumLinePitch = minimumLinePitch
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fallback = QualityPolicy.default
        blur = try container.decodeIfPresent(Double.self, forKey: .blur) ?? fallback.blur
        smudge = try container.decodeIfPresent(Double.self, forKey: .smudge) ?? fallback.smudge
        exposure = try container.decodeIfPresent(Double.self, forKey: .exposure) ?? fallback.exposure
        minimumLinePitch = try container.decodeIfPresent(Double.self, forKey: .minimumLinePitch) ?? fallback.minimumLinePitch
    }

    /// Reads a policy file.
    public static func load(contentsOf path: String) throws -> QualityPolicy {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(QualityPolicy.self, from: data)
    }
}

/// Whether an image is ready for text recognition, how ready, and why not.
public struct GateDecision: Sendable, Equatable {
    public var pass: Bool
    /// Readiness for text recognition, 0–1 (1 = ready).
    public var score: Double
    /// The detectors that failed (`blur`, `smudge`, `exposure`, `textSize`), in that order.
    public var reasons: [String]
}

/// The quality gate in front of a text recognizer.
public struct QualityGate: Sendable {
    public var policy: QualityPolicy

    public init(policy: QualityPolicy = .default) {
        self.policy = policy
    }

    /// Decides on a report. Detectors that were not run neither fail nor lower the score.
    ///
    /// The score multiplies one factor per detector: `1 − confidence` scaled so a
    /// confidence at the threshold gives 0.5, and a text-size factor that is 0.5 at the
    /// minimum line pitch and 1 at three times it.
    public func decide(_ report: QualityReport) -> GateDecision {
        var reasons: [String] = []
        var score = 1.0
        func factor(_ confidence: Double, threshold: Double) -> Double {
            // Piecewise linear: 1 at confidence 0, 0.5 at the threshold, 0 at 1.
            if confidence <= threshold { return 1 - 0.5 * confidence / max(threshold, 1e-9) }
            return 0.5 * (1 - confidence) / max(1 - threshold, 1e-9)
        }
        if let blur = report.blur {
            if blur.confidence > policy.blur { reasons.append("blur") }
            score *= factor(blur.confidence, threshold: policy.blur)
        }
        if let smudge = report.smudge {
            if smudge.confidence > policy.smudge { reasons.append("smudge") }
            score *= factor(smudge.confidence, threshold: policy.smudge)
        }
        if let exposure = report.exposure {
            if exposure.confidence > policy.exposure { reasons.append("exposure") }
            score *= factor(exposure.confidence, threshold: policy.exposure)
        }
        if let text = report.text, text.linePitch > 0 {
            let ratio = text.linePitch / max(policy.minimumLinePitch, 1e-9)
            if ratio < 1 { reasons.append("textSize") }
            score *= ratio < 1 ? 0.5 * max(0, ratio) : min(1, 0.5 + 0.25 * (ratio - 1))
        }
        return GateDecision(pass: reasons.isEmpty, score: max(0, min(1, score)), reasons: reasons)
    }
}
