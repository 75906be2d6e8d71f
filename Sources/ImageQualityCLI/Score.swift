import ArgumentParser
import Foundation
import GatedRecognition
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics
import QualityReports
import Synchronization
import TesseractBackend
import TextRecognition

/// Which detectors run and the gate's policy: shared by `score`, `gate` and `ocr`.
struct AnalysisFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Detectors to run, comma-separated: \(DetectorKind.allCases.map(\.rawValue).joined(separator: ",")). (default: all)",
        valueName: "list"), transform: DetectorList.init(parsing:))
    var detectors: DetectorList = DetectorList(Set(DetectorKind.allCases))

    @Option(name: .customLong("policy"), help: ArgumentHelp(
        "Gate policy: a JSON object with any of the keys \(QualityPolicy.keys.joined(separator: ", ")) (defaults: \(QualityPolicy.default.thresholdSummary)). Repeatable: each applies its keys in turn.",
        valueName: "file"))
    var policies: [String] = []

    @Option(name: .customLong("model"), help: ArgumentHelp(
        "Detector model file (model.json from imgquality calibrate, or a file in the format of the bundled models): replaces the bundled model of the detector it names, with its thresholds. Repeatable; --profile, --policy and --threshold apply after.",
        valueName: "file"))
    var models: [String] = []

    @Option(name: .customLong("profile"), help: ArgumentHelp(
        "Calibration profile (profile.json from imgquality calibrate): its mappings and thresholds replace the built-in ones for the detectors it calibrates. Repeatable (one per calibrated detector), applied in turn; --policy and --threshold apply after them.",
        valueName: "file"))
    var profiles: [String] = []

    @Option(name: .customLong("threshold"), help: ArgumentHelp(
        "Set one policy threshold, after --profile and --policy (repeatable): \(QualityPolicy.thresholdKeys.joined(separator: ", ")).",
        valueName: "name=value"))
    var thresholds: [ThresholdSetting] = []

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp(
        "Reject every image whose gate score (0-1) is under this (the policy's minimumScore).", valueName: "score"))
    var failUnder: Double?

    @Option(name: .long, help: ArgumentHelp(
        "How to judge images: auto (a document when a page of text is found, else a photo), document or photo (default: auto).",
        valueName: "kind"))
    var content: ContentJudgement?

    @Flag(name: .long, help: "Also measure and record the diagnostic fields, which no confidence reads and which cost time: smudge's spectralSlope, slopeSpread, highFrequency, softIslands, streakAlignment and streakAngle.")
    var diagnostics = false

    @Flag(name: .long, help: "Add each stage's time to every record as \"timings\" (read, decode, convert, prepare, shared steps, each detector, a document's layout probe, gate; milliseconds, own time only).")
    var timings = false

    @Flag(name: .long, help: "Predict a document's accuracy from the image's measures alone, without Tesseract's layout analysis (the probe, run on documents only when the reading predictor's model weighs what it measures; the record's gate.predictor says which was used).")
    var noProbe = false

    @Flag(name: .long, help: "Run Tesseract's layout analysis on every document and record it (gate.probe), even when the reading predictor's model weighs nothing it measures: records for fitting a model (Scripts/corpus/score-page-corpus.sh).")
    var probe = false

    mutating func validate() throws {
        if probe && noProbe {
            throw ValidationError("--probe and --no-probe cannot both be given.")
        }
        if let failUnder, !(0...1).contains(failUnder) {
            throw ValidationError("--fail-under takes a gate score from 0 to 1, got \(failUnder).")
        }
        var policy = QualityPolicy.default
        for setting in thresholds {
            do {
                try policy.setThreshold(setting.name, to: setting.value)
            } catch {
                throw ValidationError("--threshold \(setting.name)=\(setting.value): \(error.message).")
            }
        }
    }

    /// The policy after the models, the profiles, the policy files, the thresholds and
    /// --fail-under, in that order.
    func configuration(decodeOptions: DecodeOptions) throws -> Assessor.Configuration {
        var analyzer = QualityAnalyzer(detectors: detectors.kinds)
        analyzer.diagnostics = diagnostics
        var resolved = QualityPolicy.default
        // A text model (a file, or one a profile holds) brings its reading predictor too.
        var textModel: DetectorModel?
        do {
            for model in models {
                let loaded = try ModelSet.loadModel(contentsOf: model)
                loaded.apply(to: &analyzer, policy: &resolved)
                if loaded.detector == "text" { textModel = loaded }
            }
            for profile in profiles {
                let loaded = try QualityProfile.load(contentsOf: profile)
                loaded.apply(to: &analyzer, policy: &resolved)
                if let model = loaded.models?["text"] { textModel = model }
            }
            for policy in policies { try resolved.update(contentsOf: policy) }
            for setting in thresholds { try resolved.setThreshold(setting.name, to: setting.value) }
        } catch let error as any CodedError {
            throw ValidationError(error.message + ".")
        }
        if let failUnder { resolved.minimumScore = failUnder }
        if let content { resolved.content = content }
        // Without the text measurements the gate has nothing to judge a document by, and would
        // fall back to judging it as a photo while the user asked otherwise.
        if resolved.content == .document, !analyzer.detectors.contains(.text) {
            throw ValidationError("Judging images as documents (--content document, or content in the policy) needs the text detector: add text to --detectors.")
        }
        let predictor = textModel.map(ReadingPredictor.init(model:)) ?? .bundled
        return Assessor.Configuration(
            analyzer: analyzer, gate: QualityGate(policy: resolved, predictor: predictor), decodeOptions: decodeOptions,
            measuresStages: timings)
    }

    /// Tesseract's layout analysis as the gate's probe, set in `configuration`: on every
    /// document with --probe; otherwise only when the gate's reading predictor weighs what
    /// the probe measures (`ReadingPredictor.weighsProbe`), since a probe nothing weighs
    /// would cost time and change nothing; never with --no-probe or without the text detector.
    /// When the language data files are where Tesseract looks, the engine starts at the first
    /// document, so a batch of photos never loads them; otherwise it starts now, and missing
    /// data is a usage error.
    /// - Throws: `ValidationError` for a language Tesseract has no name or no data for.
    func addLayoutProbe(to configuration: inout Assessor.Configuration, _ recognizer: TesseractRecognizer, options: RecognitionOptions) throws {
        guard !noProbe, detectors.kinds.contains(.text), probe || configuration.gate.predictor.weighsProbe else { return }
        configuration.layoutProbe = try Self.layoutProbe(recognizer, options: options)
        configuration.probesEveryDocument = probe
    }

    /// Tesseract's layout analysis for the languages of `options`.
    /// - Throws: `ValidationError` for a language Tesseract has no name for.
    static func layoutProbe(_ recognizer: TesseractRecognizer, options: RecognitionOptions) throws -> any TextLayoutProbe {
        let name: String
        do {
            try options.validate()
            let languages = try TesseractRecognizer.tesseractLanguages(options.recognitionLanguages)
            name = "tesseract layout (\(languages))"
            if !TesseractRecognizer.languageDataFound(languages) { try recognizer.prepare(options) }
        } catch {
            throw ValidationError(RecognitionFlags.inFlagTerms(error.message) + " (or pass --no-probe).")
        }
        return RecognizerLayoutProbe(recognizer, options: options, name: name)
    }
}

