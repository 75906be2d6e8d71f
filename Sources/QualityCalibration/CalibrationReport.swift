import Foundation

/// Writes a calibration's report: `index.html` (self-contained: inline SVG plots and
/// base64 thumbnails, no scripts, no links), `report.md`, `report.json`, `profile.json`
/// (when a detector was calibrated) and `command.txt`.
public struct CalibrationReport {
    public var result: CalibrationResult
    /// How many worst false positives and false negatives get thumbnails.
    public var examples = 6

    public init(result: CalibrationResult) {
        self.result = result
    }

    /// The files a report writes into its folder.
    public static let fileNames = ["index.html", "report.md", "report.json", "profile.json", "command.txt"]

    /// Why a report could not be written into `directory`, in plain words, or nil when it
    /// can be as far as can be told beforehand: the folder exists and is writable, or can be
    /// created, and none of the report's files is a folder or read-only.
    ///
    /// Meant to be asked before the slow part (scoring every image), so a wrong `--report`
    /// fails at once. The disk can still fill up later: `write(to:thumbnail:)` says so then.
    public static func problem(writingTo directory: String) -> String? {
        guard !directory.isEmpty else { return "the report folder's name is empty" }
        switch FileAccess.kind(of: directory) {
        case .other:
            return "\(directory) exists and is not a folder: give a folder for the report (it is created when missing)"
        case .directory:
            guard FileAccess.canWrite(inDirectory: directory) else { return "cannot write in the report folder \(directory): permission denied" }
            for name in fileNames {
                let path = directory + "/" + name
                switch FileAccess.kind(of: path) {
                case .directory: return "\(path) is a folder, where the report writes a file"
                case .other where !FileAccess.canWrite(file: path): return "cannot replace \(path): permission denied"
                default: continue
                }
            }
            return nil
        case .missing:
            // The nearest folder that exists must let us create the rest inside it.
            var ancestor = FileAccess.parentPath(of: directory)
            while FileAccess.kind(of: ancestor) == .missing {
                let next = FileAccess.parentPath(of: ancestor)
                if next == ancestor { break }
                ancestor = next
            }
            switch FileAccess.kind(of: ancestor) {
            case .directory:
                return FileAccess.canWrite(inDirectory: ancestor) ? nil : "cannot create the report folder \(directory): permission denied in \(ancestor)"
            case .other: return "cannot create the report folder \(directory): \(ancestor) is a file, not a folder"
            case .missing: return "cannot create the report folder \(directory): no such place"
            }
        }
    }

    /// Writes the report files into `directory`, creating it and its parents.
    /// - Parameter thumbnail: JPEG bytes of a sample's image, or nil if it cannot be made.
    /// - Throws: `CalibrationError` (`.reportNotWritten`) naming the folder or file and why, in plain words.
    public func write(to directory: String, thumbnail: (CalibrationSample) -> [UInt8]?) throws {
        var files: [(String, [UInt8])] = [
            ("report.json", Array(json().utf8)), ("report.md", Array(markdown().utf8)),
            ("index.html", Array(html(thumbnail: thumbnail).utf8)), ("command.txt", Array((result.command + "\n").utf8)),
        ]
        if let profile = result.profile { files.append(("profile.json", Array(try profile.encoded()))) }
        do {
            try FileAccess.createDirectories(directory)
        } catch {
            throw CalibrationError(.reportNotWritten, "cannot create the report folder \(error.path ?? directory): \(error.reason)")
        }
        for (name, bytes) in files {
            let path = directory + "/" + name
            do {
                try FileAccess.writeAll(bytes, to: path)
            } catch {
                throw CalibrationError(.reportNotWritten, "cannot write \(path): \(error.reason)")
            }
        }
    }

    // MARK: - Shared pieces

    var title: String { "Calibration of \(result.quantity.rawValue) on \(result.datasetPath)" }

    var splitNote: String {
        result.heldOut
            ? "Fitted on the train split (\(result.trainCount) images); every figure below is from the held-out test split (\(result.testCount) images)."
            : "The dataset has no train/test split: fitted and evaluated on the same \(result.testCount) images, so these figures are NOT held out."
    }

