import ImagingCore

/// What a detector measures, in words and units, for help texts, records, schemas and reports.
///
/// Detectors describe themselves (as libvips operations and VMAF feature extractors
/// do) so the CLI help, the score record, its JSON Schema, profiles and calibration
/// reports read one source instead of keeping lists.
public struct MetricDescriptor: Sendable, Equatable {
    /// One member of the detector's record: its confidence or score, or a raw measurement.
    public struct Field: Sendable, Equatable {
        /// The kind of value a member holds.
        public enum Kind: Sendable, Equatable {
            /// A number, rounded to 4 decimals in records.
            case number
            /// true or false.
            case flag
            /// One of a few fixed strings.
            case label([String])
            /// A list of pixel rectangles (`{"x","y","width","height"}`, top-left origin).
            case boxes
        }

        public var name: String
        public var meaning: String
        public var units: String
        /// The values a number can take (for a flag or label, 0…1 by convention).
        public var range: ClosedRange<Double>
        public var kind: Kind
        /// Measured and recorded only when diagnostics are asked for (`--diagnostics`): the
        /// confidence does not read it, and it costs time.
        public var isDiagnostic = false

        public init(_ name: String, _ meaning: String, units: String, range: ClosedRange<Double>, kind: Kind = .number) {
            self.name = name
            self.meaning = meaning
            self.units = units
            self.range = range
            self.kind = kind
        }
    }

    /// The raw measurement a detector's confidence maps from, which calibration fits and
    /// profiles replace the mapping of.
    public struct Calibration: Sendable, Equatable {
        /// Its name in reports and profiles (`edgeWidth`, `evidence`).
        public var measure: String
        public var meaning: String
        /// Whether the mapping works on the measurement's logarithm (it spans decades).
        public var logarithmic: Bool

        public init(measure: String, meaning: String, logarithmic: Bool = false) {
            self.measure = measure
            self.meaning = meaning
            self.logarithmic = logarithmic
        }
    }

    /// The record key and `--detectors` name (`blur`, `smudge`, …).
    public var name: String
    /// What a high confidence means.
    public var meaning: String
    /// `defect` (1 = clearly defective), `quality` (1 = excellent) or `measure`.
    public var direction: String
    /// The record's members, in record order.
    public var fields: [Field]
    /// How the cost grows, for users choosing `--detectors`.
    public var cost: String
    /// What else can score high, said plainly.
    public var caveats: String
    /// What calibration fits, for detectors whose confidence comes from a fitted mapping.
    public var calibration: Calibration?

    public init(
        name: String, meaning: String, direction: String, fields: [Field], cost: String, caveats: String,
        calibration: Calibration? = nil
    ) {
        self.name = name
        self.meaning = meaning
        self.direction = direction
        self.fields = fields
        self.cost = cost
        self.caveats = caveats
        self.calibration = calibration
    }

    /// The field called `name`, if the detector has one.
    public func field(named name: String) -> Field? {
        fields.first { $0.name == name }
    }
}

/// Where one descriptor field lives in a detector's observation, so records are written
/// and read member by member from the descriptor.
public struct ObservationField<Observation>: @unchecked Sendable {
    // Key paths are immutable values; the unchecked conformance covers them.
    enum Access {
        case number(WritableKeyPath<Observation, Double>)
        case flag(WritableKeyPath<Observation, Bool>)
        case label(get: (Observation) -> String, set: (inout Observation, String) -> Bool)
        case boxes(WritableKeyPath<Observation, [PixelRect]>)
        /// Written from other members; reading a record derives it again.
        case derivedFlag((Observation) -> Bool)
    }

    public private(set) var field: MetricDescriptor.Field
    let access: Access

    /// The same member, measured and recorded only with diagnostics.
    public var diagnostic: Self {
        var copy = self
        copy.field.isDiagnostic = true
        return copy
    }

    /// A numeric member.
    public static func number(
        _ name: String, _ keyPath: WritableKeyPath<Observation, Double>, _ meaning: String, units: String, range: ClosedRange<Double>
    ) -> Self {
        Self(field: .init(name, meaning, units: units, range: range), access: .number(keyPath))
    }

    /// A true/false member.
    public static func flag(_ name: String, _ keyPath: WritableKeyPath<Observation, Bool>, _ meaning: String) -> Self {
        Self(field: .init(name, meaning, units: "bool", range: 0...1, kind: .flag), access: .flag(keyPath))
    }

    /// A true/false member derived from the others: written, and derived again when read.
    public static func derivedFlag(_ name: String, _ value: @escaping @Sendable (Observation) -> Bool, _ meaning: String) -> Self {
        Self(field: .init(name, meaning, units: "bool", range: 0...1, kind: .flag), access: .derivedFlag(value))
    }

    /// A list of rectangles in full-resolution pixels.
    public static func boxes(_ name: String, _ keyPath: WritableKeyPath<Observation, [PixelRect]>, _ meaning: String) -> Self {
        Self(field: .init(name, meaning, units: "px", range: 0...1, kind: .boxes), access: .boxes(keyPath))
    }

