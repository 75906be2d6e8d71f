import ImagingCore

/// One labeled measurement: higher `value` should mean "defective" (`label` 1).
public struct LabeledValue: Sendable, Equatable {
    public var value: Double
    public var label: Int

    public init(_ value: Double, label: Int) {
        self.value = value
        self.label = label
    }
}

/// Why a dataset cannot be calibrated.
public typealias CalibrationError = KindedError<CalibrationErrorKind>

/// The classes of `CalibrationError`.
public enum CalibrationErrorKind: String, ErrorKind {
    /// The data cannot support the fit or the target: too few rows, one class only, no
    /// threshold that meets the target.
    case insufficientData = "calibrate.insufficientData"
    /// The labels file cannot be read, is not UTF-8 CSV, or has a bad row.
    case badLabels = "calibrate.badLabels"
    /// The report's folder or one of its files cannot be written.
    case reportNotWritten = "calibrate.reportNotWritten"
    /// The detector or field to calibrate is not one the registry knows.
    case unknownQuantity = "calibrate.unknownQuantity"
}

extension KindedError where Kind == CalibrationErrorKind {
    /// A calibration failure: always the data's.
    public init(_ message: String) { self.init(.insufficientData, message) }
}

/// A point of a threshold sweep: everything at or above `threshold` is called defective.
public struct OperatingPoint: Sendable, Equatable, Codable {
    public var threshold: Double
    public var truePositives: Int
    public var falsePositives: Int
    public var trueNegatives: Int
    public var falseNegatives: Int

    public var recall: Double { ratio(truePositives, truePositives + falseNegatives) }
    public var truePositiveRate: Double { recall }
    public var falsePositiveRate: Double { ratio(falsePositives, falsePositives + trueNegatives) }
    /// 1 when nothing is called defective (no false alarms among no calls).
    public var precision: Double { truePositives + falsePositives == 0 ? 1 : ratio(truePositives, truePositives + falsePositives) }
    public var f1: Double {
        let p = precision, r = recall
        return p + r > 0 ? 2 * p * r / (p + r) : 0
    }
    /// Youden's J: TPR − FPR.
    public var youden: Double { truePositiveRate - falsePositiveRate }
    public var accuracy: Double {
        ratio(truePositives + trueNegatives, truePositives + trueNegatives + falsePositives + falseNegatives)
    }

    private func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? 0 : Double(a) / Double(b) }
}

/// ROC and precision–recall analysis of a binary detector.
public struct BinaryAnalysis: Sendable {
    public let values: [LabeledValue]
    public let positives: Int
    public let negatives: Int
    /// One point per distinct value, from the highest threshold (nothing called) down,
    /// preceded by the "call nothing" point at +∞.
    public let sweep: [OperatingPoint]

    /// - Throws: `CalibrationError` when a class is missing or a value is not finite.
    public init(_ values: [LabeledValue]) throws {
        guard values.allSatisfy({ $0.value.isFinite }) else { throw CalibrationError("a measurement is not a finite number") }
        guard values.allSatisfy({ $0.label == 0 || $0.label == 1 }) else { throw CalibrationError("labels must be 0 or 1") }
        let positives = values.filter { $0.label == 1 }.count
        let negatives = values.count - positives
        guard positives > 0 else { throw CalibrationError("no defective examples (label 1): AUC is undefined") }
        guard negatives > 0 else { throw CalibrationError("no good examples (label 0): AUC is undefined") }
        self.values = values
        self.positives = positives
        self.negatives = negatives
        let sorted = values.sorted { $0.value > $1.value }
        var points = [OperatingPoint(threshold: .infinity, truePositives: 0, falsePositives: 0, trueNegatives: negatives, falseNegatives: positives)]
        var tp = 0, fp = 0, i = 0
        while i < sorted.count {
            let threshold = sorted[i].value
            while i < sorted.count && sorted[i].value == threshold {
                if sorted[i].label == 1 { tp += 1 } else { fp += 1 }
                i += 1
            }
            points.append(OperatingPoint(threshold: threshold, truePositives: tp, falsePositives: fp, trueNegatives: negatives - fp, falseNegatives: positives - tp))
        }
        sweep = points
    }

    /// Area under the ROC curve (trapezoids: ties count half, as Mann–Whitney's U).
    public var auc: Double {
        var area = 0.0
        for (a, b) in zip(sweep, sweep.dropFirst()) {
            area += (b.falsePositiveRate - a.falsePositiveRate) * (a.truePositiveRate + b.truePositiveRate) / 2
        }
        return area
    }

    /// Average precision: Σ (Rₙ − Rₙ₋₁) · Pₙ over the sweep (no interpolation).
    public var averagePrecision: Double {
        var total = 0.0
        for (a, b) in zip(sweep, sweep.dropFirst()) { total += (b.recall - a.recall) * b.precision }
        return total
    }

    /// A percentile bootstrap interval of `statistic`, resampling within each class so
    /// every resample has both. Deterministic for a given `seed`.
    public func bootstrap(
        _ statistic: (BinaryAnalysis) -> Double, resamples: Int = 1000, level: Double = 0.95, seed: UInt64 = 1
    ) -> ClosedRange<Double> {
        let pos = values.filter { $0.label == 1 }, neg = values.filter { $0.label == 0 }
        var generator = SplitMix64(seed: seed)
        var results: [Double] = []
        for _ in 0..<resamples {
            var sample: [LabeledValue] = []
            for _ in 0..<pos.count { sample.append(pos[Int(generator.next() % UInt64(pos.count))]) }
            for _ in 0..<neg.count { sample.append(neg[Int(generator.next() % UInt64(neg.count))]) }
            if let analysis = try? BinaryAnalysis(sample) { results.append(statistic(analysis)) }
        }
        results.sort()
        guard !results.isEmpty else { return 0...0 }
        let tail = (1 - level) / 2
        let low = results[min(results.count - 1, Int(tail * Double(results.count)))]
        let high = results[min(results.count - 1, Int((1 - tail) * Double(results.count)))]
        return low...high
    }

    /// The operating point with the given threshold applied (≥ threshold is defective).
    public func point(at threshold: Double) -> OperatingPoint {
        var tp = 0, fp = 0
        for v in values where v.value >= threshold {
            if v.label == 1 { tp += 1 } else { fp += 1 }
        }
        return OperatingPoint(threshold: threshold, truePositives: tp, falsePositives: fp, trueNegatives: negatives - fp, falseNegatives: positives - tp)
    }
}

/// SplitMix64: a small seeded generator so bootstraps repeat exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
