import Foundation
import QualityReports
import Testing
import _ImagingTestSupport

@testable import QualityCalibration

/// A measured sample for calibrations built in memory.
func sample(_ index: Int, measurement: Double, label: Int? = nil, score: Double? = nil, split: String? = nil) -> CalibrationSample {
    var sample = CalibrationSample(path: "\(index).jpg", file: "/nowhere/\(index).jpg", label: label, score: score, split: split, extras: [])
    sample.measurement = measurement
    return sample
}

extension CalibratedQuantity {
    /// An edge width in pixels calibrated on its logarithm, as a registered detector may
    /// declare (and as blur was calibrated before it mapped an evidence): the reports' plots
    /// on a logarithmic axis.
    static let edgeWidths = CalibratedQuantity(
        detectorName: "blur", measure: "edgeWidth", logarithmic: true, higherIsDefect: true, isDetectorsOwn: true)
}

@Suite("Calibration reports")
struct ReportTests {
    /// Edge widths for blur: good images 0.5–1.4, defective 1.2–20, overlapping a little;
    /// 40 of each, alternately train and test.
    func blurSamples() -> [CalibrationSample] {
        (0..<80).map { i in
            let defective = i % 2 == 1
            let rank = Double(i / 2) / 39
            let width = defective ? 1.2 * pow(20 / 1.2, rank) : 0.5 + 0.9 * rank
            return sample(i, measurement: width, label: defective ? 1 : 0, split: i % 4 < 2 ? "train" : "test")
        }
    }

    func blurReport() throws -> CalibrationReport {
        CalibrationReport(result: try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(blurSamples(), datasetPath: "labels.csv", command: "test", created: "now"))
    }

    /// Score labels (OCR accuracy) falling as the edge width grows, with a bump: a sharp image
    /// that read badly and a blurred one that read well.
    func scoreSamples() -> [CalibrationSample] {
        (0..<30).map { i in
            let width = 0.5 + Double(i) * 0.2
            var score = max(0, 1 - Double(i) / 30)
            if i == 2 { score = 0.3 }
            if i == 25 { score = 0.97 }
            return sample(i, measurement: width, score: score, split: i % 2 == 0 ? "train" : "test")
        }
    }

    @Test func theOperatingPointTableShowsTrainBesideTest() throws {
        let report = try blurReport()
        let chosen = try #require(report.result.chosen)
        let html = report.summaryTables()
        #expect(html.contains("<th>train</th><th class=\"test\">test</th>"))
        // The chosen row: each figure's train value, then its test value.
        let row = try #require(html.split(separator: "\n").first { $0.contains("font-weight:bold") })
        let expected = "<td class=\"n\">\(ReportNumber.fixed(chosen.train.precision))</td><td class=\"n test\">\(ReportNumber.fixed(chosen.test.precision))</td>"
            + "<td class=\"n\">\(ReportNumber.fixed(chosen.train.recall))</td><td class=\"n test\">\(ReportNumber.fixed(chosen.test.recall))</td>"
        #expect(row.contains(expected), "\(row)")
        #expect(row.contains("<td class=\"n\">\(chosen.train.falseNegatives)</td><td class=\"n test\">\(chosen.test.falseNegatives)</td>"))
        let markdown = report.markdown()
        #expect(markdown.contains("precision (train / test)"))
        #expect(markdown.contains("| \(ReportNumber.fixed(chosen.train.precision)) / \(ReportNumber.fixed(chosen.test.precision)) |"))
        #expect(markdown.contains("rejects edgeWidth ≥"))
    }

    @Test func withoutASplitTheTableHasOneColumnPerFigure() throws {
        let samples = blurSamples().map { s -> CalibrationSample in
            var copy = s
            copy.split = nil
            return copy
        }
        let report = CalibrationReport(result: try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(samples, datasetPath: "l.csv", command: "t", created: "n"))
        #expect(!report.summaryTables().contains(">train</th>"))
        #expect(!report.markdown().contains("train / test"))
        #expect(report.plots().allSatisfy { !$0.contains("test split") && $0.contains("(all images)") })
    }