/// The recognizer's languages, for the layout probe of `score` and `gate`.
struct LanguageOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Languages of the documents, most likely first, comma-separated (en, de, ru, or Tesseract names): the layout probe's, as ocr would read them.",
        valueName: "list"))
    var languages: String = "en"

    /// `en, de` as `["en", "de"]`: the comma-separated languages of `--languages`.
    static func list(_ languages: String) -> [String] {
        languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    var options: RecognitionOptions {
        RecognitionOptions(recognitionLanguages: Self.list(languages))
    }
}

/// `NAME=VALUE` for `--threshold`.
struct ThresholdSetting: ExpressibleByArgument, Sendable {
    var name: String
    var value: Double

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
        name = parts[0].trimmingCharacters(in: .whitespaces)
        self.value = value
    }
}

extension QualityPolicy {
    /// `blur 0.5, smudge 0.8, …`: the numeric keys and their values.
    var thresholdSummary: String {
        let values = [blur, smudge, exposure, minimumPredictedAccuracy, minimumLinePitch, minimumLegibility, minimumTextContrast, minimumScore]
        return zip(Self.thresholdKeys, values).map { "\($0) \(GateFailure.short($1))" }.joined(separator: ", ")
    }
}

/// A comma-separated set of detectors.
struct DetectorList: Sendable {
    var kinds: Set<DetectorKind>

