import Foundation
import SwiftCSV

/// A labeled dataset: `labels.csv` with `path` (relative to the CSV) and `label`
/// (1 = defective, 0 = good) or `score` (continuous, higher = better); `split`
/// (`train`/`test`) when present; every other column is carried into reports.
public struct LabeledDataset: Sendable {
    public var csvPath: String
    public var samples: [CalibrationSample]

    /// - Throws: `CalibrationError` naming the problem and the row.
    public static func load(_ csvPath: String) throws -> LabeledDataset {
        let csv: CSV<Enumerated>
        do {
            csv = try CSV<Enumerated>(url: URL(fileURLWithPath: csvPath), delimiter: .comma, encoding: .utf8)
        } catch {
            throw CalibrationError("cannot read \(csvPath): \(error)")
        }
        let header = csv.header.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pathColumn = header.firstIndex(of: "path") else { throw CalibrationError("\(csvPath) has no \"path\" column") }
        let labelColumn = header.firstIndex(of: "label"), scoreColumn = header.firstIndex(of: "score")
        guard labelColumn != nil || scoreColumn != nil else {
            throw CalibrationError("\(csvPath) has neither a \"label\" nor a \"score\" column")
        }
        let splitColumn = header.firstIndex(of: "split")
        let base = URL(fileURLWithPath: csvPath).deletingLastPathComponent()
        var samples: [CalibrationSample] = []
        for (index, row) in csv.rows.enumerated() {
            let line = index + 2
            guard row.count == header.count else {
                throw CalibrationError("\(csvPath) line \(line): \(row.count) fields, the header has \(header.count)")
            }
            let path = row[pathColumn]
            guard !path.isEmpty else { throw CalibrationError("\(csvPath) line \(line): empty path") }
            var label: Int?
            if let labelColumn, !row[labelColumn].isEmpty {
                guard let value = Int(row[labelColumn]), value == 0 || value == 1 else {
                    throw CalibrationError("\(csvPath) line \(line): label \"\(row[labelColumn])\" is not 0 or 1")
                }
                label = value
            }
            var score: Double?
            if let scoreColumn, !row[scoreColumn].isEmpty {
                guard let value = Double(row[scoreColumn]), value.isFinite else {
                    throw CalibrationError("\(csvPath) line \(line): score \"\(row[scoreColumn])\" is not a number")
                }
                score = value
            }
            let split = splitColumn.map { row[$0] }.flatMap { $0.isEmpty ? nil : $0 }
            let reserved: Set<Int> = Set([pathColumn, labelColumn, scoreColumn, splitColumn].compactMap { $0 })
            let extras = header.indices.filter { !reserved.contains($0) }.map { (header[$0], row[$0]) }
            let file = path.hasPrefix("/") ? path : base.appendingPathComponent(path).standardizedFileURL.path
            samples.append(CalibrationSample(path: path, file: file, label: label, score: score, split: split, extras: extras))
        }
        guard !samples.isEmpty else { throw CalibrationError("\(csvPath) has no rows") }
        return LabeledDataset(csvPath: csvPath, samples: samples)
    }
}
