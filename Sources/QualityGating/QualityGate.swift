import Foundation
import ImagingCore
import QualityMetrics

/// Per-detector thresholds: a photo passes when every confidence is at or below its
/// threshold; a document when the accuracy the recognizer is predicted to reach on it is at
/// least `minimumPredictedAccuracy` and its ink stands out from the paper.
///
/// Loaded from JSON (`--policy FILE`), every key optional:
/// `{"blur":0.8,"smudge":0.7,"exposure":0.7,"minimumPredictedAccuracy":0.6,"minimumTextContrast":12}`
/// (the defaults come from the bundled models).
public struct QualityPolicy: Sendable, Equatable, Codable {
    /// Highest blur confidence that passes.
    public var blur: Double
    /// Highest smudge confidence that passes.
    public var smudge: Double
    /// Highest exposure confidence that passes.
    public var exposure: Double
    /// Smallest predicted word accuracy (`GateDecision.predictedAccuracy`, 0–1) that passes a
    /// document; below it the reason is `predictedAccuracy`.
    public var minimumPredictedAccuracy: Double = ModelSet.bundled.threshold("minimumPredictedAccuracy", of: "text")
    /// Smallest distance between text lines that passes, in full-resolution pixels (reason
    /// `textSize`); 0, the default, checks nothing: the predicted accuracy weighs size.
    public var minimumLinePitch: Double
    /// Smallest legibility (`TextObservation.legibility`: line pitch over the resolution
    /// blur leaves) that passes a document; below it the reason is `textLegibility`. 0, the
    /// default, checks nothing: the predicted accuracy weighs legibility.
    public var minimumLegibility: Double
    /// Smallest ink-to-paper contrast (8-bit levels) that passes, for images with text;
    /// below it the reason is `textContrast`.
    public var minimumTextContrast: Double
    /// Smallest `gate.score` that passes (0: only the per-criterion checks decide); below
    /// it the reason is `score`.
    public var minimumScore: Double = 0
    /// How images are judged: by what the text detector finds (`auto`), or always as a
    /// document or as a photo.
    public var content: ContentJudgement = .auto
    /// A calibration profile's refit of the predicted accuracy to the accuracy measured on
    /// the user's pages (`imgquality calibrate --detector gate` with scores); none by
    /// default. Profiles set it, policy files do not.
    public var accuracyMapping: AccuracyMapping?

    /// The built-in thresholds, from the bundled detector models: each model file
    /// (`Sources/QualityMetrics/Models/`) states its thresholds with the rule they were
    /// chosen by (`thresholds.<key>.rule`) and the command that chose them (`fit.command`).
    public static var `default`: QualityPolicy { QualityPolicy(models: .bundled) }

    /// The thresholds the models of `models` set.
    public init(models: ModelSet) {
        self.init(
            blur: models.threshold("blur", of: "blur"), smudge: models.threshold("smudge", of: "smudge"),
            exposure: models.threshold("exposure", of: "exposure"),
            minimumLinePitch: models.threshold("minimumLinePitch", of: "text"),
            minimumLegibility: models.threshold("minimumLegibility", of: "text"),
            minimumTextContrast: models.threshold("minimumTextContrast", of: "text"))
        minimumPredictedAccuracy = models.threshold("minimumPredictedAccuracy", of: "text")
    }

    /// - Parameters: the text minimums default to the bundled text model's.
    public init(
        blur: Double, smudge: Double, exposure: Double, minimumLinePitch: Double,
        minimumLegibility: Double = ModelSet.bundled.threshold("minimumLegibility", of: "text"),
        minimumTextContrast: Double = ModelSet.bundled.threshold("minimumTextContrast", of: "text")
    ) {
        self.blur = blur
        self.smudge = smudge
        self.exposure = exposure
        self.minimumLinePitch = minimumLinePitch
        self.minimumLegibility = minimumLegibility
        self.minimumTextContrast = minimumTextContrast
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fallback = QualityPolicy.default
        blur = try container.decodeIfPresent(Double.self, forKey: .blur) ?? fallback.blur
        smudge = try container.decodeIfPresent(Double.self, forKey: .smudge) ?? fallback.smudge
        exposure = try container.decodeIfPresent(Double.self, forKey: .exposure) ?? fallback.exposure
        minimumPredictedAccuracy =
            try container.decodeIfPresent(Double.self, forKey: .minimumPredictedAccuracy) ?? fallback.minimumPredictedAccuracy
        minimumLinePitch = try container.decodeIfPresent(Double.self, forKey: .minimumLinePitch) ?? fallback.minimumLinePitch
        minimumLegibility = try container.decodeIfPresent(Double.self, forKey: .minimumLegibility) ?? fallback.minimumLegibility
        minimumTextContrast = try container.decodeIfPresent(Double.self, forKey: .minimumTextContrast) ?? fallback.minimumTextContrast
        minimumScore = try container.decodeIfPresent(Double.self, forKey: .minimumScore) ?? fallback.minimumScore
        content = try container.decodeIfPresent(ContentJudgement.self, forKey: .content) ?? fallback.content
    }