    /// Worst false positives (good images scored most defective) and false negatives.
    var worst: (falsePositives: [(CalibrationSample, Double)], falseNegatives: [(CalibrationSample, Double)]) {
        guard let chosen = result.chosen else { return ([], []) }
        let scored = zip(result.testSamples, result.testConfidences).map { ($0, $1) }
        let fp = scored.filter { $0.0.label == 0 && $0.1 >= chosen.confidence }.sorted { $0.1 > $1.1 }
        let fn = scored.filter { $0.0.label == 1 && $0.1 < chosen.confidence }.sorted { $0.1 < $1.1 }
        return (Array(fp.prefix(examples)), Array(fn.prefix(examples)))
    }

    /// A number for a report cell ("—" when missing or not finite).
    public static func f(_ value: Double?, _ digits: Int = 3) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%.\(digits)f", value)
    }

    /// A bootstrap interval for a report cell.
    public static func interval(_ range: ClosedRange<Double>?) -> String {
        guard let range else { return "—" }
        return "[\(f(range.lowerBound)), \(f(range.upperBound))]"
    }

    // MARK: - report.json

    func json() -> String {
        func point(_ p: OperatingPoint) -> [String: Any] {
            ["threshold": p.threshold, "precision": p.precision, "recall": p.recall, "f1": p.f1, "falsePositiveRate": p.falsePositiveRate,
             "truePositives": p.truePositives, "falsePositives": p.falsePositives, "trueNegatives": p.trueNegatives, "falseNegatives": p.falseNegatives]
        }
        var object: [String: Any] = [
            "auc": result.auc ?? NSNull(),
            "quantity": result.quantity.rawValue,
            "measure": result.quantity.measure,
            "dataset": result.datasetPath,
            "command": result.command,
            "created": result.created,
            "heldOut": result.heldOut,
            "trainCount": result.trainCount,
            "testCount": result.testCount,
            "failures": result.failures.map { ["path": $0.path, "error": $0.error ?? ""] },
        ]
        if let i = result.aucInterval { object["aucInterval95"] = [i.lowerBound, i.upperBound] }
        if let ap = result.averagePrecision { object["averagePrecision"] = ap }
        if let i = result.averagePrecisionInterval { object["averagePrecisionInterval95"] = [i.lowerBound, i.upperBound] }
        if let m = result.mapping {
            object["mapping"] = ["kind": "logistic", "midpoint": m.midpoint, "slope": m.slope, "logarithmic": m.logarithmic]
        }
        if !result.thresholds.isEmpty {
            object["thresholds"] = result.thresholds.map { ["name": $0.name, "confidence": $0.confidence, "train": point($0.train), "test": point($0.test)] }
        }
        if let chosen = result.chosen { object["chosen"] = ["name": chosen.name, "confidence": chosen.confidence, "test": point(chosen.test)] }
        if !result.reliabilityBins.isEmpty {
            object["reliability"] = result.reliabilityBins.map { ["lower": $0.lower, "upper": $0.upper, "count": $0.count, "meanConfidence": $0.meanConfidence, "observedRate": $0.observedRate] }
            object["expectedCalibrationError"] = result.calibrationError ?? NSNull()
        }
        if let s = result.spearman { object["spearman"] = s }
        if let i = result.spearmanInterval { object["spearmanInterval95"] = [i.lowerBound, i.upperBound] }
        if let p = result.pearson { object["pearson"] = p }
        if let a = result.accuracyThreshold {
            object["accuracyThreshold"] = ["target": a.target, "threshold": a.threshold, "trainMean": a.trainMean, "testMean": a.testMean.isFinite ? a.testMean as Any : NSNull() as Any, "keptFraction": a.kept]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: - report.md

    func markdown() -> String {
        var out = "# \(title)\n\nGenerated by `\(result.command)` on \(result.created). Do not edit by hand.\n\n\(splitNote)\n\n"
        out += "Measurement: `\(result.quantity.rawValue).\(result.quantity.measure)`.\n\n"
        if let auc = result.auc {
            out += "| figure | value | 95% bootstrap interval |\n|---|---|---|\n"
            out += "| AUC | \(Self.f(auc)) | \(Self.interval(result.aucInterval)) |\n"
            out += "| average precision | \(Self.f(result.averagePrecision)) | \(Self.interval(result.averagePrecisionInterval)) |\n"
            out += "| expected calibration error | \(Self.f(result.calibrationError)) | |\n\n"
            if let m = result.mapping {
                out += "Fitted mapping (logistic, on the train split): confidence = 1 / (1 + exp(−\(Self.f(m.slope, 4)) · (\(m.logarithmic ? "ln x − ln \(Self.f(m.midpoint, 4))" : "x − \(Self.f(m.midpoint, 4))"))).\n\n"
            }
            out += "## Thresholds (chosen on train, applied to test)\n\n| operating point | raw threshold | confidence | test precision | test recall | test F1 | test FPR |\n|---|---|---|---|---|---|---|\n"
            for row in result.thresholds {
                out += "| \(row.name) | \(Self.f(row.train.threshold, 4)) | \(Self.f(row.confidence)) | \(Self.f(row.test.precision)) | \(Self.f(row.test.recall)) | \(Self.f(row.test.f1)) | \(Self.f(row.test.falsePositiveRate)) |\n"
            }
            if let chosen = result.chosen {
                if let gate = result.profile?.gate {
                    out += "\nChosen: **\(chosen.name)**: images with a gate score under \(Self.f(gate.minimumScore, 4)) are rejected (`minimumScore` in `profile.json`).\n"
                } else {
                    out += "\nChosen: **\(chosen.name)**, confidence threshold \(Self.f(chosen.confidence)), written to `profile.json`.\n"
                }
            }
            let (fp, fn) = worst
            out += "\n## Worst errors at the chosen threshold\n\n"
            out += fp.isEmpty ? "No false positives.\n" : fp.map { "- false positive: `\($0.0.path)` (confidence \(Self.f($0.1)))\n" }.joined()
            out += fn.isEmpty ? "No false negatives.\n" : fn.map { "- false negative: `\($0.0.path)` (confidence \(Self.f($0.1)))\n" }.joined()
        }
        if let spearman = result.spearman {
            out += "| figure | value |\n|---|---|\n| Spearman ρ (readiness vs score) | \(Self.f(spearman)) \(Self.interval(result.spearmanInterval)) |\n| Pearson r | \(Self.f(result.pearson)) |\n"
            if let a = result.accuracyThreshold {
                out += "\nTo keep a mean score ≥ \(Self.f(a.target)): accept `\(result.quantity.rawValue).\(result.quantity.measure)` \(result.quantity.higherIsDefect ? "≤" : "≥") \(Self.f(a.threshold, 4)). Train mean \(Self.f(a.trainMean)); test mean \(Self.f(a.testMean)), keeping \(Self.f(a.kept * 100, 1))% of test images.\n"
            }
        }
        if !result.failures.isEmpty {
            out += "\n## Images that could not be measured (\(result.failures.count))\n\n" + result.failures.map { "- `\($0.path)`: \($0.error ?? "")\n" }.joined()
        }
        return out
    }

    // MARK: - index.html

    func html(thumbnail: (CalibrationSample) -> [UInt8]?) -> String {
        var plots: [String] = []
        if let analysis = result.testAnalysis {
            var roc = SVGPlot(title: "ROC (test split)", xLabel: "false-positive rate", yLabel: "true-positive rate", xRange: 0...1, yRange: 0...1)
            roc.line([(0, 0), (1, 1)], colour: "#bbb", dashed: true)
            roc.line(analysis.sweep.map { ($0.falsePositiveRate, $0.truePositiveRate) } + [(1, 1)], colour: "#1f6fb2", label: "AUC \(Self.f(result.auc))")
            if let c = result.chosen { roc.dots([(c.test.falsePositiveRate, c.test.recall)], colour: "#d62728", label: "chosen") }
            plots.append(roc.svg)

            var pr = SVGPlot(title: "Precision–recall (test split)", xLabel: "recall", yLabel: "precision", xRange: 0...1, yRange: 0...1)
            pr.line(analysis.sweep.dropFirst().map { ($0.recall, $0.precision) }, colour: "#2ca02c", label: "AP \(Self.f(result.averagePrecision))")
            if let c = result.chosen { pr.dots([(c.test.recall, c.test.precision)], colour: "#d62728", label: "chosen") }
            plots.append(pr.svg)

            let values = analysis.values.map(\.value)
            let low = values.min() ?? 0, high = values.max() ?? 1
            let binCount = 24, width = max((high - low) / Double(binCount), 1e-9)
            func histogram(_ label: Int) -> [(lower: Double, upper: Double, value: Double)] {
                (0..<binCount).map { i in
                    let a = low + Double(i) * width, b = a + width
                    let count = analysis.values.filter { $0.label == label && $0.value >= a && ($0.value < b || (i == binCount - 1 && $0.value <= b)) }.count
                    return (a, b, Double(count))
                }
            }
            let good = histogram(0), bad = histogram(1)
            var hist = SVGPlot(
                title: "\(result.quantity.measure) by class (test split)", xLabel: result.quantity.higherIsDefect ? result.quantity.measure : "1 − \(result.quantity.measure)",
                yLabel: "images", xRange: low...high, yRange: 0...max(1, (good + bad).map(\.value).max() ?? 1))
            hist.bars(good, colour: "#1f6fb2", label: "good (0)")
            hist.bars(bad, colour: "#d62728", label: "defective (1)")
            if let c = result.chosen { hist.verticalMarker(at: c.train.threshold, label: "threshold") }
            plots.append(hist.svg)

            let sweep = analysis.sweep.dropFirst()
            var thresholds = SVGPlot(title: "Threshold sweep (test split)", xLabel: "threshold on \(result.quantity.measure)", yLabel: "value", xRange: low...high, yRange: 0...1)
            thresholds.line(sweep.map { ($0.threshold, $0.precision) }, colour: "#2ca02c", label: "precision")
            thresholds.line(sweep.map { ($0.threshold, $0.recall) }, colour: "#1f6fb2", label: "recall")
            thresholds.line(sweep.map { ($0.threshold, $0.f1) }, colour: "#9467bd", label: "F1")
            if let c = result.chosen { thresholds.verticalMarker(at: c.train.threshold, label: "chosen") }
            plots.append(thresholds.svg)

            var reliabilityPlot = SVGPlot(title: "Reliability (test split)", xLabel: "predicted confidence", yLabel: "observed defect rate", xRange: 0...1, yRange: 0...1)
            reliabilityPlot.line([(0, 0), (1, 1)], colour: "#bbb", dashed: true)
            let filled = result.reliabilityBins.filter { $0.count > 0 }
            reliabilityPlot.line(filled.map { ($0.meanConfidence, $0.observedRate) }, colour: "#ff7f0e", label: "ECE \(Self.f(result.calibrationError))")
            reliabilityPlot.dots(filled.map { ($0.meanConfidence, $0.observedRate) }, colour: "#ff7f0e")
            plots.append(reliabilityPlot.svg)
        }
        if result.spearman != nil {
            let points = result.testSamples.map { ($0.measurement!, $0.score!) }
            let xs = points.map(\.0), ys = points.map(\.1)
            var scatter = SVGPlot(
                title: "\(result.quantity.measure) against score (Spearman \(Self.f(result.spearman)))", xLabel: "\(result.quantity.rawValue).\(result.quantity.measure)",
                yLabel: "score", xRange: (xs.min() ?? 0)...(xs.max() ?? 1), yRange: min(0, ys.min() ?? 0)...max(1, ys.max() ?? 1))
            scatter.dots(points, colour: "#1f6fb2")
            if let a = result.accuracyThreshold { scatter.verticalMarker(at: a.threshold, label: "keeps ≥ \(Self.f(a.target, 2))") }
            plots.append(scatter.svg)
        }

        var gallery = ""
        let (fp, fn) = worst
        for (heading, items) in [("Worst false positives (good images called defective)", fp), ("Worst false negatives (defective images passed)", fn)] {
            gallery += "<h2>\(escape(heading))</h2>\n<div class=\"gallery\">\n"
            if items.isEmpty { gallery += "<p>None at the chosen threshold.</p>\n" }
            for (sample, confidence) in items {
                let image = thumbnail(sample).map { "<img alt=\"\(escape(sample.path))\" src=\"data:image/jpeg;base64,\(Data($0).base64EncodedString())\">" } ?? "<div class=\"missing\">no thumbnail</div>"
                let extras = sample.extras.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: " ")
                gallery += "<figure>\(image)<figcaption>\(escape(sample.path))<br>confidence \(Self.f(confidence)) · \(escape(result.quantity.measure)) \(Self.f(sample.measurement, 3))<br><small>\(extras)</small></figcaption></figure>\n"
            }
            gallery += "</div>\n"
        }

        let summary = markdownTableAsHTML()
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>
            body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1400px; }
            table { border-collapse: collapse; margin: 12px 0; }
            td, th { border: 1px solid #ccc; padding: 4px 8px; font-size: 13px; text-align: left; }
            .plots { display: flex; flex-wrap: wrap; gap: 12px; }
            .gallery { display: flex; flex-wrap: wrap; gap: 12px; }
            figure { margin: 0; width: 200px; font-size: 11px; word-break: break-all; }
            figure img { max-width: 200px; max-height: 200px; border: 1px solid #ccc; }
            code { background: #f4f4f4; padding: 1px 4px; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p>Generated by <code>\(escape(result.command))</code> on \(escape(result.created)). Do not edit by hand.</p>
            <p>\(escape(splitNote))</p>
            \(summary)
            <div class="plots">
            \(plots.joined(separator: "\n"))
            </div>
            \(gallery)
            </body>
            </html>

            """
    }

    /// The summary and threshold tables as HTML.
    func markdownTableAsHTML() -> String {
        var out = "<table>\n"
        if let auc = result.auc {
            out += "<tr><th>AUC</th><td>\(Self.f(auc)) \(Self.interval(result.aucInterval))</td></tr>\n"
            out += "<tr><th>Average precision</th><td>\(Self.f(result.averagePrecision)) \(Self.interval(result.averagePrecisionInterval))</td></tr>\n"
            out += "<tr><th>Expected calibration error</th><td>\(Self.f(result.calibrationError))</td></tr>\n"
            if let m = result.mapping {
                out += "<tr><th>Mapping</th><td>logistic: midpoint \(Self.f(m.midpoint, 4)), slope \(Self.f(m.slope, 4))\(m.logarithmic ? " (on ln x)" : "")</td></tr>\n"
            }
        }
        if let s = result.spearman {
            out += "<tr><th>Spearman ρ</th><td>\(Self.f(s)) \(Self.interval(result.spearmanInterval))</td></tr>\n<tr><th>Pearson r</th><td>\(Self.f(result.pearson))</td></tr>\n"
            if let a = result.accuracyThreshold {
                out += "<tr><th>Threshold keeping mean score ≥ \(Self.f(a.target))</th><td>\(Self.f(a.threshold, 4)) (test mean \(Self.f(a.testMean)), keeps \(Self.f(a.kept * 100, 1))%)</td></tr>\n"
            }
        }
        out += "</table>\n"
        if !result.thresholds.isEmpty {
            out += "<table>\n<tr><th>operating point (chosen on train)</th><th>raw threshold</th><th>confidence</th><th>test precision</th><th>test recall</th><th>test F1</th><th>test FPR</th></tr>\n"
            for row in result.thresholds {
                let bold = row.name == result.chosen?.name
                out += "<tr\(bold ? " style=\"font-weight:bold\"" : "")><td>\(escape(row.name))</td><td>\(Self.f(row.train.threshold, 4))</td><td>\(Self.f(row.confidence))</td><td>\(Self.f(row.test.precision))</td><td>\(Self.f(row.test.recall))</td><td>\(Self.f(row.test.f1))</td><td>\(Self.f(row.test.falsePositiveRate))</td></tr>\n"
            }
            out += "</table>\n"
        }
        if !result.failures.isEmpty {
            out += "<p>\(result.failures.count) images could not be measured: " + result.failures.prefix(20).map { escape("\($0.path) (\($0.error ?? ""))") }.joined(separator: "; ") + "</p>\n"
        }
        return out
    }
}
