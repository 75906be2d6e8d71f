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
    /// Highest confidence that passes a photo, by photo criterion (the detector's name:
    /// `blur`, `smudge`, `exposure`, or a registered detector's). A criterion without a
    /// value here uses its `PhotoCriterion.defaultThreshold`.
    public var confidenceThresholds: [String: Double]
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

    /// Highest blur confidence that passes.
    public var blur: Double {
        get { threshold(of: "blur") }
        set { confidenceThresholds["blur"] = newValue }
    }
    /// Highest smudge confidence that passes.
    public var smudge: Double {
        get { threshold(of: "smudge") }
        set { confidenceThresholds["smudge"] = newValue }
    }
    /// Highest exposure confidence that passes.
    public var exposure: Double {
        get { threshold(of: "exposure") }
        set { confidenceThresholds["exposure"] = newValue }
    }
    /// Highest noise confidence that passes.
    public var noise: Double {
        get { threshold(of: "noise") }
        set { confidenceThresholds["noise"] = newValue }
    }
    /// Highest compression confidence that passes.
    public var compression: Double {
        get { threshold(of: "compression") }
        set { confidenceThresholds["compression"] = newValue }
    }

    /// The threshold of the built-in photo criterion `name`.
    private func threshold(of name: String) -> Double {
        confidenceThresholds[name] ?? DetectorRegistry.builtIn[name]?.photoCriterion?.defaultThreshold ?? .nan
    }

    /// The built-in thresholds, from the bundled detector models: each model file
    /// (`Sources/QualityMetrics/Models/`) states its thresholds with the rule they were
    /// chosen by (`thresholds.<key>.rule`) and the command that chose them (`fit.command`).
    public static var `default`: QualityPolicy { QualityPolicy(models: .bundled) }

    /// The thresholds the models of `models` set.
    public init(models: ModelSet) {
        self.init(
            blur: models.threshold("blur", of: "blur"), smudge: models.threshold("smudge", of: "smudge"),
            exposure: models.threshold("exposure", of: "exposure"),
            noise: models.threshold("noise", of: "noise"), compression: models.threshold("compression", of: "compression"),
            minimumLinePitch: models.threshold("minimumLinePitch", of: "text"),
            minimumLegibility: models.threshold("minimumLegibility", of: "text"),
            minimumTextContrast: models.threshold("minimumTextContrast", of: "text"))
        minimumPredictedAccuracy = models.threshold("minimumPredictedAccuracy", of: "text")
    }

    /// - Parameters: `noise` and `compression` default to the bundled models' thresholds (as
    ///   any photo criterion without a value here does), the text minimums to the bundled
    ///   text model's.
    public init(
        blur: Double, smudge: Double, exposure: Double, noise: Double? = nil, compression: Double? = nil,
        minimumLinePitch: Double,
        minimumLegibility: Double = ModelSet.bundled.threshold("minimumLegibility", of: "text"),
        minimumTextContrast: Double = ModelSet.bundled.threshold("minimumTextContrast", of: "text")
    ) {
        confidenceThresholds = ["blur": blur, "smudge": smudge, "exposure": exposure]
        if let noise { confidenceThresholds["noise"] = noise }
        if let compression { confidenceThresholds["compression"] = compression }
        self.minimumLinePitch = minimumLinePitch
        self.minimumLegibility = minimumLegibility
        self.minimumTextContrast = minimumTextContrast
    }

    /// The gate's own numeric keys, after the photo criteria.
    static let ownThresholdKeys = ["minimumPredictedAccuracy", "minimumLinePitch", "minimumLegibility", "minimumTextContrast", "minimumScore"]

    /// The numeric keys with the detectors of `registry`: their photo criteria, then the gate's own.
    public static func thresholdKeys(registry: DetectorRegistry) -> [String] {
        registry.photoCriteria.map(\.name) + ownThresholdKeys
    }

    /// The keys of a policy file, in the order the help lists them.
    public static let keys = thresholdKeys(registry: .builtIn) + ["content"]

    /// The keys that hold a number, which `--threshold NAME=VALUE` sets.
    public static let thresholdKeys = thresholdKeys(registry: .builtIn)

    /// The numeric keys this policy takes: those of `registry` and any photo criterion it holds a value for.
    private func thresholdKeys(registry: DetectorRegistry) -> [String] {
        let known = Self.thresholdKeys(registry: registry)
        return known + confidenceThresholds.keys.filter { !known.contains($0) }.sorted()
    }

    enum CodingKeys: String, CodingKey {
        case minimumPredictedAccuracy, minimumLinePitch, minimumLegibility, minimumTextContrast, minimumScore, content, accuracyMapping
    }

    /// Reads the keys of a policy file with the built-in detectors, each optional.
    public init(from decoder: any Decoder) throws {
        self = QualityPolicy.default
        let criteria = try decoder.container(keyedBy: FieldKey.self)
        for (name, _) in DetectorRegistry.builtIn.photoCriteria {
            if let value = try criteria.decodeIfPresent(Double.self, forKey: FieldKey(name)) { confidenceThresholds[name] = value }
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        minimumPredictedAccuracy = try container.decodeIfPresent(Double.self, forKey: .minimumPredictedAccuracy) ?? minimumPredictedAccuracy
        minimumLinePitch = try container.decodeIfPresent(Double.self, forKey: .minimumLinePitch) ?? minimumLinePitch
        minimumLegibility = try container.decodeIfPresent(Double.self, forKey: .minimumLegibility) ?? minimumLegibility
        minimumTextContrast = try container.decodeIfPresent(Double.self, forKey: .minimumTextContrast) ?? minimumTextContrast
        minimumScore = try container.decodeIfPresent(Double.self, forKey: .minimumScore) ?? minimumScore
        content = try container.decodeIfPresent(ContentJudgement.self, forKey: .content) ?? content
    }

    /// Writes the keys of a policy file: every photo criterion's threshold, then the gate's
    /// own, and a profile's accuracy mapping when it holds one (which reading leaves out).
    public func encode(to encoder: any Encoder) throws {
        var criteria = encoder.container(keyedBy: FieldKey.self)
        for (name, value) in confidenceThresholds.sorted(by: { $0.key < $1.key }) { try criteria.encode(value, forKey: FieldKey(name)) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(minimumPredictedAccuracy, forKey: .minimumPredictedAccuracy)
        try container.encode(minimumLinePitch, forKey: .minimumLinePitch)
        try container.encode(minimumLegibility, forKey: .minimumLegibility)
        try container.encode(minimumTextContrast, forKey: .minimumTextContrast)
        try container.encode(minimumScore, forKey: .minimumScore)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(accuracyMapping, forKey: .accuracyMapping)
    }

    /// Sets the threshold named by a policy key: a photo criterion of `registry`'s detectors
    /// (or one the policy holds), or one of the gate's own.
    /// - Throws: `PolicyError` of kind `unknownKey` naming the known keys, or `invalid` for a
    ///   value outside its range.
    public mutating func setThreshold(_ key: String, to value: Double, registry: DetectorRegistry = .builtIn) throws(PolicyError) {
        // Confidences and the gate score lie in 0–1 and the text minimums are sizes and levels:
        // a value outside would pass or reject every image.
        let isCriterion = confidenceThresholds[key] != nil || registry.photoCriteria.contains { $0.name == key }
        switch key {
        case _ where isCriterion, "minimumPredictedAccuracy", "minimumScore":
            guard (0...1).contains(value) else { throw PolicyError(.invalid, "\(key) must be from 0 to 1, got \(value)") }
        case "minimumLinePitch", "minimumLegibility", "minimumTextContrast":
            guard value >= 0 else { throw PolicyError(.invalid, "\(key) must be 0 or more, got \(value)") }
        default: break
        }
        switch key {
        case _ where isCriterion: confidenceThresholds[key] = value
        case "minimumPredictedAccuracy": minimumPredictedAccuracy = value
        case "minimumLinePitch": minimumLinePitch = value
        case "minimumLegibility": minimumLegibility = value
        case "minimumTextContrast": minimumTextContrast = value
        case "minimumScore": minimumScore = value
        default:
            throw PolicyError(
                .unknownKey, "unknown threshold \"\(key)\" (known: \(thresholdKeys(registry: registry).joined(separator: ", ")))")
        }
    }

    /// Sets the keys a policy file holds, keeping the others.
    /// - Parameter registry: the detectors whose photo criteria the file may set.
    /// - Throws: `PolicyError` when the file cannot be read, is not a JSON object of known
    ///   keys, or a value has the wrong type.
    public mutating func update(contentsOf path: String, registry: DetectorRegistry = .builtIn) throws(PolicyError) {
        let data: Data
        do {
            data = Data(try FileAccess.readAll(path))
        } catch {
            throw PolicyError(.unreadable, "cannot read the policy \(path): \(error.reason)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let members = object as? [String: Any] else {
            throw PolicyError(.invalid, "the policy \(path) is not a JSON object such as {\"blur\":0.3}")
        }
        let keys = thresholdKeys(registry: registry) + ["content"]
        for key in members.keys.sorted() {
            guard keys.contains(key) else {
                throw PolicyError(
                    .unknownKey, "the policy \(path) has an unknown key \"\(key)\" (known: \(keys.joined(separator: ", ")))")
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
                    try setThreshold(key, to: value, registry: registry)
                } catch {
                    throw PolicyError(error.kind, "the policy \(path): \(error.message)")
                }
            }
        }
    }

    /// Reads a policy file: the built-in policy with the file's keys set.
    /// - Throws: `PolicyError`.
    public static func load(contentsOf path: String, registry: DetectorRegistry = .builtIn) throws(PolicyError) -> QualityPolicy {
        var policy = QualityPolicy.default
        try policy.update(contentsOf: path, registry: registry)
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
    /// Whether the decision was made on the page as prepared for reading (seen straight on,
    /// its rules painted out: `imgquality ocr` and the gated recognizer's reading of a
    /// document) rather than on the image as it is. Recorded only when true.
    public var preparedPage = false

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
        case pass, score, content, reasons, failures, predictedAccuracy, predictor, probe, preparedPage
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
        if preparedPage { try container.encode(true, forKey: .preparedPage) }
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
        preparedPage = try container.decodeIfPresent(Bool.self, forKey: .preparedPage) ?? false
    }
}

/// Why the gate rejected an image: one criterion. Codes are part of the record contract.
///
/// The photo criteria are the registered detectors whose observations have a
/// `DetectorObservation.photoCriterion` (the built-in `blur`, `smudge`, `exposure`), each
/// under its detector's name; the others are the gate's own (`predictedAccuracy`, the text
/// minimums, `score`, `tooSmall`).
public struct GateReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code, as records write it.
    public let rawValue: String
    /// What the criterion measures, in words, for help texts and messages.
    public let measure: String
    /// What a failure means, in a few words (`blurred`, `text illegible`).
    public let words: String
    /// The criterion in one line, for `--help` and the README: what fails and when.
    public let explanation: String
    /// Whether the criterion fails above its threshold (confidences) or below it (text measures).
    public let failsAbove: Bool

    init(_ code: String, measure: String, words: String, explanation: String, failsAbove: Bool = false) {
        rawValue = code
        self.measure = measure
        self.words = words
        self.explanation = explanation
        self.failsAbove = failsAbove
    }

    /// The photo criterion of the detector called `name`.
    public init(_ name: String, criterion: PhotoCriterion) {
        self.init(name, measure: criterion.measure, words: criterion.words, explanation: criterion.explanation, failsAbove: true)
    }

    /// The reason with code `rawValue`: one of the gate's own, a built-in detector's, or
    /// (a code from a detector registered elsewhere) its bare name.
    public init(rawValue: String) {
        if let known = Self.allCases.first(where: { $0.rawValue == rawValue }) {
            self = known
        } else {
            self.init(rawValue, measure: "\(rawValue) confidence", words: rawValue, explanation: rawValue, failsAbove: true)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (a: GateReason, b: GateReason) -> Bool { a.rawValue == b.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    public var description: String { rawValue }

    /// A photo whose blur confidence is above the policy's `blur`.
    public static let blur = Self.photo("blur")
    /// A photo whose smudge confidence is above the policy's `smudge`.
    public static let smudge = Self.photo("smudge")
    /// A photo whose exposure confidence is above the policy's `exposure`.
    public static let exposure = Self.photo("exposure")
    /// A photo whose noise confidence is above the policy's `noise`.
    public static let noise = Self.photo("noise")
    /// A photo whose compression confidence is above the policy's `compression`.
    public static let compression = Self.photo("compression")
    /// A document the recognizer is predicted to read with a word accuracy under
    /// `minimumPredictedAccuracy`; its words say which measure lowered the prediction most.
    public static let predictedAccuracy = GateReason(
        "predictedAccuracy", measure: "predicted accuracy", words: "predicted to read poorly",
        explanation:
            "a document's predicted word accuracy (the recognizer's expected word F1 from its text measures and, with a probe, its layout analysis) is under minimumPredictedAccuracy"
    )
    /// Text whose legibility (line pitch over the blur-limited resolution) is under `minimumLegibility`.
    public static let textLegibility = GateReason(
        "textLegibility", measure: "legibility", words: "text illegible",
        explanation: "a document's legibility (line pitch over the resolution blur leaves) is under minimumLegibility")
    /// Text whose ink and paper are closer than `minimumTextContrast` levels.
    public static let textContrast = GateReason(
        "textContrast", measure: "ink-paper contrast", words: "faint text",
        explanation: "a document's ink and paper are closer than minimumTextContrast levels (of 255)")
    /// Text whose lines are closer than `minimumLinePitch` full-resolution pixels.
    public static let textSize = GateReason(
        "textSize", measure: "line pitch", words: "text too small",
        explanation: "a document's text lines are closer than minimumLinePitch full-resolution pixels")
    /// A gate score under the policy's `minimumScore`.
    public static let score = GateReason(
        "score", measure: "gate score", words: "low gate score",
        explanation: "the gate score (0-1, every criterion together) is under minimumScore (--fail-under)")
    /// An image whose shorter side is under `QualityAnalyzer.minimumSide` pixels: too small
    /// to measure, so no detector ran.
    public static let tooSmall = GateReason(
        "tooSmall", measure: "shorter side (px)", words: "image too small",
        explanation: "the image's shorter side is under \(QualityAnalyzer.minimumSide) px (one analysis tile), too small to measure")

    /// The gate's own criteria, after the photo criteria.
    static let gateOwn: [GateReason] = [.predictedAccuracy, .textLegibility, .textContrast, .textSize, .score, .tooSmall]

    /// The built-in detector `name`'s photo criterion.
    private static func photo(_ name: String) -> GateReason {
        guard let criterion = DetectorRegistry.builtIn[name]?.photoCriterion else {
            preconditionFailure("the built-in \(name) detector has no photo criterion")
        }
        return GateReason(name, criterion: criterion)
    }

    /// Every reason the gate can give with the detectors of `registry`: their photo
    /// criteria in record order, then the gate's own.
    public static func all(registry: DetectorRegistry) -> [GateReason] {
        registry.photoCriteria.map { GateReason($0.name, criterion: $0.criterion) } + gateOwn
    }

    /// Every reason with the built-in detectors.
    public static let allCases = all(registry: .builtIn)
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
    /// A photo, even one with a sign or a label in it, is judged by the confidences of the
    /// observations that have a photo criterion (`DetectorObservation.photoCriterion`: blur,
    /// smudge, exposure, and any registered detector's), each against the policy's threshold
    /// under the detector's name, else the criterion's default. Its score multiplies one
    /// factor per confidence, `1 − confidence` scaled to 0.5 at its threshold. A policy's `minimumScore`
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
            // Every observation whose kind has a photo criterion, in record order.
            for (name, observation) in report.observations {
                guard let criterion = type(of: observation).photoCriterion, let confidence = observation.measurement(criterion.field) else {
                    continue
                }
                let threshold = policy.confidenceThresholds[name] ?? criterion.defaultThreshold
                check(GateReason(name, criterion: criterion), confidence, threshold, words: observation.failureWords)
                score *= factor(confidence, threshold: threshold)
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
        case "binarized", "logBinarized": "faint text, shadow or glare"
        case "logLaidOutShare", "logLaidOutLineLength": "text the recognizer does not find"
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