    /// The keys of a policy file, in the order the help lists them.
    public static let keys = [
        "blur", "smudge", "exposure", "minimumPredictedAccuracy", "minimumLinePitch", "minimumLegibility", "minimumTextContrast",
        "minimumScore", "content",
    ]

    /// The keys that hold a number, which `--threshold NAME=VALUE` sets.
    public static let thresholdKeys = Array(keys.dropLast())

    /// Sets the threshold named by a policy key.
    /// - Throws: `PolicyError` of kind `unknownKey` naming the known keys, or `invalid` for a
    ///   value outside its range.
    public mutating func setThreshold(_ key: String, to value: Double) throws(PolicyError) {
        // Confidences and the gate score lie in 0–1 and the text minimums are sizes and levels:
        // a value outside would pass or reject every image.
        switch key {
        case "blur", "smudge", "exposure", "minimumPredictedAccuracy", "minimumScore":
            guard (0...1).contains(value) else { throw PolicyError(.invalid, "\(key) must be from 0 to 1, got \(value)") }
        case "minimumLinePitch", "minimumLegibility", "minimumTextContrast":
            guard value >= 0 else { throw PolicyError(.invalid, "\(key) must be 0 or more, got \(value)") }
        default: break
        }
        switch key {
        case "blur": blur = value
        case "smudge": smudge = value
        case "exposure": exposure = value
        case "minimumPredictedAccuracy": minimumPredictedAccuracy = value
        case "minimumLinePitch": minimumLinePitch = value
        case "minimumLegibility": minimumLegibility = value
        case "minimumTextContrast": minimumTextContrast = value
        case "minimumScore": minimumScore = value
        default:
            throw PolicyError(
                .unknownKey, "unknown threshold \"\(key)\" (known: \(Self.thresholdKeys.joined(separator: ", ")))")
        }
    }

    /// Sets the keys a policy file holds, keeping the others.
    /// - Throws: `PolicyError` when the file cannot be read, is not a JSON object of known
    ///   keys, or a value has the wrong type.
    public mutating func update(contentsOf path: String) throws(PolicyError) {
        let data: Data
        do {
            data = Data(try FileAccess.readAll(path))
        } catch {
            throw PolicyError(.unreadable, "cannot read the policy \(path): \(error.reason)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let members = object as? [String: Any] else {
            throw PolicyError(.invalid, "the policy \(path) is not a JSON object such as {\"blur\":0.3}")
        }
        for key in members.keys.sorted() {
            guard Self.keys.contains(key) else {
                throw PolicyError(
                    .unknownKey, "the policy \(path) has an unknown key \"\(key)\" (known: \(Self.keys.joined(separator: ", ")))")
            }
            if key == "content" {
                guard let name = members[key] as? String, let judgement = ContentJudgement(rawValue: name) else {
                    let names = ContentJudgement.allCases.map(\.rawValue).joined(separator: ", ")
                    throw PolicyError(.invalid, "the policy \(path): \"content\" must be one of \(names)")
                }
                content = judgement
            } else {
                guard let value = members[key] as? Double, value.isFinite else {
                    throw PolicyError(.invalid, "the policy \(path): \"\(key)\" must be a number")
                }
                do {
                    try setThreshold(key, to: value)
                } catch {
                    throw PolicyError(error.kind, "the policy \(path): \(error.message)")
                }
            }
        }
    }

    /// Reads a policy file: the built-in policy with the file's keys set.
    /// - Throws: `PolicyError`.
    public static func load(contentsOf path: String) throws(PolicyError) -> QualityPolicy {
        var policy = QualityPolicy.default
        try policy.update(contentsOf: path)
        return policy
    }
}

/// A refit of predicted accuracy p to measured accuracy: `1 / (1 + e^−(a + b·logit p))`, the
/// predictor's log-odds moved and scaled (b > 0 keeps the order; a = 0, b = 1 changes nothing).
public struct AccuracyMapping: Sendable, Equatable, Codable {
    public var intercept: Double
    public var slope: Double

