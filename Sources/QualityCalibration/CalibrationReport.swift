import Foundation
import ImagingCore
import QualityReports

/// Writes a calibration's report: `index.html` (self-contained: inline SVG plots and
/// base64 thumbnails, no scripts, no links), `report.md`, `report.json`, `profile.json`
/// (when something a profile holds was chosen), `model.json` (when a detector was
/// calibrated) and `command.txt`.
public struct CalibrationReport {
    public var result: CalibrationResult
    /// How many examples each gallery (worst false positives, false negatives…) shows.
    public var examples = 6

    public init(result: CalibrationResult) {
        self.result = result
    }

    /// The files a report writes into its folder.
    public static let fileNames = ["index.html", "report.md", "report.json", "profile.json", "model.json", "command.txt"]

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
            let ancestor = FileAccess.nearestExistingAncestor(of: directory)
            switch FileAccess.kind(of: ancestor) {
            case .directory:
                return FileAccess.canWrite(inDirectory: ancestor) ? nil : "cannot create the report folder \(directory): permission denied in \(ancestor)"
            case .other: return "cannot create the report folder \(directory): \(ancestor) is a file, not a folder"
            case .missing: return "cannot create the report folder \(directory): no such place"
            }
        }
    }

    /// Writes the report files into `directory`, creating it and its parents; `profile.json`
    /// only when the run chose something a profile holds, `model.json` (the detector's model
    /// with the refitted mapping and chosen threshold) only for a detector (an earlier one is
    /// removed otherwise).
    /// - Parameter thumbnail: JPEG bytes of a sample's image, or nil if it cannot be made.
    /// - Throws: `CalibrationError` (`.reportNotWritten`) naming the folder or file and why, in plain words.
    public func write(to directory: String, thumbnail: (CalibrationSample) -> [UInt8]?) throws {
        var files: [(String, [UInt8])] = [
            ("report.json", Array(json().utf8)), ("report.md", Array(markdown().utf8)),
            ("index.html", Array(html(thumbnail: thumbnail).utf8)), ("command.txt", Array((result.command + "\n").utf8)),
        ]
        if let profile = result.profile { files.append(("profile.json", Array(try profile.encoded()))) }
        if let model = result.model { files.append(("model.json", Array(try model.encoded()))) }
        do {
            try FileAccess.createDirectories(directory)
        } catch {
            throw CalibrationError(.reportNotWritten, "cannot create the report folder \(error.path ?? directory): \(error.reason)")
        }
        // A run that chooses nothing a profile (or model) holds writes none; an earlier run's
        // file in the same folder would be loaded as this one's, so it goes.
        for (name, written) in [("profile.json", result.profile != nil), ("model.json", result.model != nil)] where !written {
            let stale = directory + "/" + name
            if FileAccess.kind(of: stale) != .missing {
                do {
                    try FileAccess.remove(stale)
                } catch {
                    throw CalibrationError(.reportNotWritten, "cannot remove the earlier \(stale), which this run does not replace: \(error.reason)")
                }
            }
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
            ? "Fitted on the train split (\(result.trainCount) images); every figure below is from the held-out test split (\(result.testCount) images), unless it says train."
            : "The dataset has no train/test split: fitted and evaluated on the same \(result.testCount) images, so these figures are NOT held out."
    }

    /// What the figures are computed on, for plot titles: "test split", or "all images" without a split.
    var evaluated: String { result.heldOut ? "test split" : "all images" }

    /// A gallery of examples: a heading and the samples, each with the figures its caption shows.
    struct Gallery {
        var heading: String
        var items: [(sample: CalibrationSample, caption: String)]
    }

    /// The galleries that have something to show. Binary labels: the worst false positives
    /// (good images scored most defective) and false negatives at the chosen threshold. Score
    /// labels with `--target-accuracy`: accepted images that scored under the target (lowest
    /// first) and rejected ones that scored at least the target (highest first). Nothing
    /// for score labels without a threshold: no image is accepted or rejected.
    var galleries: [Gallery] {
        let measure = "\(result.quantity.rawValue).\(result.quantity.measure)"
        var out: [Gallery] = []
        if let chosen = result.chosen {
            let scored = zip(result.testSamples, result.testConfidences).map { ($0, $1) }
            let fp = scored.filter { $0.0.label == 0 && $0.1 >= chosen.confidence }.sorted { $0.1 > $1.1 }
            let fn = scored.filter { $0.0.label == 1 && $0.1 < chosen.confidence }.sorted { $0.1 < $1.1 }
            func caption(_ item: (CalibrationSample, Double)) -> (CalibrationSample, String) {
                (item.0, "confidence \(ReportNumber.fixed(item.1)) · \(measure) \(ReportNumber.fixed(item.0.measurement))")
            }
            out.append(Gallery(heading: "Worst false positives (good images called defective)", items: fp.prefix(examples).map(caption)))
            out.append(Gallery(heading: "Worst false negatives (defective images passed)", items: fn.prefix(examples).map(caption)))
        } else if let a = result.accuracyThreshold {
            let accepted = result.testSamples.filter(accepts)
            let rejected = result.testSamples.filter { !accepts($0) }
            let low = accepted.filter { $0.score! < a.target }.sorted { $0.score! < $1.score! }
            let high = rejected.filter { $0.score! >= a.target }.sorted { $0.score! > $1.score! }
            func caption(_ sample: CalibrationSample) -> (CalibrationSample, String) {
                (sample, "labelled score \(ReportNumber.fixed(sample.score)) · \(measure) \(ReportNumber.fixed(sample.measurement))")
            }
            out.append(Gallery(heading: "Accepted, yet scored under \(ReportNumber.fixed(a.target, 2)) (lowest first)", items: low.prefix(examples).map(caption)))
            out.append(Gallery(heading: "Rejected, yet scored \(ReportNumber.fixed(a.target, 2)) or more (highest first)", items: high.prefix(examples).map(caption)))
        }
        return out.filter { !$0.items.isEmpty }
    }

    /// Whether the accuracy threshold accepts a sample (score labels).
    func accepts(_ sample: CalibrationSample) -> Bool {
        guard let a = result.accuracyThreshold, let m = sample.measurement else { return false }
        return result.quantity.higherIsDefect ? m <= a.threshold : m >= a.threshold
    }

    /// A share as a percentage with one decimal, or a dash when undefined.
    static func percent(_ share: Double) -> String { share.isFinite ? ReportNumber.fixed(share * 100, 1) + "%" : "–" }

    /// A bootstrap interval for a report cell.
    public static func interval(_ range: ClosedRange<Double>?) -> String {
        guard let range else { return "—" }
        return "[\(ReportNumber.fixed(range.lowerBound)), \(ReportNumber.fixed(range.upperBound))]"
    }

    /// The columns of the operating-point table: a heading and the figure of one split's point.
    static let pointColumns: [(heading: String, value: @Sendable (OperatingPoint) -> String)] = [
        ("precision", { ReportNumber.fixed($0.precision) }), ("recall", { ReportNumber.fixed($0.recall) }), ("F1", { ReportNumber.fixed($0.f1) }),
        ("false-positive rate", { ReportNumber.fixed($0.falsePositiveRate) }),
        ("false positives", { "\($0.falsePositives)" }), ("false negatives", { "\($0.falseNegatives)" }),
    ]

    /// How the reliability bins are described in a legend: "12 images each", "11–13 images each".
    var reliabilityBinSizes: String {
        let counts = result.reliabilityBins.map(\.count)
        guard let low = counts.min(), let high = counts.max() else { return "" }
        return low == high ? "\(low) images each" : "\(low)–\(high) images each"
    }

    // MARK: - report.json

    func json() -> String {
        let quantity = result.quantity
        func point(_ p: OperatingPoint) -> [String: Any] {
            ["threshold": p.threshold, "precision": p.precision, "recall": p.recall, "f1": p.f1, "falsePositiveRate": p.falsePositiveRate,
             "truePositives": p.truePositives, "falsePositives": p.falsePositives, "trueNegatives": p.trueNegatives, "falseNegatives": p.falseNegatives]
        }
        var object: [String: Any] = [
            "auc": result.auc ?? NSNull(),
            "quantity": quantity.rawValue,
            "measure": quantity.measure,
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
            // `threshold` in each point is defect-oriented (1 − score for the gate);
            // `measurementThreshold` is on the measurement itself, as the tables show it.
            object["thresholds"] = result.thresholds.map {
                ["name": $0.name, "confidence": $0.confidence, "measurementThreshold": quantity.measurement(fromDefectValue: $0.train.threshold),
                 "train": point($0.train), "test": point($0.test)]
            }
        }
        if let chosen = result.chosen {
            object["chosen"] = ["name": chosen.name, "confidence": chosen.confidence, "train": point(chosen.train), "test": point(chosen.test)]
        }
        if !result.reliabilityBins.isEmpty {
            object["reliability"] = result.reliabilityBins.map {
                ["lower": $0.lower, "upper": $0.upper, "count": $0.count, "meanConfidence": $0.meanConfidence, "observedRate": $0.observedRate,
                 "observedInterval95": [$0.observedInterval.lowerBound, $0.observedInterval.upperBound]]
            }
            object["expectedCalibrationError"] = result.calibrationError ?? NSNull()
        }
        if let s = result.spearman { object["spearman"] = s }
        if let i = result.spearmanInterval { object["spearmanInterval95"] = [i.lowerBound, i.upperBound] }
        if let p = result.pearson { object["pearson"] = p }
        if let m = result.accuracyMapping { object["accuracyMapping"] = ["intercept": m.intercept, "slope": m.slope] }
        if !result.keepAndLose.isEmpty {
            func number(_ value: Double) -> Any { value.isFinite ? value : NSNull() }
            object["keepAndLose"] = result.keepAndLose.map {
                ["minimum": $0.minimum, "kept": number($0.kept), "keptMean": number($0.keptMean), "rejectedMean": number($0.rejectedMean),
                 "poorRejected": number($0.poorRejected), "goodRejected": number($0.goodRejected)]
            }
        }
        if let a = result.accuracyThreshold {
            object["accuracyThreshold"] = ["target": a.target, "threshold": a.threshold, "trainMean": a.trainMean, "testMean": a.testMean.isFinite ? a.testMean as Any : NSNull() as Any, "keptFraction": a.kept]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    // MARK: - report.md

    func markdown() -> String {
        let quantity = result.quantity
        var out = "# \(title)\n\nGenerated by `\(result.command)` on \(result.created). Do not edit by hand.\n\n\(splitNote)\n\n"
        out += "Measurement: `\(quantity.rawValue).\(quantity.measure)`.\n\n"
        if let auc = result.auc {
            out += "| figure | value | 95% bootstrap interval |\n|---|---|---|\n"
            out += "| AUC | \(ReportNumber.fixed(auc)) | \(Self.interval(result.aucInterval)) |\n"
            out += "| average precision | \(ReportNumber.fixed(result.averagePrecision)) | \(Self.interval(result.averagePrecisionInterval)) |\n"
            out += "| expected calibration error | \(ReportNumber.fixed(result.calibrationError)) | |\n\n"
            if let m = result.mapping {
                // exp(−s·…) with a negative slope s reads exp(|s|·…), not "−-".
                let exponent = "\(m.slope < 0 ? "" : "−")\(ReportNumber.fixed(abs(m.slope), 4))"
                out += "Fitted mapping (logistic, on the train split): confidence = 1 / (1 + exp(\(exponent) · (\(m.logarithmic ? "ln x − ln \(ReportNumber.fixed(m.midpoint, 4))" : "x − \(ReportNumber.fixed(m.midpoint, 4))"))).\n\n"
            }
            out += "## Operating points (chosen on train\(result.heldOut ? ", applied to test" : ""))\n\n"
            let splits = result.heldOut ? " (train / test)" : ""
            out += "| operating point | rejects \(quantity.rejectionRule) | confidence | " + Self.pointColumns.map { $0.heading + splits }.joined(separator: " | ") + " |\n"
            out += "|---|---|---|" + String(repeating: "---|", count: Self.pointColumns.count) + "\n"
            for row in result.thresholds {
                let cells = Self.pointColumns.map { column in
                    result.heldOut ? "\(column.value(row.train)) / \(column.value(row.test))" : column.value(row.test)
                }
                out += "| \(row.name) | \(ReportNumber.fixed(quantity.measurement(fromDefectValue: row.train.threshold), 4)) | \(ReportNumber.fixed(row.confidence)) | " + cells.joined(separator: " | ") + " |\n"
            }
            if let chosen = result.chosen {
                if let gate = result.profile?.gate {
                    out += "\nChosen: **\(chosen.name)**: images with a gate score under \(ReportNumber.fixed(gate.minimumScore, 4)) are rejected (`minimumScore` in `profile.json`).\n"
                } else {
                    out += "\nChosen: **\(chosen.name)**, confidence threshold \(ReportNumber.fixed(chosen.confidence)), written to `profile.json`.\n"
                }
            }
            if !result.reliabilityBins.isEmpty {
                out += "\n## Reliability (\(evaluated), bins of \(reliabilityBinSizes))\n\n| confidences | images | mean confidence | observed defect rate | 95% interval |\n|---|---|---|---|---|\n"
                for bin in result.reliabilityBins {
                    out += "| \(ReportNumber.fixed(bin.lower)) – \(ReportNumber.fixed(bin.upper)) | \(bin.count) | \(ReportNumber.fixed(bin.meanConfidence)) | \(ReportNumber.fixed(bin.observedRate)) | \(Self.interval(bin.observedInterval)) |\n"
                }
            }
        }
        if let spearman = result.spearman {
            out += "| figure | value |\n|---|---|\n| Spearman ρ (readiness vs score) | \(ReportNumber.fixed(spearman)) \(Self.interval(result.spearmanInterval)) |\n| Pearson r | \(ReportNumber.fixed(result.pearson)) |\n"
            if let a = result.accuracyThreshold {
                out += "\nTo keep a mean score ≥ \(ReportNumber.fixed(a.target)): accept `\(quantity.rawValue).\(quantity.measure)` \(quantity.higherIsDefect ? "≤" : "≥") \(ReportNumber.fixed(a.threshold, 4)). Train mean \(ReportNumber.fixed(a.trainMean)); test mean \(ReportNumber.fixed(a.testMean)), keeping \(ReportNumber.fixed(a.kept * 100, 1))% of test images.\n"
            }
            if let mapping = result.accuracyMapping {
                out += "\nThe predicted accuracy p, refitted to the measured scores on the train split: `1 / (1 + e^−(\(ReportNumber.fixed(mapping.intercept, 4)) + \(ReportNumber.fixed(mapping.slope, 4)) · logit p))`, written to `profile.json` (`gate.accuracyMapping`); the figures above and below are on that scale.\n"
            }
            if !result.keepAndLose.isEmpty {
                out += "\n## What each minimum keeps and loses (\(evaluated))\n\n| minimum gate score | pages kept | mean score kept | mean score rejected | pages below 0.5 rejected | pages at 0.9 or better rejected |\n|---|---|---|---|---|---|\n"
                for row in result.keepAndLose {
                    out += "| \(ReportNumber.fixed(row.minimum, 1)) | \(Self.percent(row.kept)) | \(ReportNumber.fixed(row.keptMean)) | \(ReportNumber.fixed(row.rejectedMean)) | \(Self.percent(row.poorRejected)) | \(Self.percent(row.goodRejected)) |\n"
                }
            }
        }
        for gallery in galleries {
            out += "\n## \(gallery.heading)\n\n" + gallery.items.map { "- `\($0.sample.path)` (\($0.caption))\n" }.joined()
        }
        if !result.failures.isEmpty {
            out += "\n## Images that could not be measured (\(result.failures.count))\n\n" + result.failures.map { "- `\($0.path)`: \($0.error ?? "")\n" }.joined()
        }
        return out
    }

    // MARK: - index.html

    /// The SVG plots: ROC, precision–recall, the measure by class, the threshold sweep and
    /// reliability for binary labels; the measure against the score for score labels.
    func plots() -> [String] {
        let quantity = result.quantity
        var plots: [String] = []
        if let analysis = result.testAnalysis {
            var roc = SVGPlot(title: "ROC (\(evaluated))", xLabel: "false-positive rate", yLabel: "true-positive rate", xRange: 0...1, yRange: 0...1)
            roc.line([(0, 0), (1, 1)], colour: "#bbb", dashed: true)
            roc.line(analysis.sweep.map { ($0.falsePositiveRate, $0.truePositiveRate) } + [(1, 1)], colour: "#1f6fb2", label: "AUC \(ReportNumber.fixed(result.auc))")
            if let c = result.chosen { roc.dots([(c.test.falsePositiveRate, c.test.recall)], colour: "#d62728", label: "chosen") }
            plots.append(roc.svg)

            var pr = SVGPlot(title: "Precision–recall (\(evaluated))", xLabel: "recall", yLabel: "precision", xRange: 0...1, yRange: 0...1)
            pr.line(analysis.sweep.dropFirst().map { ($0.recall, $0.precision) }, colour: "#2ca02c", label: "AP \(ReportNumber.fixed(result.averagePrecision))")
            if let c = result.chosen { pr.dots([(c.test.recall, c.test.precision)], colour: "#d62728", label: "chosen") }
            plots.append(pr.svg)

            // The histogram and the sweep show the measurement itself (the gate's score, not
            // 1 − score), on an axis chosen from its values: logarithmic when they span decades.
            let threshold = result.chosen.map { quantity.measurement(fromDefectValue: $0.train.threshold) }
            let measured = analysis.values.map { (value: quantity.measurement(fromDefectValue: $0.value), label: $0.label) }
            let xAxis = PlotAxis.fitting(measured.map(\.value) + (threshold.map { [$0] } ?? []))
            let edges = xAxis.bins(24)
            func histogram(_ label: Int) -> [(lower: Double, upper: Double, value: Double)] {
                edges.enumerated().map { index, edge in
                    let last = index == edges.count - 1
                    let count = measured.filter { $0.label == label && $0.value >= edge.lower && ($0.value < edge.upper || (last && $0.value <= edge.upper)) }.count
                    return (edge.lower, edge.upper, Double(count))
                }
            }
            let good = histogram(0), bad = histogram(1)
            var hist = SVGPlot(
                title: "\(quantity.measure) by class (\(evaluated))", xLabel: quantity.measure, yLabel: "images",
                x: xAxis, y: .fitting([0] + (good + bad).map(\.value), integers: true))
            hist.yCounts = true
            hist.bars(good, colour: "#1f6fb2", label: "good (0)")
            hist.bars(bad, colour: "#d62728", label: "defective (1)")
            if let threshold { hist.verticalMarker(at: threshold, label: "threshold") }
            plots.append(hist.svg)

            let sweep = analysis.sweep.dropFirst().map { (quantity.measurement(fromDefectValue: $0.threshold), $0) }
            var thresholds = SVGPlot(
                title: "Threshold sweep (\(evaluated))", xLabel: "threshold (rejecting \(quantity.rejectionRule) it)",
                yLabel: "value", x: xAxis, y: .linear(0...1))
            thresholds.line(sweep.map { ($0.0, $0.1.precision) }, colour: "#2ca02c", label: "precision")
            thresholds.line(sweep.map { ($0.0, $0.1.recall) }, colour: "#1f6fb2", label: "recall")
            thresholds.line(sweep.map { ($0.0, $0.1.f1) }, colour: "#9467bd", label: "F1")
            if let threshold { thresholds.verticalMarker(at: threshold, label: "threshold") }
            plots.append(thresholds.svg)

            var reliabilityPlot = SVGPlot(
                title: "Reliability (\(evaluated))", xLabel: "predicted confidence (bin mean)", yLabel: "observed defect rate", xRange: 0...1, yRange: 0...1)
            reliabilityPlot.line([(0, 0), (1, 1)], colour: "#bbb", dashed: true)
            let bins = result.reliabilityBins
            reliabilityPlot.errorBars(bins.map { ($0.meanConfidence, $0.observedInterval.lowerBound, $0.observedInterval.upperBound) }, colour: "#ff7f0e")
            reliabilityPlot.line(bins.map { ($0.meanConfidence, $0.observedRate) }, colour: "#ff7f0e", label: "ECE \(ReportNumber.fixed(result.calibrationError))")
            reliabilityPlot.dots(bins.map { ($0.meanConfidence, $0.observedRate) }, colour: "#ff7f0e", label: "bins of \(reliabilityBinSizes), 95% intervals")
            plots.append(reliabilityPlot.svg)
        }
        if result.spearman != nil {
            let points = result.testSamples.map { ($0.measurement!, $0.score!) }
            // The labelled score (an accuracy, say) reads on a linear scale even when it spans decades.
            var scatter = SVGPlot(
                title: "\(quantity.rawValue).\(quantity.measure) against the labelled score (\(evaluated))", xLabel: "\(quantity.rawValue).\(quantity.measure)",
                yLabel: "labelled score", x: .fitting(points.map(\.0) + (result.accuracyThreshold.map { [$0.threshold] } ?? [])),
                y: .fitting(points.map(\.1), allowingLogarithmic: false))
            scatter.dots(points, colour: "#1f6fb2", label: "Spearman \(ReportNumber.fixed(result.spearman))")
            if let a = result.accuracyThreshold { scatter.verticalMarker(at: a.threshold, label: "keeps ≥ \(ReportNumber.fixed(a.target, 2))") }
            plots.append(scatter.svg)
        }
        return plots
    }

    func html(thumbnail: (CalibrationSample) -> [UInt8]?) -> String {
        var sections = ""
        for gallery in galleries {
            sections += "<h2>\(htmlEscaped(gallery.heading))</h2>\n"
            let images = gallery.items.map { thumbnail($0.sample) }
            let extras = gallery.items.map { $0.sample.extras.map { "\(htmlEscaped($0.0))=\(htmlEscaped($0.1))" }.joined(separator: " ") }
            if images.allSatisfy({ $0 == nil }) {
                // No thumbnails (--no-thumbnails, or none could be made): a table, not empty frames.
                sections += "<table class=\"examples\">\n<tr><th>image</th><th>figures</th><th>other columns</th></tr>\n"
                for (item, extra) in zip(gallery.items, extras) {
                    sections += "<tr><td>\(htmlEscaped(item.sample.path))</td><td>\(htmlEscaped(item.caption))</td><td><small>\(extra)</small></td></tr>\n"
                }
                sections += "</table>\n"
                continue
            }
            sections += "<div class=\"gallery\">\n"
            for ((item, image), extra) in zip(zip(gallery.items, images), extras) {
                let picture = image.map { "<img alt=\"\(htmlEscaped(item.sample.path))\" src=\"data:image/jpeg;base64,\(Data($0).base64EncodedString())\">" } ?? "<div class=\"missing\">no thumbnail</div>"
                sections += "<figure>\(picture)<figcaption>\(htmlEscaped(item.sample.path))<br>\(htmlEscaped(item.caption))<br><small>\(extra)</small></figcaption></figure>\n"
            }
            sections += "</div>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(htmlEscaped(title))</title>
            <style>
            body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1400px; }
            table { border-collapse: collapse; margin: 12px 0; }
            td, th { border: 1px solid #ccc; padding: 4px 8px; font-size: 13px; text-align: left; }
            td.n { text-align: right; font-variant-numeric: tabular-nums; }
            th.test, td.test { background: #f3f7fb; }
            .plots { display: flex; flex-wrap: wrap; gap: 12px; }
            .gallery { display: flex; flex-wrap: wrap; gap: 12px; }
            figure { margin: 0; width: 200px; font-size: 11px; word-break: break-all; }
            figure img { max-width: 200px; max-height: 200px; border: 1px solid #ccc; }
            code { background: #f4f4f4; padding: 1px 4px; }
            </style>
            </head>
            <body>
            <h1>\(htmlEscaped(title))</h1>
            <p>Generated by <code>\(htmlEscaped(result.command))</code> on \(htmlEscaped(result.created)). Do not edit by hand.</p>
            <p>\(htmlEscaped(splitNote))</p>
            \(summaryTables())
            <div class="plots">
            \(plots().joined(separator: "\n"))
            </div>
            \(reliabilityTable())
            \(sections)
            </body>
            </html>

            """
    }

    /// The summary figures and the operating-point table as HTML.
    func summaryTables() -> String {
        let quantity = result.quantity
        var out = "<table>\n"
        if let auc = result.auc {
            out += "<tr><th>AUC</th><td>\(ReportNumber.fixed(auc)) \(Self.interval(result.aucInterval))</td></tr>\n"
            out += "<tr><th>Average precision</th><td>\(ReportNumber.fixed(result.averagePrecision)) \(Self.interval(result.averagePrecisionInterval))</td></tr>\n"
            out += "<tr><th>Expected calibration error</th><td>\(ReportNumber.fixed(result.calibrationError))</td></tr>\n"
            if let m = result.mapping {
                out += "<tr><th>Mapping</th><td>logistic: midpoint \(ReportNumber.fixed(m.midpoint, 4)), slope \(ReportNumber.fixed(m.slope, 4))\(m.logarithmic ? " (on ln x)" : "")</td></tr>\n"
            }
        }
        if let s = result.spearman {
            out += "<tr><th>Spearman ρ</th><td>\(ReportNumber.fixed(s)) \(Self.interval(result.spearmanInterval))</td></tr>\n<tr><th>Pearson r</th><td>\(ReportNumber.fixed(result.pearson))</td></tr>\n"
            if let a = result.accuracyThreshold {
                out += "<tr><th>Threshold keeping mean score ≥ \(ReportNumber.fixed(a.target))</th><td>accept \(htmlEscaped(quantity.measure)) \(quantity.higherIsDefect ? "≤" : "≥") \(ReportNumber.fixed(a.threshold, 4)) (train mean \(ReportNumber.fixed(a.trainMean)), test mean \(ReportNumber.fixed(a.testMean)), keeps \(ReportNumber.fixed(a.kept * 100, 1))% of test)</td></tr>\n"
            }
        }
        out += "</table>\n"
        if !result.thresholds.isEmpty {
            // Held out: each figure's train and test values side by side, test shaded.
            let columns = Self.pointColumns
            out += "<table>\n<tr><th rowspan=\"\(result.heldOut ? 2 : 1)\">operating point (chosen on train)</th><th rowspan=\"\(result.heldOut ? 2 : 1)\">rejects \(htmlEscaped(quantity.rejectionRule))</th><th rowspan=\"\(result.heldOut ? 2 : 1)\">confidence</th>"
            out += columns.map { "<th\(result.heldOut ? " colspan=\"2\"" : "")>\(htmlEscaped($0.heading))</th>" }.joined() + "</tr>\n"
            if result.heldOut {
                out += "<tr>" + String(repeating: "<th>train</th><th class=\"test\">test</th>", count: columns.count) + "</tr>\n"
            }
            for row in result.thresholds {
                let bold = row.name == result.chosen?.name
                out += "<tr\(bold ? " style=\"font-weight:bold\"" : "")><td>\(htmlEscaped(row.name))</td><td class=\"n\">\(ReportNumber.fixed(quantity.measurement(fromDefectValue: row.train.threshold), 4))</td><td class=\"n\">\(ReportNumber.fixed(row.confidence))</td>"
                for column in columns {
                    if result.heldOut { out += "<td class=\"n\">\(column.value(row.train))</td>" }
                    out += "<td class=\"n\(result.heldOut ? " test" : "")\">\(column.value(row.test))</td>"
                }
                out += "</tr>\n"
            }
            out += "</table>\n"
        }
        if !result.failures.isEmpty {
            out += "<p>\(result.failures.count) \(result.failures.count == 1 ? "image" : "images") could not be measured: " + result.failures.prefix(20).map { htmlEscaped("\($0.path) (\($0.error ?? ""))") }.joined(separator: "; ") + "</p>\n"
        }
        return out
    }

    /// The reliability bins as an HTML table (empty for score labels).
    func reliabilityTable() -> String {
        guard !result.reliabilityBins.isEmpty else { return "" }
        var out = "<h2>Reliability bins (\(evaluated))</h2>\n<table>\n<tr><th>confidences</th><th>images</th><th>mean confidence</th><th>observed defect rate</th><th>95% interval</th></tr>\n"
        for bin in result.reliabilityBins {
            out += "<tr><td class=\"n\">\(ReportNumber.fixed(bin.lower)) – \(ReportNumber.fixed(bin.upper))</td><td class=\"n\">\(bin.count)</td><td class=\"n\">\(ReportNumber.fixed(bin.meanConfidence))</td><td class=\"n\">\(ReportNumber.fixed(bin.observedRate))</td><td class=\"n\">\(Self.interval(bin.observedInterval))</td></tr>\n"
        }
        return out + "</table>\n"
    }
}
