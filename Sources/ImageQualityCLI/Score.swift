import ArgumentParser
import Foundation
import ImageCodecs
import ImagingCore
import QualityGating
import QualityMetrics

/// Which detectors run and the gate's policy: shared by `score` and `gate`.
struct AnalysisFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Detectors to run, comma-separated: \(DetectorKind.allCases.map(\.rawValue).joined(separator: ",")) (default: all).",
        valueName: "list"))
    var detectors: DetectorList = DetectorList(Set(DetectorKind.allCases))

    @Option(name: .long, help: ArgumentHelp(
        "Gate policy JSON: {\"blur\":0.2683,\"smudge\":0.4806,\"exposure\":0.425,\"minimumLinePitch\":16,\"minimumLegibility\":12,\"minimumTextContrast\":12}, keys optional.",
        valueName: "file"))
    var policy: String?

    @Option(name: .long, help: ArgumentHelp(
        "Calibration profile (profile.json from imgquality calibrate): its mappings and thresholds replace the built-in ones; --policy, if given, is applied after it.",
        valueName: "file"))
    var profile: String?

    @Option(name: .long, help: ArgumentHelp(
        "How to judge images: auto (a document when a page of text is found, else a photo), document or photo.",
        valueName: "kind"))
    var content: ContentJudgement?

    @Flag(name: .long, help: "Add each stage's time to every record as \"timings\" (read, decode, convert, prepare, shared steps, each detector, gate; milliseconds, own time only).")
    var timings = false

    /// The assessment configuration after the profile and policy files.
    func configuration(decodeOptions: DecodeOptions) throws -> Assessor.Configuration {
        var analyzer = QualityAnalyzer(detectors: detectors.kinds)
        var resolved = QualityPolicy.default
        if let profile {
            do {
                try QualityProfile.load(contentsOf: profile).apply(to: &analyzer, policy: &resolved)
            } catch {
                throw ValidationError(error.message)
            }
        }
        if let policy {
            do {
                resolved = try QualityPolicy.load(contentsOf: policy)
            } catch {
                throw ValidationError("Cannot read the policy \(policy): \(error)")
            }
        }
        if let content { resolved.content = content }
        return Assessor.Configuration(
            analyzer: analyzer, gate: QualityGate(policy: resolved), decodeOptions: decodeOptions, measuresStages: timings)
    }
}

/// A comma-separated set of detectors.
struct DetectorList: ExpressibleByArgument, Sendable {
    var kinds: Set<DetectorKind>

    init(_ kinds: Set<DetectorKind>) { self.kinds = kinds }

    init?(argument: String) {
        var kinds = Set<DetectorKind>()
        for name in argument.split(separator: ",") {
            guard let kind = DetectorKind(rawValue: name.trimmingCharacters(in: .whitespaces)) else { return nil }
            kinds.insert(kind)
        }
        guard !kinds.isEmpty else { return nil }
        self.kinds = kinds
    }

    var defaultValueDescription: String { "all" }
}

/// `imgquality score`: one record per input, in input order.
struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode and score images; print one record per input.",
        discussion: """
            Detectors (confidence 0 = fine, 1 = defective, except aesthetic.score 1 = excellent):
            \(DetectorKind.allCases.map { "  \($0.rawValue): \($0.descriptor.meaning)" }.joined(separator: "\n"))

            Exit status: 0 when every input was scored, 2 when some failed (each failure
            still gets a record with an error code), 64 for usage errors.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags
    @OptionGroup var output: OutputFlags

    mutating func run() throws {
        let summary = BatchRun(
            inputs: input.inputs, expander: InputExpander(allFiles: input.allFiles, nullSeparated: input.null),
            jobs: input.jobs, configuration: try analysis.configuration(decodeOptions: decode.decodeOptions),
            output: .records(output.resolvedFormat), showsProgress: output.showsProgress
        ).execute(standardInput: STDIN_FILENO, standardOutput: STDOUT_FILENO)
        if summary.failed > 0 { throw ExitCode(2) }
    }
}

/// `imgquality gate`: pass or reject each input for text recognition.
struct Gate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decide which images are good enough for text recognition.",
        discussion: """
            Prints the score records (with their gate decision), or with --print-passing /
            --print-rejected only the paths, one per line (NUL-terminated with --null), ready
            for xargs. Exit status: 0 all passed, 1 some rejected, 2 some failed, 64 usage.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags
    @OptionGroup var output: OutputFlags

    @Flag(name: .long, help: "Print only the paths of images that pass.")
    var printPassing = false

    @Flag(name: .long, help: "Print only the paths of images that are rejected or fail to decode.")
    var printRejected = false

    mutating func validate() throws {
        if printPassing && printRejected {
            throw ValidationError("--print-passing and --print-rejected exclude each other.")
        }
    }

    mutating func run() throws {
        let mode: BatchRun.Output
        if printPassing {
            mode = .paths(passing: true, terminator: input.null ? "\0" : "\n")
        } else if printRejected {
            mode = .paths(passing: false, terminator: input.null ? "\0" : "\n")
        } else {
            mode = .records(output.resolvedFormat)
        }
        let summary = BatchRun(
            inputs: input.inputs, expander: InputExpander(allFiles: input.allFiles, nullSeparated: input.null),
            jobs: input.jobs, configuration: try analysis.configuration(decodeOptions: decode.decodeOptions),
            output: mode, showsProgress: output.showsProgress
        ).execute(standardInput: STDIN_FILENO, standardOutput: STDOUT_FILENO)
        if summary.failed > 0 { throw ExitCode(2) }
        if summary.rejected > 0 { throw ExitCode(1) }
    }
}

/// What one run did.
struct RunSummary: Equatable {
    var scored = 0
    var failed = 0
    var rejected = 0
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
    var output: Output
    var showsProgress: Bool

    func execute(standardInput: Int32, standardOutput: Int32) -> RunSummary {
        let lines = FileDescriptorLines(descriptor: standardInput, nullSeparated: expander.nullSeparated)
        let paths = expander.paths(inputs, standardInput: lines)
        let progress = showsProgress ? ProgressBar(total: expander.count(inputs)) : nil
        let sharesTerminal = showsProgress && isatty(standardOutput) != 0
        var writer: RecordWriter?
        if case .records(let format) = output { writer = RecordWriter(format: format, columns: Assessment.columns) }
        var summary = RunSummary()
        let (configuration, output) = (self.configuration, self.output)
        OrderedParallelMap(paths, jobs: jobs).run(
            makeWorker: {
                let assessor = Assessor(configuration)
                return { assessor.assess(contentsOf: $0) }
            },
            emit: { _, assessment in
                if assessment.error != nil {
                    summary.failed += 1
                } else {
                    summary.scored += 1
                    if !assessment.passed { summary.rejected += 1 }
                }
                var text = ""
                switch output {
                case .records(let format):
                    text = writer!.text(for: format == .jsonl ? assessment.record : assessment.flat)
                case .paths(let passing, let terminator):
                    if assessment.passed == passing { text = assessment.path + terminator }
                }
                if sharesTerminal { progress?.clear() }
                if !text.isEmpty { Terminal.write(text, to: standardOutput) }
                progress?.advance(failed: assessment.error != nil)
            })
        progress?.clear()
        return summary
    }
}

extension ContentJudgement: ExpressibleByArgument {}