    /// The blur plots: the histogram and the sweep on a logarithmic axis with round ticks,
    /// the threshold's label by its line, and binned reliability with its counts.
    @Test func blurPlotsUseALogarithmicAxisAndBinnedReliability() throws {
        let report = try blurReport()
        let plots = report.plots()
        #expect(plots.count == 5)
        let histogram = try #require(plots.first { $0.contains("edgeWidth by class") })
        #expect(histogram.contains("edgeWidth, log scale"))
        #expect(histogram.contains(">0.5</text>") && histogram.contains(">1</text>") && histogram.contains(">10</text>"))
        #expect(histogram.contains("class=\"marker\"") && histogram.contains(">threshold</text>"))
        #expect(try #require(plots.first { $0.contains("Threshold sweep") }).contains("log scale"))
        // 40 test images: two bins of 20, each with its count in the legend and the table.
        let bins = report.result.reliabilityBins
        #expect(bins.map(\.count) == [20, 20])
        #expect(plots[4].contains("bins of 20 images each"))
        #expect(report.reliabilityTable().contains("<td class=\"n\">20</td>"))
        #expect(report.markdown().contains("## Reliability (test split, bins of 20 images each)"))
    }

    @Test func theGatePlotsAndTablesShowTheScoreNotOneMinusIt() throws {
        // Rejected images (label 1) have low gate scores.
        let samples = (0..<20).map { i in sample(i, measurement: i < 10 ? 0.05 * Double(i) : 0.5 + 0.05 * Double(i - 10), label: i < 10 ? 1 : 0) }
        let report = CalibrationReport(result: try Calibrator(quantity: .gate, bootstrapResamples: 0).calibrate(samples, datasetPath: "l.csv", command: "t", created: "n"))
        let chosen = try #require(report.result.chosen)
        // Best F1 rejects scores at or under 0.45, the highest rejected image's score.
        #expect(abs(1 - chosen.train.threshold - 0.45) < 1e-9)
        #expect(report.markdown().contains("| rejects score ≤ |") && report.markdown().contains("| 0.4500 |"))
        #expect(report.plots().contains { $0.contains("rejecting score ≤ it") })
    }

