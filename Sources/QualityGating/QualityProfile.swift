import Foundation
import ImagingCore
import QualityMetrics

/// What calibration learned for one detector: the map from its raw measurement to a
/// confidence and the chosen confidence threshold.
public struct DetectorCalibration: Sendable, Equatable, Codable {
    /// The raw measurement the mapping reads (`edgeWidth`, `evidence`).
    public var measure: String
    public var mapping: LogisticMapping
    /// Confidence at or above which the gate rejects.
    public var threshold: Double
    /// How the threshold was chosen (`best F1`, `precision ≥ 0.9`, …).
    public var target: String
    /// Held-out AUC of the detector on the dataset, when it had labels.
    public var auc: Double?

    /// The keys of its JSON form, which a profile is checked against.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case measure, mapping, threshold, target, auc
    }

    public init(measure: String, mapping: LogisticMapping, threshold: Double, target: String, auc: Double?) {
        self.measure = measure
        self.mapping = mapping
        self.threshold = threshold
        self.target = target
        self.auc = auc
    }
}

/// What calibration chose for the gate as a whole: the smallest `gate.score` that passes.
public struct GateCalibration: Sendable, Equatable, Codable {
    public var minimumScore: Double
    /// How it was chosen (`best F1`, `mean score ≥ 0.9`, …).
    public var target: String
    /// Held-out AUC of the gate score on the dataset, when it had labels.
    public var auc: Double?
    /// The predicted accuracy refitted to the accuracy measured on the user's own pages with
    /// their recognizer, when the labels were scores (`AccuracyMapping`).
    public var accuracyMapping: AccuracyMapping?
    /// The documents' minimum on the refitted scale (the policy's `minimumPredictedAccuracy`),
    /// written with the refit.
    public var minimumPredictedAccuracy: Double?

    /// The keys of its JSON form, which a profile is checked against.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case minimumScore, target, auc, accuracyMapping, minimumPredictedAccuracy
    }

    public init(
        minimumScore: Double, target: String, auc: Double?, accuracyMapping: AccuracyMapping? = nil, minimumPredictedAccuracy: Double? = nil
    ) {
        self.minimumScore = minimumScore
        self.target = target
        self.auc = auc
        self.accuracyMapping = accuracyMapping
        self.minimumPredictedAccuracy = minimumPredictedAccuracy
    }
}

/// A calibration profile: per detector, the fitted mapping and chosen threshold, with
/// the dataset, date and command that produced it. `score`, `gate` and `ocr` load it
/// with `--profile`; `imgquality calibrate` writes it next to its report.
public struct QualityProfile: Sendable, Equatable, Codable {
    public var version: Int
    public var created: String
    public var command: String
    public var dataset: String
    public var detectors: [String: DetectorCalibration]
    /// The gate's minimum score, from `calibrate --detector gate`.
    public var gate: GateCalibration?
    /// Whole detector models (the format of `Sources/QualityMetrics/Models/`) that replace
    /// the bundled ones, by detector, before `detectors` maps their output.
    public var models: [String: DetectorModel]?

