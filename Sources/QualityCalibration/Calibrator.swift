import Foundation
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics

/// What is being calibrated: a measurement of a registered detector (by default the one
/// its confidence maps from), or the gate's score.
public struct CalibratedQuantity: Sendable, Hashable {
    /// The detector's name, or nil for the gate.
    public var detectorName: String?
    /// The raw measure calibrated (`edgeWidth`, `evidence`, a descriptor field, `score`).
    public var measure: String
    /// Whether the mapping works on the measure's logarithm (it spans decades), from the descriptor.
    public var logarithmic: Bool
    /// Whether a higher measurement means a defect (the gate score and a quality measure
    /// mean readiness).
    public var higherIsDefect: Bool
    /// Whether the measure is the one the detector's confidence maps from, so a fitted
    /// mapping and threshold can replace the detector's (a profile and a model).
    public var isDetectorsOwn: Bool

    /// The gate's score.
    public static let gate = CalibratedQuantity(
        detectorName: nil, measure: "score", logarithmic: false, higherIsDefect: false, isDetectorsOwn: false)
    public static var blur: CalibratedQuantity { detector(BlurDetector.descriptor) }
    public static var smudge: CalibratedQuantity { detector(SmudgeDetector.descriptor) }
    public static var exposure: CalibratedQuantity { detector(ExposureDetector.descriptor) }

    /// The measurement `field` of the detector `descriptor` describes; by default its
    /// calibrated measure (the descriptor's `calibration`), else its first field.
    public static func detector(_ descriptor: MetricDescriptor, field: String? = nil) -> CalibratedQuantity {
        let own = descriptor.calibration?.measure
        let measure = field ?? own ?? descriptor.fields.first?.name ?? "confidence"
        return CalibratedQuantity(
            detectorName: descriptor.name, measure: measure, logarithmic: measure == own && descriptor.calibration?.logarithmic == true,
            higherIsDefect: descriptor.direction != "quality", isDetectorsOwn: own != nil && measure == own)
    }

    /// The quantity named `name` (a registered detector, or `gate`), with `field` of it.
    /// - Throws: `CalibrationError` naming the known detectors or fields.
    public static func named(_ name: String, field: String? = nil, registry: DetectorRegistry = .builtIn) throws -> CalibratedQuantity {
        if name == "gate" {
            guard field == nil || field == "score" else { throw CalibrationError(.unknownQuantity, "the gate has one measure, score") }
            return .gate
        }
        guard let detector = registry[name] else {
            throw CalibrationError(.unknownQuantity, "unknown detector \"\(name)\" (known: \((registry.names + ["gate"]).joined(separator: ", ")))")
        }
        let descriptor = detector.descriptor
        if let field, field != descriptor.calibration?.measure {
            guard let known = descriptor.field(named: field), known.kind == .number else {
                let numbers = descriptor.fields.filter { $0.kind == .number }.map(\.name)
                throw CalibrationError(.unknownQuantity, "\(name) has no numeric field \"\(field)\" (known: \(numbers.joined(separator: ", ")))")
            }
        }
        return CalibratedQuantity.detector(descriptor, field: field)
    }

    /// The detector's name, or `gate`.
    public var rawValue: String { detectorName ?? "gate" }

    /// The built-in detector, or nil for the gate or another detector.
    public var detector: DetectorKind? { detectorName.flatMap(DetectorKind.init(rawValue:)) }

    /// The measurement whose defect-oriented value (higher = more defective, as thresholds
    /// and sweeps hold them) is `value`: itself, or 1 − it for a readiness (the gate's score).
    public func measurement(fromDefectValue value: Double) -> Double {
        higherIsDefect ? value : 1 - value
    }

    /// How a threshold on the measurement rejects, for table headings: "edgeWidth ≥", "score ≤".
    public var rejectionRule: String { "\(measure) \(higherIsDefect ? "≥" : "≤")" }

    /// The measurement in an assessment, or nil when it failed or lacks the detector.
    public func measurement(in assessment: Assessment) -> Double? {
        assessment.image.flatMap { measurement(in: $0.report, decision: $0.decision) }
    }

