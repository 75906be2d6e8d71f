import ImagingCore
import QualityGating

/// A number rounded to 4 decimals, as records print numbers.
func rounded(_ value: Double) -> JSONValue {
    .double((value * 10_000).rounded() / 10_000)
}

/// The flat formats (csv, tsv) of a score record.
extension Assessment {
    /// Columns of the flat formats (csv, tsv).
    static let columns: [Column] = [
        Column(header: "status", path: "status"),
        Column(header: "format", path: "format"),
        Column(header: "width", path: "width"),
        Column(header: "height", path: "height"),
        Column(header: "blur", path: "blur"),
        Column(header: "smudge", path: "smudge"),
        Column(header: "exposure", path: "exposure"),
        Column(header: "aesthetic", path: "aesthetic"),
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
            if let blur = report.blur { members.append(("blur", rounded(blur.confidence))) }
            if let smudge = report.smudge { members.append(("smudge", rounded(smudge.confidence))) }
            if let exposure = report.exposure { members.append(("exposure", rounded(exposure.confidence))) }
            if let aesthetic = report.aesthetic { members.append(("aesthetic", rounded(aesthetic.score))) }
            members += [
                ("gate", .string(image.decision.pass ? "pass" : "reject")),
                ("gateScore", rounded(image.decision.score)),
                ("elapsedMs", .double(((elapsedMilliseconds ?? 0) * 10).rounded() / 10)),
                ("message", .string((image.decision.failures.map(\.message) + image.warnings.map(\.message)).joined(separator: "; "))),
            ]
        }
        return .object(members)
    }
}
