/// What a detector measures, in words and units, for help texts and reports.
///
/// Detectors describe themselves (as libvips operations and VMAF feature extractors
/// do) so the CLI help, records and calibration read one source instead of keeping lists.
public struct MetricDescriptor: Sendable, Equatable {
    /// One raw measurement a detector reports beside its confidence.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var meaning: String
        public var units: String
        public var range: ClosedRange<Double>

        public init(_ name: String, _ meaning: String, units: String, range: ClosedRange<Double>) {
            self.name = name
            self.meaning = meaning
            self.units = units
            self.range = range
        }
    }

    /// The record key and `--detectors` name (`blur`, `smudge`, …).
    public var name: String
    /// What a high confidence means.
    public var meaning: String
    /// `defect` (1 = clearly defective) or `quality` (1 = excellent).
    public var direction: String
    public var fields: [Field]
    /// How the cost grows, for users choosing `--detectors`.
    public var cost: String
    /// What else can score high, said plainly.
    public var caveats: String

    public init(name: String, meaning: String, direction: String, fields: [Field], cost: String, caveats: String) {
        self.name = name
        self.meaning = meaning
        self.direction = direction
        self.fields = fields
        self.cost = cost
        self.caveats = caveats
    }
}

/// A monotone map from a raw measurement to a 0–1 confidence:
/// `1 / (1 + exp(−slope · (x − midpoint)))`, where `x` is the raw value or its natural
/// logarithm (`logarithmic`). A profile can replace the two parameters.
public struct LogisticMapping: Sendable, Equatable, Codable {
    public var midpoint: Double
    public var slope: Double
    public var logarithmic: Bool

    public init(midpoint: Double, slope: Double, logarithmic: Bool = false) {
        self.midpoint = midpoint
        self.slope = slope
        self.logarithmic = logarithmic
    }

    public func callAsFunction(_ raw: Double) -> Double {
        let x = logarithmic ? log(max(raw, 1e-9)) : raw
        let z = slope * (x - (logarithmic ? log(max(midpoint, 1e-9)) : midpoint))
        return 1 / (1 + exp(-z))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