    /// The same from a report and decision.
    public func measurement(in report: QualityReport, decision: GateDecision) -> Double? {
        guard let detectorName else { return decision.score }
        guard let observation = report[detectorName] else { return nil }
        return observation.measurement(measure)
    }
}

/// One row of a labeled dataset with its measurement.
public struct CalibrationSample: Sendable {
    /// The path as written in labels.csv (relative to it).
    public var path: String
    /// The file the path names.
    public var file: String
    public var label: Int?
    public var score: Double?
    public var split: String?
    public var measurement: Double?
    /// For a document, the gate's predicted accuracy (its score before any profile's refit
    /// only when the records were made without one); nil for photos.
    public var predictedAccuracy: Double?
    /// Why there is no measurement (a decode error code and message).
    public var error: String?
    /// The other columns of the row, in order.
    public var extras: [(String, String)]

    /// Takes the measurement of `quantity` from an assessment, or says why there is none.
    public mutating func record(_ assessment: Assessment, quantity: CalibratedQuantity) {
        if let failure = assessment.error {
            error = "\(failure.code): \(failure.message)"
        } else if let value = quantity.measurement(in: assessment) {
            measurement = value
            predictedAccuracy = assessment.image?.decision.predictedAccuracy
        } else {
            error = "the record has no \(quantity.rawValue).\(quantity.measure) (scored without that detector?)"
        }
    }

    public init(path: String, file: String, label: Int?, score: Double?, split: String?, extras: [(String, String)]) {
        self.path = path
        self.file = file
        self.label = label
        self.score = score
        self.split = split
        self.extras = extras
    }
}

/// What one minimum gate score keeps and loses of scored pages.
public struct KeepAndLose: Sendable, Equatable {
    public var minimum: Double
    /// Share of the pages passed, and their mean measured score.
    public var kept: Double
    public var keptMean: Double
    /// Mean measured score of the pages rejected (NaN when none is).
    public var rejectedMean: Double
    /// Share of the pages measured below 0.5 that it rejects, and of those at 0.9 or better.
    public var poorRejected: Double
    public var goodRejected: Double

    /// The figures for `minimum` over (gate score, measured score) pairs.
    public init(minimum: Double, pairs: [(score: Double, measured: Double)]) {
        self.minimum = minimum
        let kept = pairs.filter { $0.score >= minimum }, rejected = pairs.filter { $0.score < minimum }
        func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
        func share(_ subset: [(score: Double, measured: Double)]) -> Double {
            subset.isEmpty ? .nan : Double(subset.count { $0.score < minimum }) / Double(subset.count)
        }
        self.kept = pairs.isEmpty ? .nan : Double(kept.count) / Double(pairs.count)
        keptMean = mean(kept.map(\.measured))
        rejectedMean = mean(rejected.map(\.measured))
        poorRejected = share(pairs.filter { $0.measured < 0.5 })
        goodRejected = share(pairs.filter { $0.measured >= 0.9 })
    }
}

/// The threshold table's rows: the requested target and the standard ones.
public struct ThresholdRow: Sendable {
    public var name: String
    /// Chosen on the fitting split.
    public var train: OperatingPoint
    /// The same threshold applied to the held-out split.
    public var test: OperatingPoint
    /// The threshold as a confidence (through the fitted mapping).
    public var confidence: Double
}

/// Everything a calibration found.
public struct CalibrationResult: Sendable {
    public var quantity: CalibratedQuantity
    public var datasetPath: String
    public var command: String
    public var created: String
    /// Whether figures come from a held-out split (a `split` column with train and test rows).
    public var heldOut: Bool
    public var trainCount: Int
    public var testCount: Int
    public var failures: [CalibrationSample]

    // Binary labels.
    public var auc: Double?
    public var aucInterval: ClosedRange<Double>?
    public var averagePrecision: Double?
    public var averagePrecisionInterval: ClosedRange<Double>?
    public var mapping: LogisticMapping?
    public var thresholds: [ThresholdRow] = []
    public var chosen: ThresholdRow?
    public var reliabilityBins: [ReliabilityBin] = []
    public var calibrationError: Double?
    public var testAnalysis: BinaryAnalysis?
    public var testConfidences: [Double] = []
    public var testSamples: [CalibrationSample] = []

