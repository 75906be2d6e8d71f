import ArgumentParser
import Foundation
import ImageCodecs
import ImageKernels
import ImagingCore
import QualityAssessment
import QualityCalibration
import QualityGating
import QualityMetrics
import QualityReports
import TesseractBackend

/// `imgquality calibrate`: fits a detector's mapping and threshold on labeled data and writes a report.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate a detector (or the gate) on a labeled dataset and write a report and profile.",
        usage: "imgquality calibrate <labels.csv> --detector <d> --report <dir> [<opts>]",
        discussion: """
            LABELS.csv has a path column (relative to the CSV) and label (1 = defective, 0 = good) \
            or score (higher = better); a split column (train/test) makes every reported figure \
            held out. Writes index.html, report.md, report.json, command.txt and, when a \
            threshold was chosen, profile.json to --report; for a detector also model.json, its \
            model with the refitted mapping and threshold. Load the profile with score/gate \
            --profile, the model with --model.

            Exit status: 0 report written, 2 the data cannot be calibrated (one class only, a split \
            without a class, no target met), 64 usage error (found before scoring), 74 the report \
            could not be written at the end.
            """)

    @Argument(help: ArgumentHelp("The dataset's labels.csv.", valueName: "labels.csv"))
    var labels: String

    @Option(name: .customLong("detector"), help: ArgumentHelp(
        "What to calibrate: a detector (\(DetectorRegistry.builtIn.names.joined(separator: ", "))) or gate.", valueName: "name"))
    var detectorName: String

    @Option(name: .long, help: ArgumentHelp(
        "The detector's numeric field to calibrate (default: the measure its confidence maps from; profile.json and model.json only for that one).",
        valueName: "field"))
    var field: String?

    /// What `--detector` and `--field` name; validate() checked that they name something.
    var detector: CalibratedQuantity { (try? CalibratedQuantity.named(detectorName, field: field)) ?? .gate }

    @Option(name: .long, help: ArgumentHelp("Folder for the report (created when missing; its report files are replaced).", valueName: "dir"))
    var report: String

    @Option(name: .long, parsing: .unconditional, help: "Choose the lowest threshold with at least this precision.")
    var targetPrecision: Double?

    @Option(name: .long, parsing: .unconditional, help: "Choose the highest threshold with at least this recall.")
    var targetRecall: Double?

    @Option(name: .long, parsing: .unconditional, help: "Choose the lowest threshold with at most this false-positive rate.")
    var maxFpr: Double?

    @Option(name: .long, help: ArgumentHelp("Choose the threshold minimising FP·cost + FN·cost, e.g. 1:5.", valueName: "FP:FN"))
    var cost: String?

    @Option(name: .long, parsing: .unconditional, help: "With score labels: the threshold keeping this mean score among accepted images.")
    var targetAccuracy: Double?

    @Option(name: .long, help: ArgumentHelp("Use these `imgquality score` records instead of scoring the images again.", valueName: "scores.jsonl"))
    var scores: String?

    @Option(name: [.customShort("j", allowingJoined: true), .customLong("jobs")], parsing: .unconditional, help: ArgumentHelp("Images scored in parallel (default: all cores).", valueName: "n"))
    var jobCount: Int?

    /// `--jobs`, or one per core.
    var jobs: Int { jobCount ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(name: .long, parsing: .unconditional, help: "Bootstrap resamples for the confidence intervals.")
    var bootstrap: Int = 1000

    @Flag(name: .long, help: "Leave image thumbnails out of the report (for datasets whose images must not be copied).")
    var noThumbnails = false

    @Option(name: .customLong("model"), help: ArgumentHelp(
        "Detector model file to measure with instead of the bundled one (repeatable); model.json starts from it.",
        valueName: "file"))
    var models: [String] = []

    @OptionGroup var language: LanguageOption

    @Flag(name: .long, help: "With --detector gate: predict documents' accuracy from the image's measures alone, without Tesseract's layout probe (as score --no-probe).")
    var noProbe = false

    /// The analyzer with the --model files in force, the calibrated detector's model, and the
    /// gate's reading predictor (a --model text file's, else the bundled one).
    func loadedModels() throws -> (analyzer: QualityAnalyzer, model: DetectorModel?, predictor: ReadingPredictor) {
        var analyzer = QualityAnalyzer()
        // A diagnostic field is measured only when asked for.
        analyzer.diagnostics = detector.detectorName.flatMap { DetectorRegistry.builtIn[$0]?.descriptor.field(named: detector.measure) }?.isDiagnostic ?? false
        var policy = QualityPolicy.default
        var model = detector.detector.flatMap { ModelSet.bundled.models[$0.rawValue] }
        var predictor = ReadingPredictor.bundled
        for path in models {
            do {
                let loaded = try ModelSet.loadModel(contentsOf: path)
                loaded.apply(to: &analyzer, policy: &policy)
                if loaded.detector == detector.rawValue { model = loaded }
                if loaded.detector == "text" { predictor = ReadingPredictor(model: loaded) }
            } catch {
                throw ValidationError(error.message + ".")
            }
        }
        return (analyzer, model, predictor)
    }

    mutating func validate() throws {
        do {
            _ = try CalibratedQuantity.named(detectorName, field: field)
        } catch let error as CalibrationError {
            throw ValidationError(error.message + ".")
        }
        let targets = [targetPrecision != nil, targetRecall != nil, maxFpr != nil, cost != nil].filter { $0 }.count
        guard targets <= 1 else { throw ValidationError("Give at most one of --target-precision, --target-recall, --max-fpr, --cost.") }
        for (name, value) in [
            ("--target-precision", targetPrecision), ("--target-recall", targetRecall), ("--max-fpr", maxFpr),
            ("--target-accuracy", targetAccuracy),
        ] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(name) must be between 0 and 1, got \(value).") }
        }
        if let cost, parseCost(cost) == nil { throw ValidationError("--cost takes FP:FN with positive numbers, e.g. 1:5; got \(cost).") }
        if let jobCount, jobCount < 1 { throw ValidationError("--jobs must be at least 1, got \(jobCount).") }
        guard bootstrap >= 0 else { throw ValidationError("--bootstrap must not be negative.") }
        // Inputs and the output folder are checked here, before the images are scored, so a
        // wrong path fails at once, as a usage error with this command's usage (errors thrown
        // from run() would get the top-level command's).
        do {
            _ = try LabeledDataset.load(labels)
        } catch let error as CalibrationError {
            throw ValidationError(error.message)
        }
        if let scores, let failure = FileAccess.unreadable(scores) {
            throw ValidationError("cannot read the scores file \(scores): \(failure.reason)")
        }
        if let problem = CalibrationReport.problem(writingTo: report) { throw ValidationError(problem) }
        _ = try loadedModels()
    }

    func parseCost(_ text: String) -> (Double, Double)? {
        let parts = text.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return (parts[0], parts[1])
    }

    var target: ThresholdTarget {
        if let targetPrecision { return .precision(targetPrecision) }
        if let targetRecall { return .recall(targetRecall) }
        if let maxFpr { return .falsePositiveRate(maxFpr) }
        if let cost, let (a, b) = parseCost(cost) { return .cost(falsePositive: a, falseNegative: b) }
        return .bestF1
    }

    mutating func run() throws {
        let dataset: LabeledDataset
        do {
            dataset = try LabeledDataset.load(labels)
        } catch let error as CalibrationError {
            // validate() loaded it already; only a file changed since can fail here.
            Terminal.write("imgquality calibrate: \(error.message)\n", to: STDERR_FILENO)
            throw ExitCode(64)
        }
        var samples = dataset.samples
        let (analyzer, model, predictor) = try loadedModels()
        // Thumbnails come from the pixels the measuring decoded; a scores file's images are
        // decoded for their thumbnails only when the report shows them.
        var thumbnails: [String: [UInt8]] = [:]
        if let scores {
            try measure(&samples, fromRecords: scores)
        } else {
            // The gate's documents are judged as `score` judges them: with the layout probe in
            // the documents' language when the reading predictor weighs it, unless --no-probe;
            // no detector reads the probe.
            let recognizer = TesseractRecognizer()
            let probe = noProbe || detector != .gate || !predictor.weighsProbe ? nil : try AnalysisFlags.layoutProbe(recognizer, options: language.options)
            thumbnails = measure(&samples, analyzer: analyzer, predictor: predictor, layoutProbe: probe, thumbnails: !noThumbnails)
            recognizer.releaseIdleEngines()
        }
        let command = CommandText.current
        let created = ISO8601DateFormatter().string(from: Date())
        let calibrator = Calibrator(
            quantity: detector, target: target, accuracyTarget: targetAccuracy, bootstrapResamples: bootstrap, baseModel: model)
        let result: CalibrationResult
        do {
            // The path as people read it: the report's title and `dataset` are UTF-8 text.
            result = try calibrator.calibrate(samples, datasetPath: FileSystemPath.display(labels), command: command, created: created)
        } catch let error as CalibrationError {
            Terminal.write("imgquality calibrate: \(error.message)\n", to: STDERR_FILENO)
            throw ExitCode(2)
        }
        let fromFiles = scores != nil && !noThumbnails
        do {
            try CalibrationReport(result: result).write(to: report) { sample in
                thumbnails[sample.file] ?? (fromFiles ? Thumbnail.jpeg(ofFile: sample.file, longSide: Self.thumbnailLongSide) : nil)
            }
        } catch let error as CalibrationError {
            // validate() found the folder writable, so this is a failure of the moment (a full
            // disk, a folder removed meanwhile): an output failure, status 74 as for score's output.
            Terminal.write("imgquality calibrate: \(error.message)\n", to: STDERR_FILENO)
            throw ExitCode(74)
        }
        Terminal.write(Self.summary(result, report: report), to: STDOUT_FILENO)
    }

    /// Longest side of the report's thumbnails, in pixels.
    static let thumbnailLongSide = 200

    /// Scores every sample with `analyzer`, in parallel.
    /// - Returns: with `thumbnails`, a JPEG thumbnail of each decoded image by file, made
    ///   from the pixels the assessment analysed.
    func measure(
        _ samples: inout [CalibrationSample], analyzer: QualityAnalyzer, predictor: ReadingPredictor, layoutProbe: (any TextLayoutProbe)?,
        thumbnails: Bool
    ) -> [String: [UInt8]] {
        let quantity = detector
        let indices = AnyIterator(samples.indices.makeIterator())
        let files = samples.map(\.file)
        var measured: [Int: Assessment] = [:]
        var made: [String: [UInt8]] = [:]
        OrderedBatch(indices, jobs: jobs).run(
            makeWorker: {
                let assessor = Assessor(Assessor.Configuration(
                    analyzer: analyzer, gate: QualityGate(predictor: predictor), layoutProbe: layoutProbe))
                return { index -> (Assessment, [UInt8]?) in
                    guard thumbnails else { return (assessor.assess(contentsOf: files[index]), nil) }
                    let kept = assessor.assessKeepingPixels(.file(path: files[index]))
                    return (kept.assessment, kept.luma.flatMap { Thumbnail.jpeg(luma: $0, rgb: kept.rgb, longSide: Self.thumbnailLongSide) })
                }
            },
            emit: { index, result in
                measured[index] = result.0
                if let thumbnail = result.1 { made[files[index]] = thumbnail }
            })
        for index in samples.indices {
            guard let assessment = measured[index] else { continue }
            samples[index].record(assessment, quantity: quantity)
        }
        return made
    }

    /// Takes measurements from `imgquality score` JSON Lines, matching paths after resolving them.
    func measure(_ samples: inout [CalibrationSample], fromRecords path: String) throws {
        let text: String
        do {
            text = try FileAccess.readText(path)
        } catch {
            throw ValidationError("cannot read the scores file \(path): \(error.reason)")
        }
        let decoder = JSONDecoder()
        // Keyed by the path's bytes: String equality is canonical equivalence, under which
        // "né.jpg" precomposed and decomposed are one key, though they name two files.
        var records: [[UInt8]: Assessment] = [:]
        let workingDirectory = FileSystemPath.currentDirectory
        func key(_ path: String) -> [UInt8] { FileSystemPath.bytes(FileSystemPath.standardized(path, relativeTo: workingDirectory)) }
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            do {
                let assessment = try decoder.decode(Assessment.self, from: Data(line.utf8))
                records[key(assessment.path)] = assessment
            } catch {
                throw ValidationError("\(path) line \(number + 1) is not an imgquality score record: \(error)")
            }
        }
        for index in samples.indices {
            guard let assessment = records[key(samples[index].file)] else {
                samples[index].error = "not in \(path)"
                continue
            }
            samples[index].record(assessment, quantity: detector)
        }
    }

    static func summary(_ result: CalibrationResult, report: String) -> String {
        var lines = ["\(result.quantity.rawValue) on \(result.datasetPath): \(result.testCount) images evaluated\(result.heldOut ? " (held-out test split)" : " (no split: not held out)")"]
        if let auc = result.auc { lines.append("AUC \(ReportNumber.fixed(auc)) \(CalibrationReport.interval(result.aucInterval)), AP \(ReportNumber.fixed(result.averagePrecision))") }
        if let chosen = result.chosen {
            lines.append("chosen: \(chosen.name), confidence threshold \(ReportNumber.fixed(chosen.confidence)); test precision \(ReportNumber.fixed(chosen.test.precision)), recall \(ReportNumber.fixed(chosen.test.recall))")
        }
        if let gate = result.profile?.gate {
            if let mapping = gate.accuracyMapping, let minimum = gate.minimumPredictedAccuracy {
                lines.append(
                    "refit of the predicted accuracy (\(ReportNumber.fixed(mapping.intercept, 4)) + \(ReportNumber.fixed(mapping.slope, 4)) · logit p) and minimum predicted accuracy \(ReportNumber.fixed(minimum, 4)) written to profile.json")
            } else {
                lines.append("minimum gate score \(ReportNumber.fixed(gate.minimumScore, 4)) written to profile.json")
            }
        }
        if result.profile == nil {
            lines.append("no profile.json: with score labels only --detector gate chooses what a profile holds (a refit of the predicted accuracy)")
        }
        if let s = result.spearman { lines.append("Spearman \(ReportNumber.fixed(s)) \(CalibrationReport.interval(result.spearmanInterval)), Pearson \(ReportNumber.fixed(result.pearson))") }
        if let first = result.failures.first {
            let count = result.failures.count
            lines.append(
                "\(count) \(count == 1 ? "image" : "images") could not be measured and \(count == 1 ? "is" : "are") left out "
                    + "(the first, \(FileSystemPath.display(first.path)): \(first.error ?? "no measurement"); all are listed in the report)")
        }
        lines.append("report: \(report)/index.html")
        return lines.joined(separator: "\n") + "\n"
    }
}