    public init(intercept: Double, slope: Double) {
        self.intercept = intercept
        self.slope = slope
    }

    /// The log-odds of a predicted accuracy, clamped to 10⁻⁶…1 − 10⁻⁶ so 0 and 1 stay finite.
    public static func logit(_ p: Double) -> Double {
        let q = min(max(p, 1e-6), 1 - 1e-6)
        return log(q / (1 - q))
    }

    /// The measured accuracy expected for predicted accuracy `p`.
    public func map(_ p: Double) -> Double { 1 / (1 + exp(-(intercept + slope * Self.logit(p)))) }

    package enum CodingKeys: String, CodingKey, CaseIterable { case intercept, slope }
}

/// Why a policy cannot be used.
public typealias PolicyError = KindedError<PolicyErrorKind>

/// The classes of `PolicyError`, each with its stable code.
public enum PolicyErrorKind: String, ErrorKind {
    /// The file cannot be read.
    case unreadable = "policy.unreadable"
    /// The file is not a JSON object, or a value has the wrong type.
    case invalid = "policy.invalid"
    /// A key or threshold name the policy does not have (a typo such as `blurr`).
    case unknownKey = "policy.unknownKey"
}

/// How the gate judges an image.
public enum ContentJudgement: String, Sendable, Codable, CaseIterable {
    /// A document when the text detector finds a page (`TextObservation.showsPage`), else a photo.
    case auto
    /// Always by its text: legibility, contrast and size.
    case document
    /// Always by the photographic confidences: blur, smudge and exposure.
    case photo
}

/// What the gate judged an image as.
public enum JudgedContent: String, Sendable, Codable, CaseIterable {
    case document, photo
}

/// Whether an image is ready for text recognition, how ready, and why not.
public struct GateDecision: Sendable, Equatable, Codable {
    public var pass: Bool
    /// Readiness for text recognition, 0–1 (1 = ready).
    public var score: Double
    /// What the image was judged as.
    public var content: JudgedContent
    /// The criteria that failed, each with the value measured and the threshold it failed.
    public var failures: [GateFailure]
    /// For a document: the word accuracy (F1) the recognizer is expected to reach on it
    /// (`ReadingPredictor`), which is its score; nil for a photo.
    public var predictedAccuracy: Double?
    /// What the prediction used: `image` (the image's measures) or `image+layout` (and the
    /// recognizer's layout probe); nil for a photo.
    public var predictor: String?
    /// The layout probe's findings, when one ran (a document, with a probe configured).
    public var probe: LayoutProbeResult?

    public init(
        pass: Bool, score: Double, content: JudgedContent, failures: [GateFailure], predictedAccuracy: Double? = nil,
        predictor: String? = nil, probe: LayoutProbeResult? = nil
    ) {
        self.pass = pass
        self.score = score
        self.content = content
        self.failures = failures
        self.predictedAccuracy = predictedAccuracy
        self.predictor = predictor
        self.probe = probe
    }

    /// The failed criteria's reasons, in the order the gate checks them.
    public var reasons: [GateReason] { failures.map(\.reason) }

    enum CodingKeys: String, CodingKey {
        case pass, score, content, reasons, failures, predictedAccuracy, predictor, probe
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pass, forKey: .pass)
        try container.encode(score, forKey: .score)
        try container.encode(content, forKey: .content)
        try container.encode(reasons, forKey: .reasons)
        try container.encode(failures, forKey: .failures)
        try container.encodeIfPresent(predictedAccuracy, forKey: .predictedAccuracy)
        try container.encodeIfPresent(predictor, forKey: .predictor)
        try container.encodeIfPresent(probe, forKey: .probe)
    }