    // Continuous scores.
    public var spearman: Double?
    public var spearmanInterval: ClosedRange<Double>?
    public var pearson: Double?
    /// The lowest readiness (or highest defect confidence) keeping the mean score of accepted images at the target.
    public var accuracyThreshold: (target: Double, threshold: Double, trainMean: Double, testMean: Double, kept: Double)?
    /// For the gate with score labels: its predicted accuracy refitted to the measured one on
    /// the train split (the test samples' measurements are mapped by it).
    public var accuracyMapping: AccuracyMapping?
    /// For the gate with score labels: what minimum scores from 0.1 to 0.9 keep and lose on
    /// the test split.
    public var keepAndLose: [KeepAndLose] = []

    public var profile: QualityProfile?
    /// The detector's model with the refitted mapping and the chosen threshold in place: a
    /// model file (`model.json`) that `--model` loads, as the bundled ones are. Nil for the gate.
    public var model: DetectorModel?
}

/// Fits and evaluates one quantity on a labeled dataset.
///
/// With a `split` column, everything is fitted on `train` rows and every reported
/// figure comes from `test` rows. Without one, both are all rows, and the report
/// says the figures are not held out.
public struct Calibrator: Sendable {
    public var quantity: CalibratedQuantity
    public var target: ThresholdTarget
    public var accuracyTarget: Double?
    public var bootstrapResamples: Int
    /// The detector's model the measurements were taken with, which the written model
    /// starts from (the bundled one by default; nil for the gate).
    public var baseModel: DetectorModel?

    public init(
        quantity: CalibratedQuantity, target: ThresholdTarget = .bestF1, accuracyTarget: Double? = nil, bootstrapResamples: Int = 1000,
        baseModel: DetectorModel? = nil
    ) {
        self.quantity = quantity
        self.target = target
        self.accuracyTarget = accuracyTarget
        self.bootstrapResamples = bootstrapResamples
        self.baseModel = baseModel ?? (quantity.isDetectorsOwn ? quantity.detector.flatMap { ModelSet.bundled.models[$0.rawValue] } : nil)
    }

    public func calibrate(_ samples: [CalibrationSample], datasetPath: String, command: String, created: String) throws -> CalibrationResult {
        let measured = samples.filter { $0.measurement != nil }
        let failures = samples.filter { $0.measurement == nil }
        // Nothing measured is its own error: the labels may be fine (records from another
        // folder, or without this detector).
        if measured.isEmpty, let first = failures.first {
            throw CalibrationError(
                "none of the \(samples.count) images could be measured (the first, \(first.path): \(first.error ?? "no measurement"))")
        }
        let splits = Set(measured.compactMap(\.split))
        // A split spelt otherwise ("Test", "valid") would silently make nothing held out.
        if let other = splits.subtracting(["train", "test"]).sorted().first {
            throw CalibrationError("the split column holds \"\(other)\": each row's split must be train or test (or empty)")
        }
        let heldOut = splits.contains("train") && splits.contains("test")
        let binary = measured.contains { $0.label != nil }
        if binary, accuracyTarget != nil {
            throw CalibrationError(
                "a target accuracy needs score labels, and this dataset has binary labels: choose the threshold by precision, recall, false-positive rate or cost")
        }
        guard binary || measured.contains(where: { $0.score != nil }) else {
            throw CalibrationError("the dataset has neither a label nor a score column with values")
        }
        // A row without the answer (an empty label or score) takes no part in the fit or the
        // figures, nor in the counts the report gives for them.
        let answered = measured.filter { binary ? $0.label != nil : $0.score != nil }
        let train = heldOut ? answered.filter { $0.split == "train" } : answered
        let test = heldOut ? answered.filter { $0.split == "test" } : answered
        var result = CalibrationResult(
            quantity: quantity, datasetPath: datasetPath, command: command, created: created, heldOut: heldOut,
            trainCount: train.count, testCount: test.count, failures: failures)
        if binary {
            try calibrateBinary(train: train, test: test, into: &result)
        } else {
            try calibrateScores(train: train, test: test, into: &result)
        }
        return result
    }

    /// The defect-oriented value of a measurement (higher = more defective).
    func defectValue(_ measurement: Double) -> Double {
        quantity.higherIsDefect ? measurement : 1 - measurement
    }

