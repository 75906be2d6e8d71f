import QualityGating

/// A number rounded to 4 decimals, as records print numbers.
func rounded(_ value: Double) -> JSONValue {
    .double((value * 10_000).rounded() / 10_000)
}

/// The flat formats (csv, tsv, table) of a score record.
extension Assessment {
    /// Columns of the flat formats (csv, tsv, table).
    static let columns: [Column] = [
        Column(header: "status", path: "status", width: 24),
        Column(header: "format", path: "format", width: 7),
        Column(header: "width", path: "width", width: 7),
        Column(header: "height", path: "height", width: 7),
        Column(header: "blur", path: "blur", width: 7),
        Column(header: "smudge", path: "smudge", width: 7),
        Column(header: "exposure", path: "exposure", width: 9),
        Column(header: "aesthetic", path: "aesthetic", width: 10),
        Column(header: "gate", path: "gate", width: 6),
        Column(header: "gateScore", path: "gateScore", width: 10),
        Column(header: "elapsedMs", path: "elapsedMs", width: 10),
        Column(header: "path", path: "path", width: 40),
        Column(header: "message", path: "message"),
    ]

    /// The record flattened for the columns above: `status` is `ok`, the first warning's
    /// code, or the error's code; `message` says why (warnings, or the gate's reasons).
    var flat: JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(path))]
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
                ("message", .string((image.decision.reasons.map(\.rawValue) + image.warnings.map(\.message)).joined(separator: "; "))),
            ]
        }
        return .object(members)
    }
}