    /// Reads records of this version and of 0.2, whose `reasons` were bare codes without
    /// `failures` (their `blur` and `exposure` also stood for illegible and faint text).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pass = try container.decode(Bool.self, forKey: .pass)
        score = try container.decodeIfPresent(Double.self, forKey: .score) ?? .nan
        content = try container.decodeIfPresent(JudgedContent.self, forKey: .content) ?? .photo
        if let failures = try container.decodeIfPresent([GateFailure].self, forKey: .failures) {
            self.failures = failures
        } else {
            let reasons = try container.decodeIfPresent([GateReason].self, forKey: .reasons) ?? []
            failures = reasons.map(GateFailure.init(unmeasured:))
        }
        predictedAccuracy = try container.decodeIfPresent(Double.self, forKey: .predictedAccuracy)
        predictor = try container.decodeIfPresent(String.self, forKey: .predictor)
        probe = try container.decodeIfPresent(LayoutProbeResult.self, forKey: .probe)
    }
}

/// Why the gate rejected an image: one criterion. Codes are part of the record contract.
public enum GateReason: String, Sendable, Equatable, Codable, CaseIterable {
    /// A photo whose blur confidence is above the policy's `blur`.
    case blur
    /// A photo whose smudge confidence is above the policy's `smudge`.
    case smudge
    /// A photo whose exposure confidence is above the policy's `exposure`.
    case exposure
    /// A document the recognizer is predicted to read with a word accuracy under
    /// `minimumPredictedAccuracy`; its words say which measure lowered the prediction most.
    case predictedAccuracy
    /// Text whose legibility (line pitch over the blur-limited resolution) is under `minimumLegibility`.
    case textLegibility
    /// Text whose ink and paper are closer than `minimumTextContrast` levels.
    case textContrast
    /// Text whose lines are closer than `minimumLinePitch` full-resolution pixels.
    case textSize
    /// A gate score under the policy's `minimumScore`.
    case score
    /// An image whose shorter side is under `QualityAnalyzer.minimumSide` pixels: too small
    /// to measure, so no detector ran.
    case tooSmall

    /// What the criterion measures, in words, for help texts and messages.
    public var measure: String {
        switch self {
        case .blur: "blur confidence"
        case .smudge: "smudge confidence"
        case .exposure: "exposure confidence"
        case .predictedAccuracy: "predicted accuracy"
        case .textLegibility: "legibility"
        case .textContrast: "ink-paper contrast"
        case .textSize: "line pitch"
        case .score: "gate score"
        case .tooSmall: "shorter side (px)"
        }
    }

    /// What a failure means, in a few words (`blurred`, `text illegible`).
    public var words: String {
        switch self {
        case .blur: "blurred"
        case .smudge: "smudged lens"
        case .exposure: "badly exposed"
        case .predictedAccuracy: "predicted to read poorly"
        case .textLegibility: "text illegible"
        case .textContrast: "faint text"
        case .textSize: "text too small"
        case .score: "low gate score"
        case .tooSmall: "image too small"
        }
    }

    /// The criterion in one line, for `--help` and the README: what fails and when.
    public var explanation: String {
        switch self {
        case .blur: "a photo's blur confidence (edge width, defocus or motion) is above the policy's blur threshold"
        case .smudge: "a photo's smudge confidence (veil, soft islands on the lens) is above the policy's smudge threshold"
        case .exposure: "a photo's exposure confidence is above the policy's exposure threshold (underexposed or overexposed)"
        case .predictedAccuracy:
            "a document's predicted word accuracy (the recognizer's expected word F1 from its text measures and, with a probe, its layout analysis) is under minimumPredictedAccuracy"
        case .textLegibility:
            "a document's legibility (line pitch over the resolution blur leaves) is under minimumLegibility"
        case .textContrast: "a document's ink and paper are closer than minimumTextContrast levels (of 255)"
        case .textSize: "a document's text lines are closer than minimumLinePitch full-resolution pixels"
        case .score: "the gate score (0-1, every criterion together) is under minimumScore (--fail-under)"
        case .tooSmall: "the image's shorter side is under \(QualityAnalyzer.minimumSide) px (one analysis tile), too small to measure"
        }
    }

