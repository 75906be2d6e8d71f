import Foundation
import ImagingCore

/// A detector's fitted parameters, as data: the file a fitting script writes and the
/// detector reads at start.
///
/// Each bundled detector model is a JSON file in `Sources/QualityMetrics/Models/`
/// (`smudge.json`, …), written by the script named in its `fit.command` and never copied
/// into Swift by hand (as VMAF keeps its models under `model/`). A refit is a new file, not
/// a code change. `imgquality calibrate --report DIR` writes the same format beside its
/// profile, and a profile's `models` member, or `--model FILE`, replaces a bundled model.
///
/// ```json
/// {"format": 1, "detector": "smudge",
///  "evidence": {"smudge": {"intercept": -1.59, "weights": {"veilFraction": 11.4, "veilShare": 6.15}}},
///  "mapping": {"midpoint": 0, "slope": 1, "logarithmic": false},
///  "thresholds": {"smudge": {"value": 0.78, "rule": "at most 5% of clean train photos flagged"}},
///  "fit": {"command": "…", "data": "…", "created": "…", "figures": {"testAUC": 0.95}}}
/// ```
public struct DetectorModel: Sendable, Equatable, Codable {
    /// The model file format this version reads.
    public static let currentFormat = 1

    public var format: Int
    /// The detector it parameterises (`blur`, `smudge`, `exposure`, `text`).
    public var detector: String
    /// Named linear models giving log-odds from the detector's measurements (the smudge
    /// evidence; exposure's `under` and `over`). Empty for a detector without one.
    public var evidence: [String: LinearModel]
    /// The map from the calibrated measure to the confidence; nil for a detector without one.
    public var mapping: LogisticMapping?
    /// The gate's default thresholds this model sets, by policy key (`smudge`,
    /// `minimumLegibility`, …), each with the cost it was chosen for.
    public var thresholds: [String: Threshold]
    /// Where the fitted numbers came from; nil for a model of chosen thresholds only (each
    /// threshold's rule says how it was chosen).
    public var fit: Provenance?

    /// One linear predictor: `intercept + Σ weights[name] · measure(name)`.
    public struct LinearModel: Sendable, Equatable, Codable {
        public var intercept: Double
        public var weights: [String: Double]
        /// Optional: the measures of a typical good case (say, the median over training
        /// pages that read well), against which a prediction's shortfall is put down to the
        /// measure that lowers it most.
        public var reference: [String: Double]?
        /// Optional: how much this model's output counts where a detector adds several
        /// (the aesthetic score's penalties); 1 when absent.
        public var scale: Double?
        /// Optional: measures that enter through a fitted curve instead of as they are: the
        /// term of such a measure is `weights[name] · shapes[name](measure)`.
        public var shapes: [String: Shape]?
        /// Optional: regression trees whose leaves add to the sum (a boosted fit: each tree
        /// corrects what the ones before it left), each a list of nodes from its root
        /// (`TreeNode`).
        public var trees: [[TreeNode]]?

        public init(
            intercept: Double, weights: [String: Double], reference: [String: Double]? = nil, scale: Double? = nil,
            shapes: [String: Shape]? = nil, trees: [[TreeNode]]? = nil
        ) {
            self.intercept = intercept
            self.weights = weights
            self.reference = reference
            self.scale = scale
            self.shapes = shapes
            self.trees = trees
        }

        /// Every measure the model reads: those it weighs and those its trees split on.
        public var measures: Set<String> {
            Set(weights.keys).union((trees ?? []).lazy.flatMap { $0.compactMap(\.measure) })
        }

        /// The weight of the measure called `name`; 0 for one the model does not use.
        public subscript(_ name: String) -> Double { weights[name] ?? 0 }

        /// The term of the measure called `name` at `value`: its weight times the value, or
        /// times its shape at the value when it has one.
        public func term(_ name: String, _ value: Double) -> Double {
            let weight = weights[name] ?? 0
            guard let shape = shapes?[name] else { return weight * value }
            return weight * shape(value)
        }

