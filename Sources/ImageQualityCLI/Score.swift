import ArgumentParser
import Foundation
import ImageCodecs
import ImagingCore

/// `imgquality score`: one record per input, in input order.
struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode and score images; print one record per input.",
        discussion: """
            Exit status: 0 when every input was scored, 2 when some failed (each failure
            still gets a record with an error code), 64 for usage errors.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var output: OutputFlags

    mutating func run() throws {
        let outcome = ScoreRun(
            inputs: input.inputs, expander: InputExpander(allFiles: input.allFiles, nullSeparated: input.null),
            jobs: input.jobs, options: decode.decodeOptions, format: output.resolvedFormat,
            showsProgress: output.showsProgress
        ).execute(standardInput: STDIN_FILENO, standardOutput: STDOUT_FILENO)
        if outcome.failed > 0 { throw ExitCode(2) }
    }
}

/// What one score run did.
struct RunSummary: Equatable {
    var scored = 0
    var failed = 0
}

/// A score run, separate from argument parsing so it can be tested in-process.
struct ScoreRun {
    var inputs: [String]
    var expander: InputExpander
    var jobs: Int
    var options: DecodeOptions
    var format: OutputFormat
    var showsProgress: Bool

    func execute(standardInput: Int32, standardOutput: Int32) -> RunSummary {
        let lines = FileDescriptorLines(descriptor: standardInput, nullSeparated: expander.nullSeparated)
        let paths = expander.paths(inputs, standardInput: lines)
        let progress = showsProgress ? ProgressBar(total: expander.count(inputs)) : nil
        let sharesTerminal = showsProgress && isatty(standardOutput) != 0
        var writer = RecordWriter(format: format, columns: ScoreRecord.columns)
        var summary = RunSummary()
        let options = self.options
        OrderedParallelMap(paths, jobs: jobs).run(
            makeWorker: {
                let scorer = ImageScorer(options: options)
                return { scorer.score(path: $0) }
            },
            emit: { _, record in
                if record.isFailure { summary.failed += 1 } else { summary.scored += 1 }
                let text = writer.text(for: format == .jsonl ? record.json : record.flat)
                if sharesTerminal { progress?.clear() }
                Terminal.write(text, to: standardOutput)
                progress?.advance(failed: record.isFailure)
            })
        progress?.clear()
        return summary
    }
}
