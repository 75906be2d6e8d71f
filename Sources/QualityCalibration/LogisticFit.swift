import Foundation

/// A logistic regression of a binary label on one feature, `P(1 | x) = 1 / (1 + e^−(a + b·x))`,
/// fitted by Newton–Raphson (iteratively reweighted least squares) with a small ridge
/// penalty on `b` so perfectly separable data still gives finite parameters.
///
/// Logistic rather than isotonic: two parameters generalise from the few hundred
/// images of a calibration set, the map stays strictly monotone and smooth (confidences
/// do not jump at arbitrary steps), and it extrapolates sensibly beyond the range seen.
/// The reliability diagram in the report shows how well it fits.
public struct LogisticFit: Sendable, Equatable, Codable {
    public var intercept: Double
    public var slope: Double

    public init(intercept: Double, slope: Double) {
        self.intercept = intercept
        self.slope = slope
    }

    public func probability(_ x: Double) -> Double { 1 / (1 + exp(-(intercept + slope * x))) }

    /// The feature value where the probability is 0.5.
    public var midpoint: Double { slope != 0 ? -intercept / slope : 0 }

    /// Fits `labels` (0/1) on `features`.
    /// - Throws: `CalibrationError` for empty input, a missing class, or non-finite features.
    public static func fit(features: [Double], labels: [Int], ridge: Double = 1e-3) throws -> LogisticFit {
        guard labels.contains(0), labels.contains(1) else { throw CalibrationError("a logistic fit needs both classes") }
        return try fit(features: features, targets: labels.map(Double.init), ridge: ridge)
    }

    /// Fits `targets`, fractions in 0–1 (a measured accuracy), on `features` by their
    /// binomial likelihood: the logistic curve whose expected value follows them.
    /// - Throws: `CalibrationError` for empty input, targets outside 0–1, targets all equal,
    ///   or non-finite features.
    public static func fit(features: [Double], targets labels: [Double], ridge: Double = 1e-3) throws -> LogisticFit {
        guard features.count == labels.count, !features.isEmpty else { throw CalibrationError("nothing to fit") }
        guard labels.allSatisfy({ (0...1).contains($0) }) else { throw CalibrationError("a logistic fit needs targets from 0 to 1") }
        guard Set(labels).count > 1 else { throw CalibrationError("a logistic fit needs targets that differ") }
        guard features.allSatisfy(\.isFinite) else { throw CalibrationError("a feature is not finite") }
        // Standardise for a well-conditioned Newton step, then map back.
        let n = Double(features.count)
        let mean = features.reduce(0, +) / n
        let spread = max((features.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n).squareRoot(), 1e-12)
        let z = features.map { ($0 - mean) / spread }
        var a = 0.0, b = 0.0
        for _ in 0..<100 {
            var ga = 0.0, gb = -ridge * b, haa = 0.0, hab = 0.0, hbb = ridge
            for (x, y) in zip(z, labels) {
                let p = 1 / (1 + exp(-(a + b * x)))
                let w = max(p * (1 - p), 1e-12)
                ga += y - p
                gb += (y - p) * x
                haa += w
                hab += w * x
                hbb += w * x * x
            }
            let determinant = haa * hbb - hab * hab
            guard determinant > 1e-18 else { break }
            let da = (hbb * ga - hab * gb) / determinant
            let db = (haa * gb - hab * ga) / determinant
            a += da
            b += db
            if abs(da) + abs(db) < 1e-10 { break }
        }
        return LogisticFit(intercept: a - b * mean / spread, slope: b / spread)
    }
}

/// One bin of a reliability diagram: mean predicted confidence against observed rate.
public struct ReliabilityBin: Sendable, Equatable, Codable {
    /// The lowest and highest confidence in the bin.
    public var lower: Double
    public var upper: Double
    public var count: Int
    public var meanConfidence: Double
    public var observedRate: Double

    /// A 95% Wilson score interval of the observed rate: how far `count` examples let it
    /// wander from the true rate (wide for a few examples, never outside 0…1).
    public var observedInterval: ClosedRange<Double> {
        guard count > 0 else { return 0...1 }
        let z = 1.959964, n = Double(count), p = observedRate
        let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        let half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
        return max(0, centre - half)...min(1, centre + half)
    }
}

/// Reliability bins of predicted confidences against 0/1 outcomes: up to `bins` bins, each
/// holding about the same number of examples, in order of confidence.
///
/// Equal counts rather than equal widths: a good detector puts most confidences near 0 or 1,
/// so equal-width bins in between hold one or two examples each, and their observed rates
/// (0, 1, ½) make a jagged line that says more about the count than the calibration.
/// Equal confidences stay in one bin, so a bin can hold more than its share and there can be
/// fewer bins than asked.
public func reliability(confidences: [Double], labels: [Int], bins: Int = 10) -> [ReliabilityBin] {
    let sorted = zip(confidences, labels).sorted { $0.0 < $1.0 }
    guard !sorted.isEmpty, bins > 0 else { return [] }
    var result: [ReliabilityBin] = []
    var start = 0
    for index in 0..<bins where start < sorted.count {
        // The bin ends where an even share would, moved on past ties with its last member.
        var end = max(start + 1, sorted.count * (index + 1) / bins)
        if index == bins - 1 { end = sorted.count }
        while end < sorted.count && sorted[end].0 == sorted[end - 1].0 { end += 1 }
        let members = sorted[start..<end]
        let count = members.count
        result.append(
            ReliabilityBin(
                lower: members.first!.0, upper: members.last!.0, count: count,
                meanConfidence: members.reduce(0) { $0 + $1.0 } / Double(count),
                observedRate: Double(members.filter { $0.1 == 1 }.count) / Double(count)))
        start = end
    }
    return result
}

/// Expected calibration error: Σ (nᵢ/N)·|observedᵢ − meanConfidenceᵢ|.
public func expectedCalibrationError(_ bins: [ReliabilityBin]) -> Double {
    let total = bins.reduce(0) { $0 + $1.count }
    guard total > 0 else { return 0 }
    return bins.reduce(0) { $0 + Double($1.count) / Double(total) * abs($1.observedRate - $1.meanConfidence) }
}