        /// The sum of the leaves the trees reach for `measure`'s values, tree by tree; 0
        /// without trees. A tree `validated(as:source:)` refuses (a split missing a part, a
        /// branch that does not lead further down the list) adds nothing from the node where
        /// it goes wrong, so an unchecked model can neither trap nor loop.
        public func treesValue(_ measure: (String) -> Double) -> Double {
            var sum = 0.0
            for tree in trees ?? [] {
                var index = 0
                while tree.indices.contains(index) {
                    let node = tree[index]
                    guard let name = node.measure, let threshold = node.threshold, let atOrBelow = node.atOrBelow, let above = node.above else {
                        sum += node.value ?? 0
                        break
                    }
                    let next = measure(name) <= threshold ? atOrBelow : above
                    guard next > index else { break }
                    index = next
                }
            }
            return sum
        }

        /// `intercept + Σ term(name, measure(name))`, added in the names' order so the sum
        /// has the same bits in every process, plus the trees' leaves.
        public func predict(_ measure: (String) -> Double) -> Double {
            weights.keys.sorted().reduce(intercept) { $0 + term($1, measure($1)) } + treesValue(measure)
        }

        package enum CodingKeys: String, CodingKey, CaseIterable { case intercept, weights, reference, scale, shapes, trees }
    }

    /// A node of a regression tree: a split, which sends a value of its measure at or below
    /// its threshold to the node `atOrBelow` and any other to the node `above` (indices into
    /// the tree's list, always after the node's own), or a leaf, which holds a value.
    public struct TreeNode: Sendable, Equatable, Codable {
        public var measure: String?
        public var threshold: Double?
        public var atOrBelow: Int?
        public var above: Int?
        public var value: Double?

        /// A split of `measure` at `threshold`.
        public init(measure: String, threshold: Double, atOrBelow: Int, above: Int) {
            self.measure = measure
            self.threshold = threshold
            self.atOrBelow = atOrBelow
            self.above = above
        }

        /// A leaf.
        public init(value: Double) {
            self.value = value
        }

        /// Whether the node at `index` of a tree of `count` nodes is a split with a finite
        /// threshold and both branches later in the list, or a leaf with a finite value and
        /// nothing else: a tree of such nodes ends at a leaf from any node.
        func isValid(at index: Int, count: Int) -> Bool {
            if let measure, let threshold, let atOrBelow, let above {
                return !measure.isEmpty && threshold.isFinite && value == nil && (index + 1..<count).contains(atOrBelow)
                    && (index + 1..<count).contains(above)
            }
            return measure == nil && threshold == nil && atOrBelow == nil && above == nil && value?.isFinite == true
        }

        package enum CodingKeys: String, CodingKey, CaseIterable { case measure, threshold, atOrBelow, above, value }
    }

    /// A curve of one measure, piecewise linear through `(knots[i], values[i])` and carried on
    /// straight along its first and last segment beyond them, so that a fit can let a measure
    /// count more where it matters (nothing laid out means nothing read) and less where it
    /// stops mattering. The fitting script writes it monotone in the direction physics gives
    /// the measure.
    public struct Shape: Sendable, Equatable, Codable {
        /// Increasing measure values.
        public var knots: [Double]
        /// The curve's value at each knot.
        public var values: [Double]

        public init(knots: [Double], values: [Double]) {
            self.knots = knots
            self.values = values
        }

        /// Whether it is a curve: at least two knots, strictly increasing, a value for each,
        /// every number finite.
        public var isValid: Bool {
            knots.count >= 2 && knots.count == values.count && knots.allSatisfy(\.isFinite) && values.allSatisfy(\.isFinite)
                && zip(knots, knots.dropFirst()).allSatisfy { $0 < $1 }
        }

        /// The curve at `x`: linear between the two knots around it, or along the first or last
        /// segment outside them (as `Scripts/measure/measurelib.py` fits it).
        public func callAsFunction(_ x: Double) -> Double {
            var upper = 1
            while upper < knots.count - 1, knots[upper] <= x { upper += 1 }
            let t = (x - knots[upper - 1]) / (knots[upper] - knots[upper - 1])
            return values[upper - 1] + t * (values[upper] - values[upper - 1])
        }

        package enum CodingKeys: String, CodingKey, CaseIterable { case knots, values }
    }

    /// A default threshold and why it sits there.
    public struct Threshold: Sendable, Equatable, Codable {
        public var value: Double
        /// The cost or criterion it was chosen for, in words.
        public var rule: String

        public init(value: Double, rule: String) {
            self.value = value
            self.rule = rule
        }