    init(_ kinds: Set<DetectorKind>) { self.kinds = kinds }

    /// Parses `blur,text` (empty items, as from a trailing comma, are skipped). The help
    /// states the default itself: with a transform the parser shows none.
    /// - Throws: `ValidationError` naming the first unknown detector, or saying none was named.
    init(parsing argument: String) throws {
        let known = DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")
        var kinds = Set<DetectorKind>()
        for part in argument.split(separator: ",") {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let kind = DetectorKind(rawValue: name) else {
                throw ValidationError("unknown detector \"\(name)\" (known: \(known))")
            }
            kinds.insert(kind)
        }
        guard !kinds.isEmpty else { throw ValidationError("no detector named (known: \(known))") }
        self.kinds = kinds
    }
}

/// `imgquality score`: one record per input, in input order.
struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode and score images; print one record per input.",
        discussion: """
            Detectors (confidence 0 = fine, 1 = defective; aesthetic.score 1 = excellent):
            \(detectorHelp)

            The gate rejects an image for these reasons (the record's code, then in words):
            \(reasonHelp)

            Exit status: 0 when every input was scored, 2 when some failed (each failure still \
            gets a record with an error code), 64 for usage errors.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags
    @OptionGroup var language: LanguageOption
    @OptionGroup var output: OutputFlags

    mutating func run() throws {
        try input.requireInputs()
        _ = try runBatch(
            input: input, decode: decode, analysis: analysis, language: language, output: output,
            mode: .records(output.resolvedFormat))
    }
}

/// What `score` and `gate` share: the assessment configured from their options, the batch
/// run, Tesseract's engines ended, and the exit statuses of failures (74 when the contact
/// sheet cannot be written, 2 when an input failed).
func runBatch(
    input: InputOptions, decode: DecodeFlags, analysis: AnalysisFlags, language: LanguageOption, output: OutputFlags,
    mode: BatchRun.Output, keepBest: Double? = nil
) throws -> BatchSummary {
    var configuration = try analysis.configuration(decodeOptions: decode.decodeOptions)
    let recognizer = TesseractRecognizer()
    try analysis.addLayoutProbe(to: &configuration, recognizer, options: language.options)
    let summary = BatchRun(
        inputs: input.inputs, expander: InputExpander(allFiles: input.allFiles, nullSeparated: input.null),
        jobs: input.jobs, configuration: configuration, pages: decode.pageSelection,
        output: mode, showsProgress: output.showsProgress, showsSummary: !output.quiet, keepBest: keepBest,
        contactSheet: try output.contactSheet()
    ).execute(standardInput: STDIN_FILENO, standardOutput: STDOUT_FILENO)
    // Tesseract's engines end here, on this thread, not while the process exits.
    recognizer.releaseIdleEngines()
    if summary.contactSheetFailed { throw ExitCode(74) }
    if summary.failed > 0 { throw ExitCode(2) }
    return summary
}

/// Each detector and what its number means, for `--help`.
let detectorHelp = hangingList(DetectorKind.allCases.map { "\($0.rawValue): \($0.descriptor.meaning)" })

/// Each gate reason in words, for `--help`.
let reasonHelp = hangingList(GateReason.allCases.map { "\($0.rawValue) (\($0.words)): \($0.explanation)" })

/// Items indented by two spaces, wrapped at 78 columns with their continuation lines under
/// their text, so a list stays a list in the help (the parser wraps only at column 0).
func hangingList(_ items: [String], width: Int = 78) -> String {
    items.map { item in
        var lines: [String] = []
        var line = "  "
        for word in item.split(separator: " ") {
            if line.count + word.count + 1 > width, line.count > 4 {
                lines.append(line)
                line = "    "
            }
            line += (line.hasSuffix(" ") ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }.joined(separator: "\n")
}

/// `imgquality gate`: pass or reject each input for text recognition.
struct Gate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide which images are good enough for text recognition.",
        discussion: """
            Prints the score records with their gate decision, or with --print-passing / \
            --print-rejected only the paths, one per line (NUL-terminated with --null), ready \
            for xargs.

            The gate rejects an image for these reasons (the record's code, then in words):
            \(reasonHelp)

            Exit status: 0 all passed, 1 some rejected, 2 some failed, 64 usage error.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags
    @OptionGroup var language: LanguageOption
    @OptionGroup var output: OutputFlags

    @Flag(name: .long, help: "Print only the paths of images that pass.")
    var printPassing = false

    @Flag(name: .long, help: "Print only the paths of images that are rejected or fail to decode.")
    var printRejected = false

    @Option(name: .long, help: ArgumentHelp(
        "Pass the best P percent of the batch by gate score instead of judging by the thresholds; records come out when the whole batch is scored.",
        valueName: "P%"))
    var keepBest: Percentage?

    mutating func validate() throws {
        if printPassing && printRejected {
            throw ValidationError("--print-passing and --print-rejected exclude each other.")
        }
        // They print paths, not records: a format asked for beside them would be ignored.
        if let format = output.format, printPassing || printRejected {
            let flag = printPassing ? "--print-passing" : "--print-rejected"
            throw ValidationError("\(flag) prints paths, not records: --format \(format.rawValue) has no effect with it.")
        }
    }

    mutating func run() throws {
        try input.requireInputs()
        let mode: BatchRun.Output
        if printPassing {
            mode = .paths(passing: true, terminator: input.null ? "\0" : "\n")
        } else if printRejected {
            mode = .paths(passing: false, terminator: input.null ? "\0" : "\n")
        } else {
            mode = .records(output.resolvedFormat)
        }
        let summary = try runBatch(
            input: input, decode: decode, analysis: analysis, language: language, output: output, mode: mode,
            keepBest: keepBest?.fraction)
        if summary.rejected > 0 { throw ExitCode(1) }
    }
}