    /// The keys of its JSON form: a file with others is refused.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case version, created, command, dataset, detectors, gate, models
    }

    public init(
        created: String, command: String, dataset: String, detectors: [String: DetectorCalibration], gate: GateCalibration? = nil,
        models: [String: DetectorModel]? = nil
    ) {
        version = 1
        self.created = created
        self.command = command
        self.dataset = dataset
        self.detectors = detectors
        self.gate = gate
        self.models = models
    }

    /// The detectors a profile can calibrate: those whose descriptor names a calibrated measure.
    public static let calibratedDetectors = DetectorKind.allCases.filter { $0.descriptor.calibration != nil }

    /// Reads and checks a profile file.
    /// - Throws: `ProfileError`.
    public static func load(contentsOf path: String) throws(ProfileError) -> QualityProfile {
        let data: Data
        do {
            data = Data(try FileAccess.readAll(path))
        } catch {
            throw ProfileError(.unreadable, "cannot read the profile \(path): \(error.reason)")
        }
        let profile: QualityProfile
        do {
            profile = try JSONDecoder().decode(QualityProfile.self, from: data)
        } catch {
            throw ProfileError(.invalid, "\(path) is not a calibration profile: \(JSONDecodingWords.describe(error))")
        }
        // A key this version does not read would be silently ignored: refuse it, at any depth.
        let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        var objects: [(Any?, [String], String)] = [
            (root, KnownKeys.of(CodingKeys.self), ""), (root?["gate"], KnownKeys.of(GateCalibration.CodingKeys.self), "gate."),
            ((root?["gate"] as? [String: Any])?["accuracyMapping"], KnownKeys.of(AccuracyMapping.CodingKeys.self), "gate.accuracyMapping."),
        ]
        for (name, calibration) in (root?["detectors"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            objects.append((calibration, KnownKeys.of(DetectorCalibration.CodingKeys.self), "detectors.\(name)."))
            let mapping = (calibration as? [String: Any])?["mapping"]
            objects.append((mapping, KnownKeys.of(LogisticMapping.CodingKeys.self), "detectors.\(name).mapping."))
        }
        for (object, known, place) in objects {
            if let problem = KnownKeys.unknown(in: object, known: known, at: place, source: path) { throw ProfileError(.invalid, problem) }
        }
        // Thresholds are confidences and the minimum score a gate score: outside 0–1 they
        // would pass or reject every image.
        for (name, calibration) in profile.detectors.sorted(by: { $0.key < $1.key }) where !(0...1).contains(calibration.threshold) {
            throw ProfileError(.invalid, "\(path): detectors.\(name).threshold must be a confidence from 0 to 1, got \(calibration.threshold)")
        }
        if let gate = profile.gate, !(0...1).contains(gate.minimumScore) {
            throw ProfileError(.invalid, "\(path): gate.minimumScore must be a gate score from 0 to 1, got \(gate.minimumScore)")
        }
        guard profile.version == 1 else {
            throw ProfileError(.invalid, "\(path): profile version \(profile.version) is not supported (expected 1)")
        }
        // Each model is checked as a model file would be: no unknown key, and it fits the
        // detector it names.
        if let models = root?["models"] as? [String: Any] {
            for (name, model) in models.sorted(by: { $0.key < $1.key }) {
                do {
                    _ = try DetectorModel.decode(try JSONSerialization.data(withJSONObject: model), source: "\(path): models.\(name)")
                } catch let error as ModelError {
                    throw ProfileError(.invalid, error.message)
                } catch {
                    throw ProfileError(.invalid, "\(path): models.\(name) is not a detector model")
                }
            }
        }
        for (name, model) in (profile.models ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let requirements = ModelSet.requirements[name] else {
                throw ProfileError(
                    .invalid, "\(path): models.\(name) names no known detector (known: \(ModelSet.requirements.keys.sorted().joined(separator: ", ")))")
            }
            guard model.detector == name else {
                throw ProfileError(.invalid, "\(path): models.\(name) holds a model of \"\(model.detector)\"")
            }
            do {
                _ = try model.validated(as: requirements, source: "\(path): models.\(name)")
            } catch {
                throw ProfileError(.invalid, error.message)
            }
        }
        let known = calibratedDetectors.map(\.rawValue)
        for name in profile.detectors.keys.sorted() where !known.contains(name) {
            throw ProfileError(
                .invalid, "\(path) calibrates unknown detector \"\(name)\" (known: \(known.joined(separator: ", ")))")
        }
        // A mapping reads one measure: applied to another (a profile calibrated on blur's edge
        // width before 0.21.0, which maps its evidence) it would give meaningless confidences.
        for kind in calibratedDetectors {
            guard let calibration = profile.detectors[kind.rawValue], let measure = kind.descriptor.calibration?.measure,
                calibration.measure != measure
            else { continue }
            throw ProfileError(
                .invalid,
                "\(path): detectors.\(kind.rawValue) maps \"\(calibration.measure)\", but this version calibrates \(kind.rawValue) on \"\(measure)\": recalibrate with imgquality calibrate --detector \(kind.rawValue)")
        }
        return profile
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Replaces the models it holds, then the calibrated detectors' mappings and the
    /// policy's thresholds.
    public func apply(to analyzer: inout QualityAnalyzer, policy: inout QualityPolicy) {
        for (_, model) in (models ?? [:]).sorted(by: { $0.key < $1.key }) { model.apply(to: &analyzer, policy: &policy) }
        if let gate {
            policy.minimumScore = gate.minimumScore
            if let mapping = gate.accuracyMapping { policy.accuracyMapping = mapping }
            if let minimum = gate.minimumPredictedAccuracy { policy.minimumPredictedAccuracy = minimum }
        }
        if let blur = detectors["blur"] {
            analyzer.blur.mapping = blur.mapping
            policy.blur = blur.threshold
        }
        if let smudge = detectors["smudge"] {
            analyzer.smudge.mapping = smudge.mapping
            policy.smudge = smudge.threshold
        }
        if let exposure = detectors["exposure"] {
            analyzer.exposure.under = exposure.mapping
            analyzer.exposure.over = exposure.mapping
            analyzer.exposure.backlit = exposure.mapping
            policy.exposure = exposure.threshold
        }
    }
}

extension DetectorModel {
    /// Puts this model in force: its detector's parameters in `analyzer` and its thresholds
    /// in `policy`.
    /// - Precondition: the model was checked against its detector (`ModelSet.loadModel`,
    ///   `QualityProfile.load`).
    public func apply(to analyzer: inout QualityAnalyzer, policy: inout QualityPolicy) {
        switch detector {
        case "blur": analyzer.blur = BlurDetector(model: self)
        case "smudge": analyzer.smudge = SmudgeDetector(model: self)
        case "exposure": analyzer.exposure = ExposureDetector(model: self)
        case "aesthetic": analyzer.aesthetics = AestheticsDetector(model: self)
        default: break
        }
        for (key, threshold) in thresholds.sorted(by: { $0.key < $1.key }) {
            // Validation allowed only the detector's own policy keys, with values in range.
            do {
                try policy.setThreshold(key, to: threshold.value)
            } catch {
                preconditionFailure("the \(detector) model was not validated: \(error.message)")
            }
        }
    }
}

/// Why a profile cannot be used.
public typealias ProfileError = KindedError<ProfileErrorKind>

/// The classes of `ProfileError`, each with its stable code.
public enum ProfileErrorKind: String, ErrorKind {
    /// The file cannot be read.
    case unreadable = "profile.unreadable"
    /// The file is not a profile this version understands.
    case invalid = "profile.invalid"
}
