import Foundation
import ImagingCore
import SwiftCSV

/// A labeled dataset: `labels.csv` with `path` (relative to the CSV) and `label`
/// (1 = defective, 0 = good) or `score` (continuous, higher = better); `split`
/// (`train`/`test`) when present; every other column is carried into reports.
public struct LabeledDataset: Sendable {
    public var csvPath: String
    public var samples: [CalibrationSample]

    /// - Throws: `CalibrationError` (`.badLabels`) naming the problem in plain words, and
    ///   the line when it is a row's.
    public static func load(_ csvPath: String) throws -> LabeledDataset {
        func bad(_ message: String) -> CalibrationError { CalibrationError(.badLabels, message) }
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.readAll(csvPath)
        } catch {
            throw bad("cannot read the labels file \(csvPath): \(error.reason)")
        }
        // Spreadsheets often start UTF-8 CSV with a byte-order mark; it is not part of the header.
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        guard var text = String(validating: body, as: UTF8.self) else {
            throw bad("the labels file \(csvPath) is not UTF-8 text")
        }
        // The parser drops an empty last field on a last line without a line break.
        if let last = text.last, !last.isNewline { text.append("\n") }
        let csv: CSV<Enumerated>
        // The rows as written: `csv.rows` pads short rows and widens all to the longest, so a
        // short row would read as unlabeled and a long one be reported on the wrong line.
        var rows: [[String]] = []
        do {
            csv = try CSV<Enumerated>(string: text, delimiter: .comma)
            try csv.enumerateAsArray(startAt: 1, rowLimit: nil) { rows.append($0) }
        } catch let error as CSVParseError {
            switch error {
            case .generic(let message), .quotation(let message): throw bad("cannot parse the labels file \(csvPath) as CSV: \(message)")
            }
        } catch {
            throw bad("cannot parse the labels file \(csvPath) as CSV: \(error)")
        }
        let header = csv.header.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pathColumn = header.firstIndex(of: "path") else { throw bad("\(csvPath) has no \"path\" column") }
        let labelColumn = header.firstIndex(of: "label"), scoreColumn = header.firstIndex(of: "score")
        guard labelColumn != nil || scoreColumn != nil else {
            throw bad("\(csvPath) has neither a \"label\" nor a \"score\" column")
        }
        let splitColumn = header.firstIndex(of: "split")
        // Paths in the file are relative to the file's own directory.
        let directory = FileSystemPath.folder(of: csvPath) ?? "./"
        let workingDirectory = FileSystemPath.currentDirectory
        var samples: [CalibrationSample] = []
        /// The line each file was first listed on, by the bytes of its path (Swift's string
        /// equality would make two names that differ only in Unicode form one file).
        var listed: [[UInt8]: Int] = [:]
        /// Lines a row spans: its own, and one more for each line break inside a quoted field.
        func lines(_ fields: [String]) -> Int { 1 + fields.reduce(0) { $0 + $1.filter(\.isNewline).count } }
        var line = 1 + lines(csv.header)
        for row in rows {
            defer { line += lines(row) }
            // A blank line (a spreadsheet's trailing rows, a gap between groups) holds no row.
            if row.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) && row.count <= 1 { continue }
            guard row.count == header.count else {
                throw bad("\(csvPath) line \(line): \(row.count) fields, the header has \(header.count)")
            }
            let path = row[pathColumn]
            guard !path.isEmpty else { throw bad("\(csvPath) line \(line): empty path") }
            var label: Int?
            if let labelColumn, !row[labelColumn].isEmpty {
                guard let value = Int(row[labelColumn]), value == 0 || value == 1 else {
                    throw bad("\(csvPath) line \(line): label \"\(row[labelColumn])\" is not 0 or 1")
                }
                label = value
            }
            var score: Double?
            if let scoreColumn, !row[scoreColumn].isEmpty {
                guard let value = Double(row[scoreColumn]), value.isFinite else {
                    throw bad("\(csvPath) line \(line): score \"\(row[scoreColumn])\" is not a number")
                }
                score = value
            }
            let split = splitColumn.map { row[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            let reserved: Set<Int> = Set([pathColumn, labelColumn, scoreColumn, splitColumn].compactMap { $0 })
            let extras = header.indices.filter { !reserved.contains($0) }.map { (header[$0], row[$0]) }
            // Opened as written (through links as the system resolves them); compared by
            // the standardized name.
            let file = path.unicodeScalars.first == "/" ? path : directory + path
            // One image listed twice would count twice in the fit, or hold two answers.
            let key = FileSystemPath.bytes(FileSystemPath.standardized(file, relativeTo: workingDirectory))
            if let first = listed[key] {
                throw bad("\(csvPath) line \(line): \(path) is listed again (first on line \(first))")
            }
            listed[key] = line
            samples.append(CalibrationSample(path: path, file: file, label: label, score: score, split: split, extras: extras))
        }
        guard !samples.isEmpty else { throw bad("\(csvPath) has no rows") }
        return LabeledDataset(csvPath: csvPath, samples: samples)
    }
}