/// A percentage given as `10%` or `10`, above 0 and at most 100.
struct Percentage: ExpressibleByArgument, Sendable {
    var fraction: Double

    init?(argument: String) {
        let digits = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
        guard let percent = Double(digits), percent > 0, percent <= 100 else { return nil }
        fraction = percent / 100
    }
}

/// A batch over inputs, separate from argument parsing so it can be tested in-process.
struct BatchRun {
    enum Output {
        case records(OutputFormat)
        /// Only the paths that pass (or that do not), each followed by `terminator`.
        case paths(passing: Bool, terminator: String)
    }

    var inputs: [String]
    var expander: InputExpander
    var jobs: Int
    var configuration = Assessor.Configuration()
    /// The pages of each multi-page file to read, one record each.
    var pages: PageSelection = .all
    var output: Output
    var showsProgress: Bool
    /// Say on standard error what the batch did when it ends.
    var showsSummary = false
    /// Decide by rank: pass this fraction of the batch (`QualityGate.keepBest`), after all of it is scored.
    var keepBest: Double?
    /// Where the batch's contact sheet goes (`--report`), with a thumbnail of every image.
    var contactSheet: ContactSheet?

    func execute(standardInput: Int32, standardOutput: Int32) -> BatchSummary {
        let start = ContinuousClock.now
        let lines = FileDescriptorLines(descriptor: standardInput, nullSeparated: expander.nullSeparated)
        // With a progress bar, directories are walked once, up front, to know the total.
        let listed = showsProgress ? expander.expanded(inputs) : nil
        let paths = listed.map { AnyIterator($0.makeIterator()) } ?? expander.paths(inputs, standardInput: lines)
        let progress = showsProgress ? ProgressBar(total: listed?.count) : nil
        let sharesTerminal = showsProgress && SystemCall.isTerminal(standardOutput)
        var writer: RecordWriter?
        if case .records(let format) = output { writer = RecordWriter(format: format) }
        var summary = BatchSummary()
        let output = self.output
        /// Writes one file's records (one per page read), or its path once: a file passes when
        /// every page read passed.
        func emit(_ assessments: [Assessment]) {
            var bytes: [UInt8] = []
            for assessment in assessments {
                summary.add(assessment)
                if case .records = output { bytes += Array(writer!.text(for: assessment).utf8) }
            }
            if case .paths(let passing, let terminator) = output, let first = assessments.first,
                assessments.allSatisfy(\.passed) == passing
            {
                // The name's own bytes, for xargs, even where they are not UTF-8.
                bytes = FileSystemPath.bytes(first.path) + Array(terminator.utf8)
            }
            if sharesTerminal { progress?.clear() }
            if !bytes.isEmpty { Terminal.write(bytes: bytes, to: standardOutput) }
        }
        var sheet = contactSheet
        /// Whether the workers still make thumbnails: not once the sheet is dropped.
        let wantsThumbnails = Mutex(contactSheet != nil)
        /// Runs a step of the contact sheet. One that fails (a full disk) drops the sheet, not
        /// the batch: the records matter more than the page, so they all come out, and the
        /// batch ends with 74 as a failed output write does.
        func writingSheet(_ step: () throws -> Void) {
            guard sheet != nil else { return }
            do {
                try step()
            } catch {
                Terminal.write("imgquality: cannot write the contact sheet: \(error) The batch goes on without it.\n", to: STDERR_FILENO)
                sheet?.abandon()
                sheet = nil
                wantsThumbnails.withLock { $0 = false }
                summary.contactSheetFailed = true
            }
        }
        func addToSheet(_ assessment: Assessment, _ thumbnail: [UInt8]?) {
            writingSheet { try sheet?.add(assessment, thumbnail: thumbnail) }
        }
        var held: [(Assessment, [UInt8]?)] = []
        var heldFiles: [Int] = []
        let configuration = self.configuration
        let holds = keepBest != nil
        let pages = self.pages
        OrderedBatch(paths, jobs: jobs).run(
            makeWorker: {
                let assessor = Assessor(configuration)
                return { path -> [(Assessment, [UInt8]?)] in
                    guard wantsThumbnails.withLock({ $0 }) else {
                        return assessor.assessPages(contentsOf: path, pages: pages).map { ($0, nil) }
                    }
                    // Each page's thumbnail is made before the next page is decoded.
                    return assessor.assessPages(.file(path: path), pages: pages) { kept in
                        (kept.assessment, kept.luma.flatMap { ContactSheet.thumbnail(luma: $0, rgb: kept.rgb) })
                    }
                }
            },
            emit: { _, scored in
                if holds {
                    held += scored
                    heldFiles.append(scored.count)
                } else {
                    emit(scored.map(\.0))
                    for (assessment, thumbnail) in scored { addToSheet(assessment, thumbnail) }
                }
                progress?.advance(failed: scored.contains { $0.0.error != nil })
            })
        if let keepBest {
            var assessments = held.map(\.0)
            QualityGate.keepBest(keepBest, of: &assessments)
            var at = 0
            for count in heldFiles {
                emit(Array(assessments[at..<(at + count)]))
                at += count
            }
            for (assessment, thumbnail) in zip(assessments, held.map(\.1)) { addToSheet(assessment, thumbnail) }
        }
        writingSheet { try sheet?.finish(policy: configuration.gate.policy, command: CommandText.current, elapsed: ContinuousClock.now - start) }
        progress?.clear()
        if showsSummary { Terminal.write(summary.text(elapsed: ContinuousClock.now - start, width: Terminal.errorColumns), to: STDERR_FILENO) }
        return summary
    }
}

extension ContentJudgement: ExpressibleByArgument {}