        package enum CodingKeys: String, CodingKey, CaseIterable { case value, rule }
    }

    /// The fit's command, data, date and figures, for a person checking a model.
    public struct Provenance: Sendable, Equatable, Codable {
        /// The command that wrote the file.
        public var command: String
        /// What it was fitted on (dataset and split).
        public var data: String
        /// When, ISO 8601.
        public var created: String
        /// What it achieved (`trainAUC`, `testAUC`, …).
        public var figures: [String: Double]

        public init(command: String, data: String, created: String, figures: [String: Double]) {
            self.command = command
            self.data = data
            self.created = created
            self.figures = figures
        }

        package enum CodingKeys: String, CodingKey, CaseIterable { case command, data, created, figures }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case format, detector, evidence, mapping, thresholds, fit
    }

    public init(
        detector: String, evidence: [String: LinearModel] = [:], mapping: LogisticMapping?, thresholds: [String: Threshold],
        fit: Provenance?
    ) {
        format = Self.currentFormat
        self.detector = detector
        self.evidence = evidence
        self.mapping = mapping
        self.thresholds = thresholds
        self.fit = fit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(Int.self, forKey: .format)
        detector = try container.decode(String.self, forKey: .detector)
        evidence = try container.decodeIfPresent([String: LinearModel].self, forKey: .evidence) ?? [:]
        mapping = try container.decodeIfPresent(LogisticMapping.self, forKey: .mapping)
        thresholds = try container.decodeIfPresent([String: Threshold].self, forKey: .thresholds) ?? [:]
        fit = try container.decodeIfPresent(Provenance.self, forKey: .fit)
    }

    /// The linear model called `name`.
    /// - Precondition: the model was checked by `validated(as:)`, which requires it.
    public func evidence(_ name: String) -> LinearModel {
        guard let model = evidence[name] else { preconditionFailure("the \(detector) model has no evidence model \"\(name)\"") }
        return model
    }

    /// What a detector needs of its model: the evidence models, each with its measures,
    /// whether it maps a measure to a confidence, and the policy keys it sets defaults for.
    public struct Requirements: Sendable {
        public var evidence: [String: [String]]
        /// Evidence models a model may leave out (one added after models were fitted without it).
        public var optionalEvidence: Set<String>
        /// Whether an evidence model may weigh any non-empty subset of its measures (a fit
        /// that selects them) rather than exactly all of them.
        public var evidenceSelectsMeasures: Bool
        /// Measures an evidence model may leave out while it must weigh all the others (a
        /// measure added after models were fitted without it).
        public var optionalMeasures: Set<String>
        /// Whether an evidence model may give measures shapes (`LinearModel.shapes`): only a
        /// detector that sums its terms with `LinearModel.term` reads them.
        public var evidenceTakesShapes: Bool
        /// Whether an evidence model may hold trees (`LinearModel.trees`): only a detector
        /// that predicts with `LinearModel.predict` or adds `treesValue` reads them.
        public var evidenceTakesTrees: Bool
        public var mapping: Bool
        public var thresholds: [String]

        public init(
            evidence: [String: [String]] = [:], optionalEvidence: Set<String> = [], evidenceSelectsMeasures: Bool = false,
            optionalMeasures: Set<String> = [], evidenceTakesShapes: Bool = false, evidenceTakesTrees: Bool = false, mapping: Bool,
            thresholds: [String]
        ) {
            self.evidence = evidence
            self.optionalEvidence = optionalEvidence
            self.evidenceSelectsMeasures = evidenceSelectsMeasures
            self.optionalMeasures = optionalMeasures
            self.evidenceTakesShapes = evidenceTakesShapes
            self.evidenceTakesTrees = evidenceTakesTrees
            self.mapping = mapping
            self.thresholds = thresholds
        }
    }

