import Foundation
import QualityAssessment
import QualityGating

/// How records are printed.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// One JSON object per line (the contract; the default when stdout is not a terminal).
    case jsonl
    /// RFC 4180 comma-separated values with a header row.
    case csv
    /// Tab-separated values with a header row; tabs and newlines in values become spaces.
    case tsv
    /// Aligned columns for reading in a terminal (the default there).
    case table
}

/// A column of the csv and tsv formats: a header and the flat record's dotted key path.
struct Column {
    var header: String
    var path: String
}

/// Streams records in one of the output formats.
struct RecordWriter {
    let format: OutputFormat
    let columns: [Column]
    /// The table's layout, for the terminal's width.
    let table: TableLayout
    private var wroteHeader = false

    init(format: OutputFormat, columns: [Column] = Assessment.columns, width: Int = Terminal.columns) {
        self.format = format
        self.columns = columns
        table = TableLayout(width: width)
    }

    /// The text for one assessment (with the header before the first one), ending in a newline.
    mutating func text(for assessment: Assessment) -> String {
        var out = ""
        if !wroteHeader && format != .jsonl {
            out += format == .table ? table.header : line(columns.map(\.header))
            wroteHeader = true
        }
        switch format {
        case .jsonl:
            assessment.record.write(to: &out)
            out += "\n"
        case .table:
            out += table.row(for: assessment)
        case .csv, .tsv:
            let record = assessment.flat
            out += line(columns.map { record[path: $0.path]?.cellText ?? "" })
        }
        return out
    }

    private func line(_ cells: [String]) -> String {
        format == .csv
            ? cells.map(Self.csvQuoted).joined(separator: ",") + "\r\n"
            : cells.map(Self.tsvClean).joined(separator: "\t") + "\n"
    }

    static func csvQuoted(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func tsvClean(_ value: String) -> String {
        String(value.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
