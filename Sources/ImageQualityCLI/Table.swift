import Foundation
import ImagingCore
import QualityAssessment
import QualityGating

/// The `table` format: one row per input that fits the terminal's width. Columns never
/// shift: every cell but the last is padded or cut to its width, and the path comes last,
/// elided in the middle when it is too long.
///
/// ```
/// gate    score  blur smudge  expo  why                     path
/// pass     0.69  0.00   0.40  0.05                          Datasets/…/kde-bythewater_clean.jpg
/// reject   0.00  0.00   0.39  1.00  over-exposed 1>0.5      Datasets/…/kde-bythewater_ev+1.5.jpg
/// failed                            truncated PNG data      Tests/Fixtures/png/truncated.png
/// ```
struct TableLayout {
    /// The row width in characters: the terminal's columns.
    let width: Int

    /// The numeric columns: header, width (right-aligned).
    private static let numbers: [(header: String, width: Int)] = [("score", 6), ("blur", 5), ("smudge", 7), ("expo", 5)]
    /// The decision column's width (`reject`, `failed`).
    private static let decisionWidth = 6
    /// Characters before the `why` column.
    private static let fixedWidth = decisionWidth + numbers.reduce(0) { $0 + $1.width } + 2
    /// The narrowest path cell, even on a terminal narrower than 80 columns.
    private static let minimumPathWidth = 16

    /// The reasons column's width: 22 (one reason with its values) on 80 columns, up to 40
    /// on wider terminals.
    var whyWidth: Int { min(40, max(22, (width - Self.fixedWidth - 4) * 2 / 5)) }
    /// The path column's width: the rest of the row.
    var pathWidth: Int { max(Self.minimumPathWidth, width - Self.fixedWidth - whyWidth - 2) }

    var header: String {
        row(decision: "gate", numbers: Self.numbers.map(\.header), why: "why", path: "path")
    }

    /// The row of one assessment.
    func row(for assessment: Assessment) -> String {
        switch assessment.outcome {
        case .failed(let error):
            let why = "\(Self.words(code: error.code)): \(error.message)"
            return row(decision: "failed", numbers: Self.numbers.map { _ in "" }, why: why, path: FileSystemPath.display(assessment.path))
        case .assessed(let image):
            let report = image.report
            let values = [image.decision.score, report.blur?.confidence, report.smudge?.confidence, report.exposure?.confidence]
            let why = image.decision.failures.map(\.brief) + image.warnings.map { "warning: \(Self.words(code: $0.code))" }
            return row(
                decision: image.decision.pass ? "pass" : "reject",
                numbers: values.map { $0.map { String(format: "%.2f", $0) } ?? "-" },
                why: why.joined(separator: ", "), path: FileSystemPath.display(assessment.path))
        }
    }

    private func row(decision: String, numbers: [String], why: String, path: String) -> String {
        var line = Self.padded(decision, Self.decisionWidth)
        for (cell, column) in zip(numbers, Self.numbers) {
            line += String(repeating: " ", count: max(0, column.width - cell.count)) + cell
        }
        line += "  " + Self.padded(Self.cut(Self.clean(why), whyWidth), whyWidth)
        line += "  " + Self.elidedInTheMiddle(Self.clean(path), pathWidth)
        while line.hasSuffix(" ") { line.removeLast() }
        return line + "\n"
    }

    /// An error code's last part in words: `decode.unsupportedFormat` → `unsupported format`.
    static func words(code: String) -> String {
        let name = code.split(separator: ".").last.map(String.init) ?? code
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty { out += " " }
            out += character.lowercased()
        }
        return out
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` cut to `width` characters, ending in `…` when cut.
    static func cut(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    /// `text` in `width` characters: a quarter from its start, `…`, and the rest from its
    /// end, which holds the file name.
    static func elidedInTheMiddle(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text }
        let head = (width - 1) / 4
        return String(text.prefix(head)) + "…" + String(text.suffix(width - 1 - head))
    }

    /// Tabs, newlines and other control characters become spaces, so a row stays one line.
    private static func clean(_ text: String) -> String {
        String(text.map { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } ? $0 : " " })
    }
}

/// What a batch did, said on standard error when it ends: counts by decision, rejections
/// by reason, failures by error code, and the time taken.
struct BatchSummary: Equatable {
    var passed = 0
    var rejected = 0
    var failed = 0
    /// Rejected images per failure (`underexposed`), each image counted once per reason.
    var rejections: [String: Int] = [:]
    /// Failed inputs per error code.
    var failures: [String: Int] = [:]
    /// The contact sheet (`--report`) could not be written and was dropped.
    var contactSheetFailed = false

    var total: Int { passed + rejected + failed }

    mutating func add(_ assessment: Assessment) {
        switch assessment.outcome {
        case .failed(let error): add(failure: error.code)
        case .assessed(let image): add(image.decision)
        }
    }

    /// Counts an input the gate decided on.
    mutating func add(_ decision: GateDecision) {
        if decision.pass {
            passed += 1
        } else {
            rejected += 1
            for words in Set(decision.failures.map(\.words)) { rejections[words, default: 0] += 1 }
        }
    }

    /// Counts an input that failed with the error `code`.
    mutating func add(failure code: String) {
        failed += 1
        failures[code, default: 0] += 1
    }

    /// The summary's lines, each ending in a newline, wrapped at `width` columns.
    func text(elapsed: Duration, width: Int = 80) -> String {
        let seconds = elapsed.milliseconds / 1000
        let rate = seconds > 0 ? String(format: ", %.1f/s", Double(total) / seconds) : ""
        var out = "\(total) \(total == 1 ? "image" : "images") in \(String(format: "%.1f", seconds)) s\(rate): "
        out += "\(passed) passed, \(rejected) rejected, \(failed) failed\n"
        if !rejections.isEmpty { out += Self.line("  rejected: ", Self.counts(rejections), width: width) }
        if !failures.isEmpty { out += Self.line("  failed:   ", Self.counts(failures), width: width) }
        return out
    }

    /// `8 overexposed`, `5 blurred`: most frequent first, then by name.
    private static func counts(_ tally: [String: Int]) -> [String] {
        tally.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }
    }

    /// `label` then the items separated by commas, wrapped at `width` under the first item.
    private static func line(_ label: String, _ items: [String], width: Int) -> String {
        var out = label, column = label.count
        for (index, item) in items.enumerated() {
            let piece = item + (index < items.count - 1 ? "," : "")
            if index > 0 {
                if column + 1 + piece.count > width {
                    out += "\n" + String(repeating: " ", count: label.count)
                    column = label.count
                } else {
                    out += " "
                    column += 1
                }
            }
            out += piece
            column += piece.count
        }
        return out + "\n"
    }
}