    /// Whether the criterion fails above its threshold (confidences) or below it (text measures).
    public var failsAbove: Bool {
        switch self {
        case .blur, .smudge, .exposure: true
        case .predictedAccuracy, .textLegibility, .textContrast, .textSize, .score, .tooSmall: false
        }
    }
}

/// One failed criterion: the value measured and the threshold it failed.
public struct GateFailure: Sendable, Equatable, Codable {
    public var reason: GateReason
    public var measured: Double
    public var threshold: Double
    /// The failure in words, with the value and the threshold: `text illegible: legibility 9.6 < 12`.
    public let message: String

    /// - Parameter words: what the failure means (`underexposed`); `reason.words` when nil.
    public init(reason: GateReason, measured: Double, threshold: Double, words: String? = nil) {
        self.reason = reason
        self.measured = measured
        self.threshold = threshold
        var (value, limit) = (Self.short(measured), Self.short(threshold))
        // Values that differ past the short form's digits (a keep-best cutoff a hair above a
        // score) are written in full, so the message never reads "0 < 0".
        if value == limit, measured != threshold {
            (value, limit) = (String(format: "%.6g", measured), String(format: "%.6g", threshold))
        }
        message = "\(words ?? reason.words): \(reason.measure) \(value) \(reason.failsAbove ? ">" : "<") \(limit)"
    }

    /// A failure read from a record that gave only its reason.
    init(unmeasured reason: GateReason) {
        self.reason = reason
        measured = .nan
        threshold = .nan
        message = "\(reason.words)"
    }

    /// What the failure means, without the measure: the message up to its colon.
    public var words: String {
        message.firstIndex(of: ":").map { String(message[..<$0]) } ?? message
    }

    /// The failure in a few characters, for a table cell: `text illegible 9.6<12`.
    public var brief: String {
        guard measured.isFinite, threshold.isFinite else { return words }
        return "\(words) \(Self.short(measured, digits: 2))\(reason.failsAbove ? ">" : "<")\(Self.short(threshold, digits: 2))"
    }