    /// A member holding one of an enumeration's raw values.
    public static func label<Value: RawRepresentable & CaseIterable>(
        _ name: String, _ keyPath: WritableKeyPath<Observation, Value>, _ meaning: String
    ) -> Self where Value.RawValue == String {
        Self(
            field: .init(name, meaning, units: "label", range: 0...1, kind: .label(Value.allCases.map(\.rawValue))),
            access: .label(
                get: { $0[keyPath: keyPath].rawValue },
                set: { observation, text in
                    guard let value = Value(rawValue: text) else { return false }
                    observation[keyPath: keyPath] = value
                    return true
                }))
    }
}

/// A detector's answer, recorded member by member in its descriptor's order.
///
/// Conforming types list their `fields`; `Codable` comes from them, so the record's
/// members, the schema and the descriptor cannot drift apart.
public protocol DetectorObservation: Sendable, Equatable, Codable {
    /// The record's members, in order; the descriptor's fields are these.
    static var fields: [ObservationField<Self>] { get }
    /// Every member zero (or false): the start of decoding.
    init()
    /// Whether the diagnostic fields were measured, so the record holds them (true by
    /// default: a type without diagnostic fields has nothing to leave out).
    var includesDiagnostics: Bool { get set }
    /// The numeric measurement called `name`: a numeric field, or (for a detector whose
    /// calibrated measure is derived from several fields) that measure; nil for neither.
    func measurement(_ name: String) -> Double?
    /// What the gate checks of a photo's observation of this kind, or nil when it checks
    /// nothing (the default): a detector with a criterion is a gate criterion under its own
    /// name, with no other code changed.
    static var photoCriterion: PhotoCriterion? { get }
    /// What this observation's failure means in words, when more specific than the
    /// criterion's (`underexposed` rather than `badly exposed`); nil by default.
    var failureWords: String? { get }
}

/// A confidence the gate holds against a threshold on photos: it fails above it.
///
/// The reason and the policy key are the detector's name; the threshold is the policy's
/// value under that key, else `defaultThreshold`.
public struct PhotoCriterion: Sendable, Equatable {
    /// The numeric field compared with the threshold (`confidence`).
    public var field: String
    /// What is compared, in words (`blur confidence`).
    public var measure: String
    /// What a failure means, in a few words (`blurred`).
    public var words: String
    /// The criterion in one line, for `--help`: what fails and when.
    public var explanation: String
    /// The threshold when the policy sets none (the built-in detectors' come from their
    /// model files).
    public var defaultThreshold: Double

    public init(field: String = "confidence", measure: String, words: String, explanation: String, defaultThreshold: Double) {
        self.field = field
        self.measure = measure
        self.words = words
        self.explanation = explanation
        self.defaultThreshold = defaultThreshold
    }
}

/// A coding key made from a field name.
public struct FieldKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

extension DetectorObservation {
    /// The descriptor fields, in record order.
    public static var descriptorFields: [MetricDescriptor.Field] { fields.map(\.field) }

    /// The numeric field called `name`, or nil when there is none.
    public func numericField(_ name: String) -> Double? {
        for member in Self.fields where member.field.name == name {
            if case .number(let keyPath) = member.access { return self[keyPath: keyPath] }
        }
        return nil
    }

    public func measurement(_ name: String) -> Double? { numericField(name) }

    public static var photoCriterion: PhotoCriterion? { nil }

    public var failureWords: String? { nil }

    public var includesDiagnostics: Bool {
        get { true }
        set {}
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for member in Self.fields where includesDiagnostics || !member.field.isDiagnostic {
            let key = FieldKey(member.field.name)
            switch member.access {
            case .number(let keyPath): try container.encode(self[keyPath: keyPath], forKey: key)
            case .flag(let keyPath): try container.encode(self[keyPath: keyPath], forKey: key)
            case .label(let get, _): try container.encode(get(self), forKey: key)
            case .boxes(let keyPath): try container.encode(self[keyPath: keyPath], forKey: key)
            case .derivedFlag(let value): try container.encode(value(self), forKey: key)
            }
        }
    }

    /// Members a record lacks (one written by an earlier version) keep their zero value;
    /// a number written as null (not finite) reads as NaN.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: FieldKey.self)
        for member in Self.fields {
            let key = FieldKey(member.field.name)
            guard container.contains(key) else { continue }
            if member.field.isDiagnostic { includesDiagnostics = true }
            switch member.access {
            case .number(let keyPath):
                self[keyPath: keyPath] = try container.decodeIfPresent(Double.self, forKey: key) ?? .nan
            case .flag(let keyPath):
                self[keyPath: keyPath] = try container.decode(Bool.self, forKey: key)
            case .boxes(let keyPath):
                self[keyPath: keyPath] = try container.decode([PixelRect].self, forKey: key)
            case .derivedFlag:
                continue
            case .label(_, let set):
                let text = try container.decode(String.self, forKey: key)
                guard set(&self, text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: container, debugDescription: "\"\(text)\" is not one of \(member.field.kind)")
                }
            }
        }
    }
}

/// A monotone map from a raw measurement to a 0–1 confidence:
/// `1 / (1 + exp(−slope · (x − midpoint)))`, where `x` is the raw value or its natural
/// logarithm (`logarithmic`). A profile can replace the two parameters.
public struct LogisticMapping: Sendable, Equatable, Codable {
    public var midpoint: Double
    public var slope: Double
    public var logarithmic: Bool

    /// The keys of its JSON form, which a profile is checked against.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case midpoint, slope, logarithmic
    }

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
