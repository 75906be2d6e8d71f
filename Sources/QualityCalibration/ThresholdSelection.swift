/// What the operator asks of the chosen threshold.
public enum ThresholdTarget: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The lowest threshold whose precision is at least `p` (catch the most while keeping alarms right).
    case precision(Double)
    /// The highest threshold whose recall is at least `r` (miss no more than 1 − r).
    case recall(Double)
    /// The lowest threshold whose false-positive rate is at most `f`.
    case falsePositiveRate(Double)
    /// The threshold minimising `falsePositive · FP + falseNegative · FN`.
    case cost(falsePositive: Double, falseNegative: Double)
    /// The threshold maximising F1.
    case bestF1

    public var description: String {
        switch self {
        case .precision(let p): "precision ≥ \(p)"
        case .recall(let r): "recall ≥ \(r)"
        case .falsePositiveRate(let f): "false-positive rate ≤ \(f)"
        case .cost(let a, let b): "cost FP:FN = \(a):\(b)"
        case .bestF1: "best F1"
        }
    }
}

extension BinaryAnalysis {
    /// The operating point meeting `target` on the sweep, or nil when none does.
    /// Thresholds are the measured values themselves (≥ is defective).
    public func operatingPoint(for target: ThresholdTarget) -> OperatingPoint? {
        let candidates = sweep.dropFirst()  // finite thresholds only
        switch target {
        case .precision(let p):
            return candidates.last { $0.precision >= p && $0.truePositives > 0 }
        case .recall(let r):
            return candidates.first { $0.recall >= r }
        case .falsePositiveRate(let f):
            return candidates.last { $0.falsePositiveRate <= f }
        case .cost(let a, let b):
            return candidates.min { a * Double($0.falsePositives) + b * Double($0.falseNegatives) < a * Double($1.falsePositives) + b * Double($1.falseNegatives) }
        case .bestF1:
            return candidates.max { $0.f1 < $1.f1 }
        }
    }

    /// The point maximising Youden's J.
    public var youdenPoint: OperatingPoint {
        sweep.dropFirst().max { $0.youden < $1.youden } ?? sweep[0]
    }
}
