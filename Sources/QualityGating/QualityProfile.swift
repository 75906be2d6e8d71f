import Foundation
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

    public init(measure: String, mapping: LogisticMapping, threshold: Double, target: String, auc: Double?) {
        self.measure = measure
        self.mapping = mapping
        self.threshold = threshold
        self.target = target
        self.auc = auc
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

    public init(created: String, command: String, dataset: String, detectors: [String: DetectorCalibration]) {
        version = 1
        self.created = created
        self.command = command
        self.dataset = dataset
        self.detectors = detectors
    }

    public static func load(contentsOf path: String) throws -> QualityProfile {
        let profile = try JSONDecoder().decode(QualityProfile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard profile.version == 1 else { throw ProfileError("profile version \(profile.version) is not supported (expected 1)") }
        for name in profile.detectors.keys where !["blur", "smudge", "exposure"].contains(name) {
            throw ProfileError("profile calibrates unknown detector \"\(name)\"")
        }
        return profile
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Replaces the calibrated detectors' mappings and the policy's thresholds.
    public func apply(to analyzer: inout QualityAnalyzer, policy: inout QualityPolicy) {
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
            policy.exposure = exposure.threshold
        }
    }
}

/// Why a profile cannot be used.
public struct ProfileError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
