import Foundation
import ImageCodecs
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// Ladders of known severity on the real photographs of `Datasets/` (committed with the
/// repository): along each ladder, per source photo, the confidence never decreases by
/// more than 0.02.
@Suite("Ladders on real photographs", .serialized)
struct RealPhotoLadderTests {
    static let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Datasets").path

    /// Rows of a labels.csv as dictionaries (these files have no quoted commas).
    static func rows(_ set: String) throws -> [[String: String]] {
        let text = try String(contentsOfFile: "\(datasets)/\(set)/labels.csv", encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    static func report(_ set: String, _ path: String) throws -> QualityReport {
        let decoder = ImageDecoder(options: QualityAnalyzer.decodeOptions(for: [.blur, .exposure]))
        let image = try decoder.decode(contentsOf: "\(datasets)/\(set)/\(path)")
        return QualityAnalyzer(detectors: [.blur, .exposure]).analyze(AnalysisImage(image))
    }

    /// Checks that `value` never falls by more than 0.02 along `levels` for every source.
    func expectLadders(_ set: String, levels: [String: Double], value: (QualityReport) -> Double) throws {
        var bySource: [String: [(Double, Double)]] = [:]
        for row in try Self.rows(set) {
            guard let path = row["path"], let source = row["source"], let key = row["degradation"].map({ "\($0):\(row["severity"] ?? "")" }),
                let level = levels[key]
            else { continue }
            bySource[source, default: []].append((level, value(try Self.report(set, path))))
        }
        #expect(bySource.count == 16)
        for (source, ladder) in bySource {
            let values = ladder.sorted { $0.0 < $1.0 }.map(\.1)
            #expect(values.count == levels.count)
            for (a, b) in zip(values, values.dropFirst()) where b < a - 0.02 {
                Issue.record("\(source): \(values)")
                break
            }
        }
    }

    @Test func gaussianBlur() throws {
        try expectLadders("blur", levels: ["clean:0": 0, "gaussian:0.0007": 1, "gaussian:0.003": 2, "gaussian:0.006": 3, "gaussian:0.012": 4]) {
            $0.blur!.confidence
        }
    }

    @Test func defocusBlur() throws {
        try expectLadders("blur", levels: ["clean:0": 0, "defocus:0.004": 1, "defocus:0.008": 2, "defocus:0.016": 3]) { $0.blur!.confidence }
    }

    @Test func overAndUnderExposure() throws {
        // Direction-specific evidence: a dark original brightened first becomes better exposed,
        // so the combined confidence may fall before it rises.
        try expectLadders("exposure", levels: ["clean:0": 0, "exposure:0.3": 1, "exposure:1.5": 2, "exposure:2": 3, "exposure:3": 4]) {
            $0.exposure!.overEvidence
        }
        try expectLadders("exposure", levels: ["clean:0": 0, "exposure:-0.3": 1, "exposure:-1.5": 2, "exposure:-2": 3, "exposure:-3": 4]) {
            $0.exposure!.underEvidence
        }
    }
}