    /// The mapping's input: log for blur.
    func feature(_ measurement: Double) -> Double {
        quantity.logarithmic ? log(max(measurement, 1e-9)) : measurement
    }

    private func calibrateBinary(train: [CalibrationSample], test: [CalibrationSample], into result: inout CalibrationResult) throws {
        try requireBothClasses(train: train, test: test, heldOut: result.heldOut, unmeasured: result.failures)
        let trainValues = train.compactMap { s in s.label.map { LabeledValue(defectValue(s.measurement!), label: $0) } }
        let testSamples = test.filter { $0.label != nil }
        let testValues = testSamples.map { LabeledValue(defectValue($0.measurement!), label: $0.label!) }
        let trainAnalysis = try BinaryAnalysis(trainValues)
        let testAnalysis = try BinaryAnalysis(testValues)
        result.auc = testAnalysis.auc
        result.averagePrecision = testAnalysis.averagePrecision
        result.aucInterval = testAnalysis.bootstrap({ $0.auc }, resamples: bootstrapResamples)
        result.averagePrecisionInterval = testAnalysis.bootstrap({ $0.averagePrecision }, resamples: bootstrapResamples)

        let fit = try LogisticFit.fit(
            features: trainValues.map { feature(quantity.higherIsDefect ? $0.value : 1 - $0.value) }, labels: trainValues.map(\.label))
        let mapping: LogisticMapping
        if quantity.logarithmic {
            mapping = LogisticMapping(midpoint: exp(fit.midpoint), slope: fit.slope, logarithmic: true)
        } else {
            mapping = LogisticMapping(midpoint: fit.midpoint, slope: fit.slope)
        }
        result.mapping = mapping
        let confidence = { (value: Double) in mapping(self.quantity.higherIsDefect ? value : 1 - value) }

        var rows: [ThresholdRow] = []
        func add(_ name: String, _ point: OperatingPoint?) {
            guard let point else { return }
            rows.append(ThresholdRow(name: name, train: point, test: testAnalysis.point(at: point.threshold), confidence: confidence(point.threshold)))
        }
        add("requested: \(target)", trainAnalysis.operatingPoint(for: target))
        add("best F1", trainAnalysis.operatingPoint(for: .bestF1))
        add("Youden's J", trainAnalysis.youdenPoint)
        add("precision ≥ 0.95", trainAnalysis.operatingPoint(for: .precision(0.95)))
        add("recall ≥ 0.95", trainAnalysis.operatingPoint(for: .recall(0.95)))
        add("false-positive rate ≤ 0.05", trainAnalysis.operatingPoint(for: .falsePositiveRate(0.05)))
        result.thresholds = rows
        guard let chosen = rows.first, chosen.name.hasPrefix("requested") else {
            throw CalibrationError("no threshold meets \(target) on the training split")
        }
        result.chosen = chosen

        let confidences = testSamples.map { confidence(defectValue($0.measurement!)) }
        result.testConfidences = confidences
        result.testSamples = testSamples
        result.reliabilityBins = reliability(
            confidences: confidences, labels: testSamples.map { $0.label! }, bins: Self.reliabilityBinCount(examples: confidences.count))
        result.calibrationError = expectedCalibrationError(result.reliabilityBins)
        result.testAnalysis = testAnalysis
        if quantity == .gate {
            // Defect values at or above the threshold t are rejected, i.e. scores at or below
            // 1 − t. The minimum passing score is cut halfway to the next training value below
            // t, so the chosen split holds for the gate's "score under the minimum fails".
            let t = chosen.train.threshold
            let below = trainValues.map(\.value).filter { $0 < t }.max() ?? t - 1e-6
            result.profile = QualityProfile(
                created: result.created, command: result.command, dataset: result.datasetPath, detectors: [:],
                gate: GateCalibration(minimumScore: 1 - (t + below) / 2, target: target.description, auc: testAnalysis.auc))
        } else if quantity.isDetectorsOwn, QualityProfile.calibratedDetectors.contains(where: { $0.rawValue == quantity.rawValue }) {
            // A profile and a model replace a built-in detector's own mapping; another
            // measure, or another detector, gets the report alone.
            result.profile = QualityProfile(
                created: result.created, command: result.command, dataset: result.datasetPath,
                detectors: [
                    quantity.rawValue: DetectorCalibration(
                        measure: quantity.measure, mapping: mapping, threshold: chosen.confidence, target: target.description,
                        auc: testAnalysis.auc)
                ])
            if var model = baseModel {
                let split = result.heldOut ? "train split" : "every row"
                let evidence =
                    model.evidence.isEmpty ? "" : "; the evidence weights are the measurements' model's" + (model.fit.map { " (\($0.command))" } ?? "")
                model.mapping = mapping
                model.thresholds[quantity.rawValue] = DetectorModel.Threshold(
                    value: chosen.confidence, rule: "\(target.description) on the \(split) of \(result.datasetPath)")
                model.fit = DetectorModel.Provenance(
                    command: result.command, data: "the mapping: \(result.datasetPath), \(split) (\(train.count) images)\(evidence)",
                    created: result.created, figures: [result.heldOut ? "testAUC" : "AUC": testAnalysis.auc])
                result.model = model
            }
        }
    }

