import ArgumentParser
import Foundation
import GatedRecognition
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import Synchronization
import TesseractBackend
import TextRecognition

/// `imgquality ocr`: decode once, gate, and recognize only what will read well.
struct OCR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Gate images and recognize the text of those that pass (Tesseract).",
        discussion: """
            Formats: text (the recognized text, a line of "==> path <==" before each image, as \
            head does); jsonl (one record per image: path, gate, text (null when rejected), \
            observations with boxes in Vision's normalized lower-left convention and in pixels; \
            "timing" has decodeMs, analysisMs and recognitionMs); gcv (per image, one line holding \
            a Google Cloud Vision images:annotate response body for DOCUMENT_TEXT_DETECTION, with \
            context.uri the input's file:// URI, BCP 47 languages and a detectedBreak after each \
            word; rejected and failed images get its per-image error).

            Tesseract's OpenMP threads are limited to one per recognition (as OMP_THREAD_LIMIT=1 \
            does) unless OMP_THREAD_LIMIT, OMP_NUM_THREADS or OMP_MAX_ACTIVE_LEVELS is set.

            Exit status: 0 every image recognized, 1 some rejected by the gate, 2 some failed, \
            64 usage error.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags

    @Option(name: .long, help: ArgumentHelp("Output: text, jsonl or gcv.", valueName: "format"))
    var format: OCRFormat = .text

    @Flag(name: [.short, .long], help: "Do not print the summary (counts by decision and reason, time taken) on standard error at the end.")
    var quiet = false

    @Flag(name: .long, help: "Recognize rejected images too (the record still reports the gate).")
    var force = false

    @Option(name: .long, help: ArgumentHelp("accurate, or fast: Tesseract without its second pass on inverted text (see the README for what it costs).", valueName: "level"))
    var recognitionLevel: RecognitionOptions.Level = .accurate

    @Option(name: .long, help: ArgumentHelp("Languages, most likely first, comma-separated (en, de, ru, or Tesseract names).", valueName: "list"))
    var languages: String = "en"

    @Flag(name: .long, help: "Turn off Tesseract's dictionaries (no correction towards known words).")
    var noLanguageCorrection = false

    @Option(name: .long, help: ArgumentHelp("A file of extra words to favour, one per line.", valueName: "file"))
    var customWords: String?

    /// A recognizer's message about one of its options, naming the flag that sets it
    /// (`recognitionLanguages: …` reads `--languages: …`).
    static func inFlagTerms(_ message: String) -> String {
        let flags = [
            ("recognitionLanguages", "--languages"), ("customWords", "--custom-words"), ("recognitionLevel", "--recognition-level"),
            ("usesLanguageCorrection", "--no-language-correction"),
        ]
        for (option, flag) in flags where message.hasPrefix(option) { return flag + message.dropFirst(option.count) }
        return message
    }

    mutating func validate() throws {
        if analysis.timings {
            throw ValidationError("--timings is for score and gate: every ocr record gives its decode, analysis and recognition times in \"timing\".")
        }
    }

    mutating func run() async throws {
        try input.requireInputs()
        var options = RecognitionOptions(
            recognitionLevel: recognitionLevel,
            recognitionLanguages: languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
            usesLanguageCorrection: !noLanguageCorrection)
        if let customWords {
            let text: String
            do {
                text = try FileAccess.readText(customWords)
            } catch {
                throw ValidationError("cannot read the custom words file \(customWords): \(error.reason)")
            }
            options.customWords = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        }
        do {
            try options.validate()
            _ = try TesseractRecognizer.tesseractLanguages(options.recognitionLanguages)
        } catch {
            throw ValidationError(Self.inFlagTerms(error.message))
        }
        // Missing language data is a usage error, found once before the batch.
        let recognizer = TesseractRecognizer()
        do {
            try recognizer.prepare(options)
        } catch {
            throw ValidationError(Self.inFlagTerms(error.message))
        }
        var configuration = try analysis.configuration(decodeOptions: decode.decodeOptions)
        configuration.layoutProbe = try analysis.layoutProbe(recognizer, options: options)
        let gated = GatedTextRecognizer(recognizer: recognizer, configuration: configuration)
        let expander = InputExpander(allFiles: input.allFiles, nullSeparated: input.null)
        let lines = FileDescriptorLines(descriptor: STDIN_FILENO, nullSeparated: input.null)
        let start = ContinuousClock.now
        let tally = Mutex(BatchSummary())
        let (format, force, recognitionOptions, pages) = (self.format, self.force, options, decode.pageSelection)
        await OrderedBatch(expander.paths(input.inputs, standardInput: lines), jobs: input.jobs).run { path in
            await gated.recognizePages(contentsOf: path, pages: pages, options: recognitionOptions, force: force)
        } emit: { _, outcomes in
            tally.withLock { summary in
                for outcome in outcomes {
                    switch outcome.result {
                    case .failed(let error): summary.add(failure: error.code)
                    case .recognized(let recognition): summary.add(recognition.decision)
                    }
                }
            }
            switch format {
            case .text: Terminal.write(outcomes.map(\.text).joined(), to: STDOUT_FILENO)
            case .jsonl: Terminal.write(outcomes.map { $0.json.serialized + "\n" }.joined(), to: STDOUT_FILENO)
            case .gcv:
                // A PDF or TIFF (or any file of several pages) as files:annotate answers it.
                let languages = recognitionOptions.recognitionLanguages
                let body = GoogleVisionResponse.isFile(outcomes)
                    ? GoogleVisionResponse.filesBody(outcomes, languages: languages)
                    : GoogleVisionResponse.body(outcomes[0], languages: languages)
                Terminal.write(body.serialized + "\n", to: STDOUT_FILENO)
            }
        }
        // Tesseract's engines end here, on this thread, not while the process exits.
        recognizer.releaseIdleEngines()
        let summary = tally.withLock { $0 }
        if !quiet { Terminal.write(summary.text(elapsed: ContinuousClock.now - start, width: Terminal.errorColumns), to: STDERR_FILENO) }
        if summary.failed > 0 { throw ExitCode(2) }
        if summary.rejected > 0 { throw ExitCode(1) }
    }
}

extension RecognitionOptions.Level: ExpressibleByArgument {}

enum OCRFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl, gcv
}
