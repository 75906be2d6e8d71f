import ArgumentParser
import DocumentStructure
import Foundation
import GatedRecognition
import ImageCodecs
import QualityReports
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
            "timing" has decodeMs, analysisMs and recognitionMs, and structureMs when pages are \
            read as documents); gcv (per image, one line holding \
            a Google Cloud Vision images:annotate response body for DOCUMENT_TEXT_DETECTION, with \
            context.uri the input's file:// URI, BCP 47 languages and a detectedBreak after each \
            word; rejected and failed images get its per-image error); document (one record per \
            image: path, gate, and document: text, paragraphs, lists, tables with their cells, \
            barcodes and detected data, each with its box in full-resolution pixels from the top \
            left; null when rejected; docs/documents.md has the whole record); markdown (the \
            document as Markdown, a "# path" heading before each image).

            --tables DIR writes each table found as a CSV (or --table-format tsv) file named \
            after the input, its page and the table's number; --report DIR writes an HTML page \
            showing each image with its paragraphs, table cells, lists, barcodes and detected \
            data drawn over it.

            Tesseract's OpenMP threads are limited to one per recognition (as OMP_THREAD_LIMIT=1 \
            does) unless OMP_THREAD_LIMIT, OMP_NUM_THREADS or OMP_MAX_ACTIVE_LEVELS is set.

            Exit status: 0 every image recognized, 1 some rejected by the gate, 2 some failed, \
            64 usage error.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags
    @OptionGroup var recognition: RecognitionFlags

    @Option(name: .long, help: ArgumentHelp("Output: text, jsonl, gcv, document or markdown.", valueName: "format"))
    var format: OCRFormat = .text

    @Option(name: .long, help: ArgumentHelp("Write each table found as a file in this directory.", valueName: "dir"))
    var tables: String?

    @Option(name: .long, help: ArgumentHelp("csv or tsv: the files --tables writes.", valueName: "format"))
    var tableFormat: TableFileFormat = .csv

    @Option(name: .long, help: ArgumentHelp("Write an HTML page of the images with what was found drawn over them, in this directory.", valueName: "dir"))
    var report: String?

    @Flag(name: [.short, .long], help: "Do not print the summary (counts by decision and reason, time taken) on standard error at the end.")
    var quiet = false

    @Flag(name: .long, help: "Recognize rejected images too (the record still reports the gate).")
    var force = false

    @Flag(name: .customLong("as-is"), help: ArgumentHelp(
        "Read each image's pixels as they are.",
        discussion: "By default a page the gate judges as a document is first seen straight on, its ruling lines and barcodes painted out and faint print deepened, as --format document reads it; words' boxes are in the image's coordinates either way."))
    var asIs = false

    /// Whether pages are read as documents. Google Vision's format marks TABLE and BARCODE
    /// blocks, so it reads documents too.
    var readsDocuments: Bool { format != .text && format != .jsonl || tables != nil || report != nil }

    mutating func validate() throws {
        if asIs && readsDocuments {
            throw ValidationError(
                "--as-is reads text alone: with --format gcv, document or markdown, --tables or --report a page is read as a document, always seen straight on first.")
        }
        if analysis.timings {
            throw ValidationError("--timings is for score and gate: every ocr record gives its decode, analysis and recognition times in \"timing\".")
        }
    }

    mutating func run() async throws {
        try input.requireInputs()
        let options = try recognition.recognitionOptions()
        // Missing language data is a usage error, found once before the batch.
        let recognizer = TesseractRecognizer()
        do {
            try recognizer.prepare(options)
        } catch {
            throw ValidationError(RecognitionFlags.inFlagTerms(error.message))
        }
        var configuration = try analysis.configuration(decodeOptions: decode.decodeOptions)
        try analysis.addLayoutProbe(to: &configuration, recognizer, options: options)
        let gated = GatedTextRecognizer(recognizer: recognizer, configuration: configuration, preparation: asIs ? nil : .textPreparation)
        let expander = InputExpander(allFiles: input.allFiles, nullSeparated: input.null)
        let lines = FileDescriptorLines(descriptor: STDIN_FILENO, nullSeparated: input.null)
        let start = ContinuousClock.now
        let tally = Mutex(BatchSummary())
        let (format, force, recognitionOptions, pages) = (self.format, self.force, options, decode.pageSelection)
        let (analyzer, readsDocuments) = (recognition.documentAnalyzer, self.readsDocuments)
        // A page prepared for its text has its barcodes painted out too.
        if readsDocuments || !asIs { RecognitionFlags.warnIfBarcodesAreNotRead() }
        let tableFiles = try tables.map { try TableFiles(directory: $0, format: tableFormat) }
        let previewLongSide = report != nil ? DocumentReport.imageLongSide : nil
        var opened: DocumentReport?
        if let report {
            do {
                opened = try DocumentReport(directory: report)
            } catch {
                throw ValidationError("--report: \(error.message)")
            }
        }
        let reportPage = Mutex(opened)
        let reportFailure = Mutex<String?>(nil)
        await OrderedBatch(expander.paths(input.inputs, standardInput: lines), jobs: input.jobs).run { path in
            readsDocuments
                ? await gated.readDocumentPages(
                    contentsOf: path, pages: pages, options: recognitionOptions, force: force, analyzer: analyzer, previewLongSide: previewLongSide)
                : await gated.recognizePages(contentsOf: path, pages: pages, options: recognitionOptions, force: force)
        } emit: { _, outcomes in
            tableFiles?.write(outcomes)
            if let failure = Self.add(outcomes, to: reportPage) { reportFailure.withLock { $0 = $0 ?? failure } }
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
            case .document: Terminal.write(outcomes.map { $0.documentJSON.serialized + "\n" }.joined(), to: STDOUT_FILENO)
            case .markdown: Terminal.write(outcomes.map(\.markdown).joined(), to: STDOUT_FILENO)
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
        if let page = reportPage.withLock({ $0 }) {
            do {
                try page.finish(command: CommandText.current)
            } catch {
                reportFailure.withLock { $0 = $0 ?? error.message }
            }
        }
        if let failures = tableFiles?.failures, !failures.isEmpty {
            Terminal.write(failures.map { "imgquality ocr: \($0)\n" }.joined(), to: STDERR_FILENO)
        }
        if let failure = reportFailure.withLock({ $0 }) {
            Terminal.write("imgquality ocr: --report: \(failure)\n", to: STDERR_FILENO)
            throw ExitCode(74)
        }
        if !quiet { Terminal.write(summary.text(elapsed: ContinuousClock.now - start, width: Terminal.errorColumns), to: STDERR_FILENO) }
        if summary.failed > 0 || tableFiles?.failures.isEmpty == false { throw ExitCode(2) }
        if summary.rejected > 0 { throw ExitCode(1) }
    }
}

extension OCR {
    /// Adds the outcomes to the report, if there is one; the first failure in words.
    static func add(_ outcomes: [RecognitionOutcome], to report: borrowing Mutex<DocumentReport?>) -> String? {
        report.withLock { page -> String? in
            guard page != nil else { return nil }
            for outcome in outcomes {
                do {
                    try page!.add(outcome.reportEntry, luma: outcome.preview)
                } catch {
                    return (error as? DocumentReport.Failure)?.message ?? "\(error)"
                }
            }
            return nil
        }
    }
}

extension RecognitionOptions.Level: ExpressibleByArgument {}

enum OCRFormat: String, ExpressibleByArgument, CaseIterable {
    case text, jsonl, gcv, document, markdown
}

enum TableFileFormat: String, ExpressibleByArgument, CaseIterable {
    case csv, tsv
}

extension RecognitionOutcome {
    /// This input as the report shows it.
    var reportEntry: DocumentReport.Entry {
        switch result {
        case .failed(let error):
            return DocumentReport.Entry(
                path: path, page: page, status: .failed, reasons: ["\(error.code): \(error.message)"], imageSize: nil, document: nil, lines: [])
        case .recognized(let recognition):
            let reasons = recognition.decision.failures.map(\.message)
            return DocumentReport.Entry(
                path: path, page: page, status: recognition.decision.pass ? .passed : .rejected, reasons: reasons, imageSize: recognition.imageSize,
                document: recognition.document, lines: recognition.observations ?? [])
        }
    }

    /// The reduced page kept for the report.
    var preview: PixelBuffer<UInt8>? {
        if case .recognized(let recognition) = result { return recognition.preview }
        return nil
    }
}

/// `ocr --tables DIR`: each table as its own file, named after the input (its path with
/// separators as "_"), the page of a file of several, and the table's number from 1.
final class TableFiles: Sendable {
    let directory: String
    let format: TableFileFormat
    /// Files that could not be written, in words; the batch goes on.
    let failuresStore = Mutex<[String]>([])
    var failures: [String] { failuresStore.withLock { $0 } }

    init(directory: String, format: TableFileFormat) throws {
        do {
            try FileAccess.createDirectories(directory)
        } catch {
            throw ValidationError("--tables: cannot create the directory \(directory): \(error.reason)")
        }
        self.directory = directory
        self.format = format
    }

    /// Names already written in this batch: an input named twice, or two paths that read alike
    /// (`a/b.png`, `a_b.png`), get `-2`, `-3`… rather than one overwriting the other.
    let namesStore = Mutex<Set<String>>([])

    /// The file name stem for an input's table: its path with `/` as `_` (extension kept, so
    /// `x.png` and `x.jpg` differ), its page, and the table's number.
    static func stem(path: String, page: Int?, table: Int) -> String {
        var name = FileSystemPath.display(path)
        while name.hasPrefix("./") { name.removeFirst(2) }
        name = String(name.map { $0 == "/" || $0 == "\\" || $0 == ":" ? "_" : $0 })
        while name.hasPrefix("_") || name.hasPrefix(".") { name.removeFirst() }
        return name + (page.map { "-p\($0)" } ?? "") + "-table\(table)"
    }

    /// A name not yet used in this batch.
    func unique(_ stem: String) -> String {
        namesStore.withLock { names in
            var candidate = stem, number = 1
            while names.contains(candidate) {
                number += 1
                candidate = "\(stem)-\(number)"
            }
            names.insert(candidate)
            return candidate
        }
    }

    /// The table's rows as CSV (RFC 4180 quoting) or TSV (tabs and line breaks in cells become spaces).
    static func contents(_ table: Table, format: TableFileFormat) -> String {
        table.grid.map { row in
            switch format {
            case .csv: row.map(RecordWriter.csvQuoted).joined(separator: ",")
            case .tsv: row.map(RecordWriter.tsvClean).joined(separator: "\t")
            }
        }.joined(separator: "\r\n") + "\r\n"
    }

    func write(_ outcomes: [RecognitionOutcome]) {
        for outcome in outcomes {
            guard case .recognized(let recognition) = outcome.result, let document = recognition.document else { continue }
            for (index, table) in document.tables.enumerated() {
                let file = directory + "/" + unique(Self.stem(path: outcome.path, page: outcome.page, table: index + 1)) + "." + format.rawValue
                do {
                    try FileAccess.replace(file, with: Array(Self.contents(table, format: format).utf8))
                } catch {
                    failuresStore.withLock { $0.append("cannot write \(file): \(error.reason)") }
                }
            }
        }
    }
}