    /// Reliability bins for `examples` test images: about 15 in each, between 1 and 10 bins.
    /// Fewer examples a bin would make its observed rate mostly noise (with 5 the 95%
    /// interval of a rate of ½ runs from 0.15 to 0.85).
    static func reliabilityBinCount(examples: Int) -> Int {
        min(10, max(1, examples / 15))
    }

    /// Throws when a split lacks a class, naming the split and what the other one has, so the
    /// fix (move rows between splits, or label more) is plain.
    func requireBothClasses(train: [CalibrationSample], test: [CalibrationSample], heldOut: Bool, unmeasured: [CalibrationSample]) throws {
        let classes = [(1, "defective examples"), (0, "good examples")]
        let splits = heldOut ? [("test", test, train, "train"), ("train", train, test, "test")] : [("dataset", test, [], "")]
        for (name, rows, otherRows, otherName) in splits {
            for (label, what) in classes where !rows.contains(where: { $0.label == label }) {
                let lost = unmeasured.filter { $0.label == label && (!heldOut || $0.split == name) }.count
                let note = lost > 0 ? " (label \(label); \(lost) could not be measured)" : " (label \(label))"
                if heldOut {
                    let other = otherRows.filter { $0.label == label }.count
                    let fix = other > 0 ? "move some of them to the \(name) split" : "the whole dataset has none"
                    throw CalibrationError(
                        "the \(name) split has no measured \(what)\(note); the \(otherName) split has \(other): \(fix). AUC is undefined without both classes")
                }
                throw CalibrationError("the dataset has no measured \(what)\(note): AUC is undefined without both classes")
            }
        }
    }