    /// Up to 4 decimals below 1 (or `digits`), 2 below 10, 1 from 10, without trailing zeros.
    public static func short(_ value: Double, digits fractionDigits: Int = 4) -> String {
        guard value.isFinite else { return "?" }
        let digits = abs(value) >= 10 ? 1 : abs(value) >= 1 ? 2 : fractionDigits
        var text = String(format: "%.\(digits)f", value)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// The quality gate in front of a text recognizer.
public struct QualityGate: Sendable {
    public var policy: QualityPolicy
    /// What predicts a document's accuracy: the bundled text model's, or that of a text model
    /// given with `--model` (or held by a profile).
    public var predictor: ReadingPredictor

    public init(policy: QualityPolicy = .default, predictor: ReadingPredictor = .bundled) {
        self.policy = policy
        self.predictor = predictor
    }

    /// Decides on a report. Detectors that were not run neither fail nor lower the score; an
    /// image too small to measure (`QualityAnalyzer.minimumSide`) fails with `tooSmall`.
    ///
    /// A document (`judgedContent`: the text detector found a page, or the policy says so)
    /// is judged by what the recognizer is predicted to read on it (`ReadingPredictor`, with
    /// the layout probe's result when one is given): its score is the predicted word
    /// accuracy, and `predictedAccuracy` fails it under `minimumPredictedAccuracy`, in words
    /// naming the measure that lowered the prediction most. `textContrast` fails ink and
    /// paper closer than `minimumTextContrast`; `textLegibility` and `textSize` apply a
    /// policy's own minimums (off by default). Smudge and photographic exposure are reported
    /// but do not decide: a dark but clean page or a softened page of large text reads well.
    ///
    /// A photo, even one with a sign or a label in it, is judged by the blur, smudge and
    /// exposure confidences against their thresholds. Its score multiplies one factor per
    /// confidence, `1 − confidence` scaled to 0.5 at its threshold. A policy's `minimumScore`
    /// rejects a lower score with the reason `score`.
    public func decide(_ report: QualityReport, probe: LayoutProbeResult? = nil) -> GateDecision {
        guard QualityAnalyzer.canMeasure(report.fullSize) else {
            let side = Double(min(report.fullSize.width, report.fullSize.height))
            let failure = GateFailure(reason: .tooSmall, measured: side, threshold: Double(QualityAnalyzer.minimumSide))
            return GateDecision(pass: false, score: 0, content: .photo, failures: [failure])
        }
        var failures: [GateFailure] = []
        var score = 1.0
        /// Records a failure when `measured` is on the wrong side of `threshold`.
        func check(_ reason: GateReason, _ measured: Double, _ threshold: Double, words: String? = nil) {
            let fails = reason.failsAbove ? measured > threshold : measured < threshold
            if fails { failures.append(GateFailure(reason: reason, measured: measured, threshold: threshold, words: words)) }
        }
        func factor(_ confidence: Double, threshold: Double) -> Double {
            // Piecewise linear: 1 at confidence 0, 0.5 at the threshold, 0 at 1.
            if confidence <= threshold { return 1 - 0.5 * confidence / max(threshold, 1e-9) }
            return 0.5 * (1 - confidence) / max(1 - threshold, 1e-9)
        }
        let content = judgedContent(report)
        var prediction: ReadingPredictor.Prediction?
        if content == .document, let text = report.text {
            var predicted = predictor.predict(text, probe: probe)
            if let mapping = policy.accuracyMapping { predicted.accuracy = mapping.map(predicted.accuracy) }
            prediction = predicted
            check(.predictedAccuracy, predicted.accuracy, policy.minimumPredictedAccuracy, words: Self.words(for: predicted, text: text))
            score = predicted.accuracy
            check(.textContrast, text.contrast, policy.minimumTextContrast)
            check(.textLegibility, text.legibility, policy.minimumLegibility)
            if text.linePitch > 0 { check(.textSize, text.linePitch, policy.minimumLinePitch) }
        } else {
            if let blur = report.blur {
                check(.blur, blur.confidence, policy.blur)
                score *= factor(blur.confidence, threshold: policy.blur)
            }
            if let smudge = report.smudge {
                check(.smudge, smudge.confidence, policy.smudge)
                score *= factor(smudge.confidence, threshold: policy.smudge)
            }
            if let exposure = report.exposure {
                let words = switch exposure.direction {
                case .under: "underexposed"
                case .over: "overexposed"
                case .backlit: "backlit (subject in shadow)"
                case .ok: GateReason.exposure.words
                }
                check(.exposure, exposure.confidence, policy.exposure, words: words)
                score *= factor(exposure.confidence, threshold: policy.exposure)
            }
        }
        score = max(0, min(1, score))
        if policy.minimumScore > 0 { check(.score, score, policy.minimumScore) }
        return GateDecision(
            pass: failures.isEmpty, score: score, content: content, failures: failures, predictedAccuracy: prediction?.accuracy,
            predictor: prediction.map { $0.usedLayout ? "image+layout" : "image" }, probe: prediction == nil ? nil : probe)
    }

    /// What a low prediction says, from the measure that lowered it most: legibility is
    /// blurred text when the blur costs more than a third of it (legibility under two thirds
    /// of the line pitch, the size alone), else text too small.
    static func words(for prediction: ReadingPredictor.Prediction, text: TextObservation) -> String {
        switch prediction.mainShortfall?.measure {
        case "logLegibility":
            text.legibility < 2.0 / 3 * text.sizeLimitedLegibility ? "blurred text" : "text too small"
        case "logSoftEdgeOverXHeight", "logLineBlur", "logLineBlurP90", "logEdgeAnisotropy": "blurred text"
        case "logXHeight", "logXHeightP10": "text too small"
        case "lineContrast", "lineContrastP10", "contrast": "faint text"
        case "logLineNoise": "noisy text"
        case "skew", "logSkewSpread": "skewed or curved lines"
        case "ungrouped": "text broken or distorted"
        case "logLaidOutShare": "text the recognizer does not find"
        default: GateReason.predictedAccuracy.words
        }
    }

    /// Whether the report is judged as a document or a photo under the policy. Without the
    /// text detector's report there is no text to judge: a photo.
    public func judgedContent(_ report: QualityReport) -> JudgedContent {
        guard let text = report.text else { return .photo }
        switch policy.content {
        case .document: return .document
        case .photo: return .photo
        case .auto: return text.showsPage ? .document : .photo
        }
    }
}