    /// The model, checked against what its detector reads: the same evidence models with
    /// the same measures (a missing weight would silently count as 0, an extra one would be
    /// ignored; only the requirements' optional measures may be left out), a mapping when one
    /// is read, the thresholds it sets, finite numbers.
    /// - Throws: `ModelError` of kind `invalid`, naming `source` and what is wrong.
    public func validated(as requirements: Requirements, source: String) throws(ModelError) -> DetectorModel {
        guard format == Self.currentFormat else {
            throw ModelError(.invalid, "\(source): model format \(format) is not supported (expected \(Self.currentFormat))")
        }
        let expected = requirements.evidence
        let required = Set(expected.keys).subtracting(requirements.optionalEvidence)
        guard required.isSubset(of: evidence.keys), Set(evidence.keys).isSubset(of: expected.keys) else {
            let optional = expected.keys.filter { requirements.optionalEvidence.contains($0) }
            throw ModelError(
                .invalid,
                "\(source): the \(detector) model must have evidence models \(Self.list(expected.keys.filter { required.contains($0) }))"
                    + (optional.isEmpty ? "" : " (and may have \(Self.list(optional)))") + ", has \(Self.list(evidence.keys))")
        }
        for (name, measures) in expected.sorted(by: { $0.key < $1.key }) {
            guard let model = evidence[name] else { continue }
            if let trees = model.trees {
                guard requirements.evidenceTakesTrees else {
                    throw ModelError(.invalid, "\(source): evidence \"\(name)\" gives trees, which the \(detector) detector does not read")
                }
                guard trees.allSatisfy({ tree in !tree.isEmpty && tree.indices.allSatisfy { tree[$0].isValid(at: $0, count: tree.count) } }) else {
                    throw ModelError(
                        .invalid,
                        "\(source): evidence \"\(name)\"'s trees must each be nodes from the root, each a split (measure, finite threshold, atOrBelow and above naming later nodes) or a leaf (a finite value alone)")
                }
            }
            let weighed = model.measures
            if requirements.evidenceSelectsMeasures {
                guard !weighed.isEmpty, weighed.isSubset(of: measures) else {
                    throw ModelError(
                        .invalid,
                        "\(source): evidence \"\(name)\" must weigh some of \(Self.list(measures)), has \(Self.list(weighed))")
                }
            } else {
                let required = Set(measures).subtracting(requirements.optionalMeasures)
                guard required.isSubset(of: weighed), weighed.isSubset(of: measures) else {
                    let optional = measures.filter { requirements.optionalMeasures.contains($0) }
                    throw ModelError(
                        .invalid,
                        "\(source): evidence \"\(name)\" must weigh \(Self.list(measures.filter { required.contains($0) }))"
                            + (optional.isEmpty ? "" : " (and may weigh \(Self.list(optional)))") + ", has \(Self.list(model.weights.keys))")
                }
            }
            guard model.intercept.isFinite, model.weights.values.allSatisfy(\.isFinite), model.scale.map({ $0.isFinite && $0 >= 0 }) ?? true else {
                throw ModelError(.invalid, "\(source): evidence \"\(name)\" has a weight that is not a finite number (or a negative scale)")
            }
            if let shapes = model.shapes {
                guard requirements.evidenceTakesShapes else {
                    throw ModelError(.invalid, "\(source): evidence \"\(name)\" gives shapes, which the \(detector) detector does not read")
                }
                guard Set(shapes.keys).isSubset(of: Set(model.weights.keys)), shapes.values.allSatisfy(\.isValid) else {
                    throw ModelError(
                        .invalid,
                        "\(source): evidence \"\(name)\"'s shapes must be of weighed measures, each with two or more increasing, finite knots and a finite value for each")
                }
            }
            if let reference = model.reference {
                guard Set(reference.keys) == weighed, reference.values.allSatisfy(\.isFinite) else {
                    throw ModelError(
                        .invalid, "\(source): evidence \"\(name)\"'s reference must give a finite value for each of \(Self.list(weighed))")
                }
            }
        }
        if requirements.mapping {
            guard let mapping else { throw ModelError(.invalid, "\(source): the \(detector) model needs a \"mapping\"") }
            guard mapping.midpoint.isFinite, mapping.slope.isFinite, !mapping.logarithmic || mapping.midpoint > 0 else {
                throw ModelError(.invalid, "\(source): the mapping's midpoint and slope must be finite (a logarithmic midpoint positive)")
            }
        }
        guard Set(thresholds.keys) == Set(requirements.thresholds) else {
            throw ModelError(
                .invalid,
                "\(source): the \(detector) model must set the thresholds \(Self.list(requirements.thresholds)), sets \(Self.list(thresholds.keys))")
        }
        for (key, threshold) in thresholds.sorted(by: { $0.key < $1.key }) where !threshold.value.isFinite || threshold.value < 0 {
            throw ModelError(.invalid, "\(source): threshold \"\(key)\" must be a finite number of 0 or more, got \(threshold.value)")
        }
        // A detector's own key is a confidence: above 1 it would pass every image.
        if let own = thresholds[detector], own.value > 1 {
            throw ModelError(.invalid, "\(source): threshold \"\(detector)\" must be a confidence from 0 to 1, got \(own.value)")
        }
        return self
    }

