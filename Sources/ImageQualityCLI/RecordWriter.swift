import Foundation
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

/// A column of the flat formats: a header and the record's dotted key path.
struct Column {
    var header: String
    var path: String
    var width: Int = 10
}

/// Streams records in one of the output formats.
struct RecordWriter {
    let format: OutputFormat
    let columns: [Column]
    private var wroteHeader = false

    init(format: OutputFormat, columns: [Column]) {
        self.format = format
        self.columns = columns
    }

    /// The text for one record (with the header before the first one), ending in a newline.
    mutating func text(for record: JSONValue) -> String {
        var out = ""
        if !wroteHeader && format != .jsonl {
            out += line(columns.map(\.header))
            wroteHeader = true
        }
        switch format {
        case .jsonl:
            record.write(to: &out)
            out += "\n"
        default:
            out += line(columns.map { record[path: $0.path]?.cellText ?? "" })
        }
        return out
    }

    private func line(_ cells: [String]) -> String {
        switch format {
        case .jsonl:
            return ""
        case .csv:
            return cells.map(Self.csvQuoted).joined(separator: ",") + "\r\n"
        case .tsv:
            return cells.map(Self.tsvClean).joined(separator: "\t") + "\n"
        case .table:
            var out = ""
            for (index, cell) in cells.enumerated() {
                let clean = Self.tsvClean(cell)
                if index == cells.count - 1 {
                    out += clean
                } else {
                    let width = columns[index].width
                    out += clean.count >= width ? clean + " " : clean + String(repeating: " ", count: width - clean.count)
                }
            }
            return out + "\n"
        }
    }

    static func csvQuoted(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func tsvClean(_ value: String) -> String {
        String(value.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