    private func calibrateScores(train: [CalibrationSample], test: [CalibrationSample], into result: inout CalibrationResult) throws {
        var train = train, test = test
        if quantity == .gate {
            // The predicted accuracy refitted to the accuracy measured with the user's own
            // recognizer on their own pages: two parameters on the predictor's log-odds, fitted
            // on the train split's documents (a photo's score is no prediction); every figure
            // after is on the mapped scale the gate will then use, photos' scores unchanged.
            let fitted = train.filter { $0.score != nil && $0.predictedAccuracy != nil }
            guard fitted.count >= 3 else {
                throw CalibrationError(
                    "the train split has \(fitted.count) documents with a score (a gate refit needs at least 3 pages the gate judges as documents; --content document judges every image so)")
            }
            let fit = try LogisticFit.fit(
                features: fitted.map { AccuracyMapping.logit($0.predictedAccuracy!) }, targets: fitted.map { min(1, max(0, $0.score!)) })
            let mapping = AccuracyMapping(intercept: fit.intercept, slope: fit.slope)
            guard mapping.slope > 0 else {
                throw CalibrationError(
                    "on these pages the gate's predicted accuracy falls as the measured accuracy rises (refitted slope \(String(format: "%.3f", mapping.slope))): it cannot be recalibrated to them")
            }
            result.accuracyMapping = mapping
            for index in train.indices where train[index].predictedAccuracy != nil {
                train[index].measurement = mapping.map(train[index].predictedAccuracy!)
            }
            for index in test.indices where test[index].predictedAccuracy != nil {
                test[index].measurement = mapping.map(test[index].predictedAccuracy!)
            }
        }
        let scored = test.filter { $0.score != nil }
        guard scored.count >= 3 else {
            let place = result.heldOut ? "the test split has \(scored.count) measured rows with a score (train has \(train.filter { $0.score != nil }.count))" : "the dataset has \(scored.count) measured rows with a score"
            throw CalibrationError("\(place); a rank correlation needs at least 3")
        }
        // Readiness: higher should mean a better score.
        let readiness = scored.map { quantity.higherIsDefect ? -$0.measurement! : $0.measurement! }
        let scores = scored.map { $0.score! }
        result.spearman = QualityCalibration.spearman(readiness, scores)
        result.pearson = QualityCalibration.pearson(readiness, scores)
        var generator = SplitMix64(seed: 7)
        var boot: [Double] = []
        for _ in 0..<bootstrapResamples {
            let indices = (0..<scored.count).map { _ in Int(generator.next() % UInt64(scored.count)) }
            if let r = QualityCalibration.spearman(indices.map { readiness[$0] }, indices.map { scores[$0] }) { boot.append(r) }
        }
        boot.sort()
        if !boot.isEmpty {
            result.spearmanInterval = boot[Int(0.025 * Double(boot.count))]...boot[min(boot.count - 1, Int(0.975 * Double(boot.count)))]
        }
        result.testSamples = scored
        if quantity == .gate {
            let pairs = scored.map { (score: $0.measurement!, measured: $0.score!) }
            result.keepAndLose = stride(from: 0.1, through: 0.9001, by: 0.1).map { KeepAndLose(minimum: $0, pairs: pairs) }
            // The refit moves the scale the document minimum applies to: the profile sets it to
            // the minimum chosen for a target accuracy, else to the bundled minimum, on the new scale.
            result.profile = QualityProfile(
                created: result.created, command: result.command, dataset: result.datasetPath, detectors: [:],
                gate: GateCalibration(
                    minimumScore: 0, target: "predicted accuracy refitted to the scores", auc: nil, accuracyMapping: result.accuracyMapping,
                    minimumPredictedAccuracy: QualityPolicy.default.minimumPredictedAccuracy))
        }
        if let accuracyTarget {
            let trainScored = train.filter { $0.score != nil }
            let trainReadiness = trainScored.map { quantity.higherIsDefect ? -$0.measurement! : $0.measurement! }
            // The lowest readiness threshold whose accepted images average at least the target.
            var best: Double?
            for candidate in Set(trainReadiness).sorted() {
                let accepted = zip(trainReadiness, trainScored).filter { $0.0 >= candidate }.map { $0.1.score! }
                guard !accepted.isEmpty else { continue }
                if accepted.reduce(0, +) / Double(accepted.count) >= accuracyTarget {
                    best = candidate
                    break
                }
            }
            guard let threshold = best else { throw CalibrationError("no threshold keeps a mean score of \(accuracyTarget) on the training split") }
            let trainAccepted = zip(trainReadiness, trainScored).filter { $0.0 >= threshold }.map { $0.1.score! }
            let testAccepted = zip(readiness, scored).filter { $0.0 >= threshold }.map { $0.1.score! }
            if quantity == .gate {
                // The documents' minimum is the chosen one; photos keep theirs (minimum score 0).
                result.profile = QualityProfile(
                    created: result.created, command: result.command, dataset: result.datasetPath, detectors: [:],
                    gate: GateCalibration(
                        minimumScore: 0, target: "mean score ≥ \(accuracyTarget)", auc: nil, accuracyMapping: result.accuracyMapping,
                        minimumPredictedAccuracy: threshold))
            }
            result.accuracyThreshold = (
                accuracyTarget, quantity.higherIsDefect ? -threshold : threshold,
                trainAccepted.reduce(0, +) / Double(max(1, trainAccepted.count)),
                testAccepted.isEmpty ? .nan : testAccepted.reduce(0, +) / Double(testAccepted.count),
                Double(testAccepted.count) / Double(scored.count)
            )
        }
    }
}