    private static func list(_ names: some Sequence<String>) -> String {
        let sorted = names.sorted()
        return sorted.isEmpty ? "none" : sorted.joined(separator: ", ")
    }

    /// Reads a model from JSON, refusing keys this version does not read, at any depth.
    /// - Throws: `ModelError` of kind `invalid`.
    public static func decode(_ data: Data, source: String) throws(ModelError) -> DetectorModel {
        let model: DetectorModel
        do {
            model = try JSONDecoder().decode(DetectorModel.self, from: data)
        } catch {
            throw ModelError(.invalid, "\(source) is not a detector model: \(JSONDecodingWords.describe(error))")
        }
        let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        var objects: [(Any?, [String], String)] = [
            (root, KnownKeys.of(CodingKeys.self), ""), (root?["mapping"], KnownKeys.of(LogisticMapping.CodingKeys.self), "mapping."),
            (root?["fit"], KnownKeys.of(Provenance.CodingKeys.self), "fit."),
        ]
        for (name, value) in (root?["evidence"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            objects.append((value, KnownKeys.of(LinearModel.CodingKeys.self), "evidence.\(name)."))
            for (measure, shape) in ((value as? [String: Any])?["shapes"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                objects.append((shape, KnownKeys.of(Shape.CodingKeys.self), "evidence.\(name).shapes.\(measure)."))
            }
            for (number, tree) in ((value as? [String: Any])?["trees"] as? [Any] ?? []).enumerated() {
                for (index, node) in (tree as? [Any] ?? []).enumerated() {
                    objects.append((node, KnownKeys.of(TreeNode.CodingKeys.self), "evidence.\(name).trees[\(number)][\(index)]."))
                }
            }
        }
        for (name, value) in (root?["thresholds"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            objects.append((value, KnownKeys.of(Threshold.CodingKeys.self), "thresholds.\(name)."))
        }
        for (object, known, place) in objects {
            if let problem = KnownKeys.unknown(in: object, known: known, at: place, source: source) { throw ModelError(.invalid, problem) }
        }
        return model
    }

    /// The model as a model file: pretty-printed JSON with sorted keys, ending in a newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }
}

/// Why a model file cannot be used.
public typealias ModelError = KindedError<ModelErrorKind>

/// The classes of `ModelError`, each with its stable code.
public enum ModelErrorKind: String, ErrorKind {
    /// The file, or the folder of bundled models, cannot be found or read.
    case unreadable = "model.unreadable"
    /// The file is not a model this version reads, or does not fit its detector.
    case invalid = "model.invalid"
}

/// The keys a JSON object may hold, so a misspelt key is refused instead of ignored.
package enum KnownKeys {
    /// The keys of a `CodingKeys` enumeration.
    package static func of<Keys: CodingKey & CaseIterable>(_: Keys.Type) -> [String] { Keys.allCases.map(\.stringValue) }

    /// The first key of `object` (a JSON object, in sorted order) that is not in `known`,
    /// said in words with its place and `source`; nil when there is none or `object` is no object.
    package static func unknown(in object: Any?, known: [String], at place: String, source: String) -> String? {
        guard let members = object as? [String: Any] else { return nil }
        guard let key = members.keys.sorted().first(where: { !known.contains($0) }) else { return nil }
        return "\(source) has an unknown key \"\(place)\(key)\" (known there: \(known.joined(separator: ", ")))"
    }
}

/// A JSON decoding error in words: what is wrong and at which key, without the type's internals.
package enum JSONDecodingWords {
    package static func describe(_ error: any Error) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at \(path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "."))"
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\"\(at(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "a value of the wrong type\(at(context.codingPath))"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not valid JSON" : "a bad value\(at(context.codingPath))"
        default: return "not valid JSON"
        }
    }
}
