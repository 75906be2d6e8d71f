import ImagingCore
import JSONSupport
import QualityAssessment
import QualityGating
import QualityMetrics

/// The flat formats (csv, tsv) of a score record.
extension Assessment {
    /// Columns of the flat formats (csv, tsv) for the built-in detectors.
    static var columns: [Column] { columns(registry: .builtIn) }

    /// Columns of the flat formats: one per detector of `registry`, holding its headline
    /// value (its descriptor's first field: the confidence, score or whether text was found).
    static func columns(registry: DetectorRegistry) -> [Column] {
        ["status", "format", "width", "height"].map { Column(header: $0, path: $0) }
            + registry.names.map { Column(header: $0, path: $0) } + trailingColumns
    }

    private static let trailingColumns: [Column] = [
        Column(header: "gate", path: "gate"),
        Column(header: "gateScore", path: "gateScore"),
        Column(header: "elapsedMs", path: "elapsedMs"),
        Column(header: "path", path: "path"),
        Column(header: "message", path: "message"),
    ]

    /// The record flattened for the columns above: `status` is `ok`, the first warning's
    /// code, or the error's code; `message` says why (warnings, or the gate's reasons).
    var flat: JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(FileSystemPath.display(path)))]
        switch outcome {
        case .failed(let error):
            members += [("status", .string(error.code)), ("message", .string(error.message))]
        case .assessed(let image):
            let report = image.report
            members += [
                ("status", .string(image.warnings.first?.code ?? "ok")),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
            ]
            for (name, observation) in report.observations {
                if let headline = observation.headline { members.append((name, headline)) }
            }
            members += [
                ("gate", .string(image.decision.pass ? "pass" : "reject")),
                ("gateScore", JSONValue.rounded(image.decision.score)),
                ("elapsedMs", .double(((elapsedMilliseconds ?? 0) * 10).rounded() / 10)),
                ("message", .string((image.decision.failures.map(\.message) + image.warnings.map(\.message)).joined(separator: "; "))),
            ]
        }
        return .object(members)
    }
}

extension DetectorObservation {
    /// The first field's value, as the flat formats show it: a number rounded to 4 decimals,
    /// true or false, or a label.
    var headline: JSONValue? {
        guard let first = Self.fields.first else { return nil }
        switch (try? JSONValue.encoding(self))?[path: first.field.name] {
        case .double(let value)?: return JSONValue.rounded(value)
        case .int(let value)?: return JSONValue.rounded(Double(value))
        case let other?: return other
        case nil: return nil
        }
    }
}