    /// A run that chooses no profile writes none, and removes the one an earlier run left,
    /// which would otherwise be loaded as this run's.
    @Test func aRunWithoutAProfileRemovesAnEarlierOne() throws {
        let folder = try TemporaryDirectory()
        let withProfile = try blurReport()
        #expect(withProfile.result.profile != nil)
        try withProfile.write(to: folder.path) { _ in nil }
        #expect(FileManager.default.fileExists(atPath: folder.path + "/profile.json"))
        let plain = CalibrationReport(result: try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(scoreSamples(), datasetPath: "l.csv", command: "t", created: "n"))
        #expect(plain.result.profile == nil)
        try plain.write(to: folder.path) { _ in nil }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/profile.json"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/report.json"))
    }

    @Test func scoreLabelsGetNoEmptySectionsAndGalleriesThatFitThem() throws {
        let plain = CalibrationReport(result: try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(scoreSamples(), datasetPath: "l.csv", command: "t", created: "n"))
        #expect(plain.galleries.isEmpty)
        for text in [plain.html { _ in nil }, plain.markdown()] {
            #expect(!text.contains("false positives") && !text.contains("False positives") && !text.contains("None at"), "\(text)")
            #expect(!text.contains("Reliability"))
        }

        let targeted = CalibrationReport(
            result: try Calibrator(quantity: .edgeWidths, accuracyTarget: 0.8, bootstrapResamples: 0).calibrate(scoreSamples(), datasetPath: "l.csv", command: "t", created: "n"))
        let a = try #require(targeted.result.accuracyThreshold)
        let galleries = targeted.galleries
        // Test rows are the odd ones; sample 25 (score 0.97) is blurred past the threshold.
        let rejected = try #require(galleries.first { $0.heading.hasPrefix("Rejected") })
        #expect(rejected.items.first?.sample.path == "25.jpg")
        for gallery in galleries {
            #expect(!gallery.items.isEmpty)
            for item in gallery.items {
                let score = try #require(item.sample.score)
                #expect(gallery.heading.hasPrefix("Accepted") ? score < a.target : score >= a.target)
                #expect(item.caption.hasPrefix("labelled score \(ReportNumber.fixed(score)) · blur.edgeWidth "), "\(item.caption)")
            }
        }
        // Without thumbnails the examples are a table, not empty frames.
        let html = targeted.html { _ in nil }
        #expect(html.contains("<h2>Rejected, yet scored 0.80 or more (highest first)</h2>\n<table class=\"examples\">"))
        #expect(html.contains("<td>25.jpg</td>") && !html.contains("no thumbnail"))
        #expect(targeted.html { _ in [0xFF, 0xD8] }.contains("<figure><img alt=\"25.jpg\""))
        // Scores run from 0.03 to 1, a span past 20×, yet an accuracy reads on a linear axis.
        let scatter = try #require(targeted.plots().first)
        #expect(scatter.contains(">0.6</text>") && !scatter.contains("log scale"), "\(scatter)")
    }

    @Test func aGalleryWithNothingInItIsLeftOut() throws {
        // Perfectly separated: no false positive or negative at the chosen threshold.
        let samples = (0..<20).map { i in sample(i, measurement: i < 10 ? 0.5 + 0.01 * Double(i) : 3 + Double(i), label: i < 10 ? 0 : 1) }
        let report = CalibrationReport(result: try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(samples, datasetPath: "l.csv", command: "t", created: "n"))
        #expect(report.galleries.isEmpty)
        let html = report.html { _ in nil }
        #expect(!html.contains("Worst false") && !html.contains("None at"))
        #expect(!report.markdown().contains("Worst"))
    }

    @Test func aSplitWithoutAClassSaysWhichAndWhatTheOtherHas() {
        // 19 defective rows, all in train.
        var samples = (0..<19).map { sample($0, measurement: 2, label: 1, split: "train") }
        samples += (0..<20).map { sample(100 + $0, measurement: 0.8, label: 0, split: $0 < 10 ? "train" : "test") }
        #expect(
            throws: CalibrationError(
                "the test split has no measured defective examples (label 1); the train split has 19: move some of them to the test split. AUC is undefined without both classes")
        ) { try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(samples, datasetPath: "l.csv", command: "t", created: "n") }

        // Train lacks good images: its one good row could not be measured.
        var noGoodTrain = (0..<6).map { sample($0, measurement: 2, label: 1, split: $0 < 3 ? "train" : "test") }
        noGoodTrain += (0..<4).map { sample(10 + $0, measurement: 0.8, label: 0, split: "test") }
        var failed = CalibrationSample(path: "x.jpg", file: "/x.jpg", label: 0, score: nil, split: "train", extras: [])
        failed.error = "decode.truncated: …"
        noGoodTrain.append(failed)
        #expect(
            throws: CalibrationError(
                "the train split has no measured good examples (label 0; 1 could not be measured); the test split has 4: move some of them to the train split. AUC is undefined without both classes")
        ) { try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(noGoodTrain, datasetPath: "l.csv", command: "t", created: "n") }

        let oneClass = (0..<4).map { sample($0, measurement: 1, label: 1) }
        #expect(throws: CalibrationError("the dataset has no measured good examples (label 0): AUC is undefined without both classes")) {
            try Calibrator(quantity: .edgeWidths, bootstrapResamples: 0).calibrate(oneClass, datasetPath: "l.csv", command: "t", created: "n")
        }
    }

    // MARK: - Files

    @Test func aDestinationIsCheckedBeforeAnythingIsScored() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("taken", Array("x".utf8))
        #expect(CalibrationReport.problem(writingTo: folder.path) == nil)
        #expect(CalibrationReport.problem(writingTo: folder.path + "/new/deeper") == nil)
        #expect(CalibrationReport.problem(writingTo: file) == "\(file) exists and is not a folder: give a folder for the report (it is created when missing)")
        #expect(CalibrationReport.problem(writingTo: file + "/report") == "cannot create the report folder \(file)/report: \(file) is a file, not a folder")
        try FileManager.default.createDirectory(atPath: folder.path + "/r/index.html", withIntermediateDirectories: true)
        #expect(CalibrationReport.problem(writingTo: folder.path + "/r") == "\(folder.path)/r/index.html is a folder, where the report writes a file")
        // Permissions mean nothing to root, so this part only runs for other users.
        if geteuid() != 0 {
            try FileManager.default.createDirectory(atPath: folder.path + "/locked", withIntermediateDirectories: true)
            chmod(folder.path + "/locked", 0o555)
            defer { chmod(folder.path + "/locked", 0o755) }
            #expect(CalibrationReport.problem(writingTo: folder.path + "/locked") == "cannot write in the report folder \(folder.path)/locked: permission denied")
            #expect(CalibrationReport.problem(writingTo: folder.path + "/locked/sub") == "cannot create the report folder \(folder.path)/locked/sub: permission denied in \(folder.path)/locked")
        }
    }

    @Test func aFailedWriteIsSaidInPlainWords() throws {
        let report = try blurReport()
        let folder = try TemporaryDirectory()
        let file = try folder.write("taken", Array("x".utf8))
        do {
            try report.write(to: file + "/report") { _ in nil }
            Issue.record("wrote into a file")
        } catch let error as CalibrationError {
            #expect(error.kind == .reportNotWritten)
            #expect(error.message == "cannot create the report folder \(file)/report: a part of the path is a file, not a folder")
        }
        // A report file that is a link to /dev/full passes the check but fails to write: a full disk.
        try FileManager.default.createDirectory(atPath: folder.path + "/full", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/full/report.md", withDestinationPath: "/dev/full")
        #expect(CalibrationReport.problem(writingTo: folder.path + "/full") == nil)
        #expect(throws: CalibrationError(.reportNotWritten, "cannot write \(folder.path)/full/report.md: no space left on the device")) {
            try report.write(to: folder.path + "/full") { _ in nil }
        }
        // And a good folder gets every file, the profile included.
        try report.write(to: folder.path + "/ok") { _ in nil }
        for name in CalibrationReport.fileNames {
            #expect(FileManager.default.fileExists(atPath: folder.path + "/ok/" + name), "\(name)")
        }
    }

    @Test func anUnreadableLabelsFileIsSaidInPlainWords() throws {
        let folder = try TemporaryDirectory()
        func message(_ path: String) -> String? {
            do {
                _ = try LabeledDataset.load(path)
                return nil
            } catch let error as CalibrationError {
                #expect(error.kind == .badLabels)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message(folder.path + "/missing.csv") == "cannot read the labels file \(folder.path)/missing.csv: no such file")
        #expect(message(folder.path) == "cannot read the labels file \(folder.path): it is a folder")
        try folder.write("latin1.csv", Array("path,label\n".utf8) + [0x63, 0x61, 0x66, 0xE9] + Array(".jpg,1\n".utf8))
        #expect(message(folder.path + "/latin1.csv") == "the labels file \(folder.path)/latin1.csv is not UTF-8 text")
        // A spreadsheet's byte-order mark is not part of the first column's name.
        try folder.write("bom.csv", [0xEF, 0xBB, 0xBF] + Array("path,label\na.jpg,1\n".utf8))
        let dataset = try LabeledDataset.load(folder.path + "/bom.csv")
        #expect(dataset.samples.map(\.path) == ["a.jpg"] && dataset.samples[0].label == 1)
    }

    /// Rows are read as written: a short or a long row is an error on its own line (line
    /// breaks inside quotes and blank lines counted), an image listed twice is refused, and
    /// blank lines and a last line without a line break are fine.
    @Test func labelRowsAreCheckedOnTheirOwnLines() throws {
        let folder = try TemporaryDirectory()
        func message(_ csv: String) throws -> String? {
            let path = try folder.write("labels.csv", Array(csv.utf8))
            do {
                _ = try LabeledDataset.load(path)
                return nil
            } catch let error as CalibrationError {
                return error.message.replacingOccurrences(of: path + " ", with: "")
            }
        }
        #expect(try message("path,label\na.jpg,1\nb.jpg\nc.jpg,0\n") == "line 3: 1 fields, the header has 2")
        #expect(try message("path,label\na.jpg,1\n\nb.jpg,0\nc.jpg,0,extra\n") == "line 5: 3 fields, the header has 2")
        #expect(try message("path,label,note\na.jpg,1,\"two\nlines\"\nb.jpg,0\n") == "line 4: 2 fields, the header has 3")
        #expect(try message("path,label\na.jpg,1\nb.jpg,0\n./a.jpg,0\n") == "line 4: ./a.jpg is listed again (first on line 2)")
        #expect(try message("path,label\na.jpg,1\n\(folder.path)/./a.jpg,0\n") == "line 3: \(folder.path)/./a.jpg is listed again (first on line 2)")
        let path = try folder.write("labels.csv", Array("path,label,split\na.jpg,1,train\n\n\nb.jpg,0,".utf8))
        let dataset = try LabeledDataset.load(path)
        #expect(dataset.samples.map(\.path) == ["a.jpg", "b.jpg"])
        #expect(dataset.samples.map(\.label) == [1, 0])
        #expect(dataset.samples.map(\.split) == ["train", nil])
    }
}
