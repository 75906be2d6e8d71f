import Foundation
import ImagingCore
import Synchronization

/// A `TextRecognizer` that runs an external OCR program, showing the seam takes any engine.
///
/// The command is an argument list with placeholders: `{input}` is a PGM file of the
/// pixels (written to a temporary folder, removed afterwards) and `{languages}` the
/// languages joined with `+`. The program must print Tesseract-style TSV on standard
/// output (`level … left top width height conf text`), as `tesseract {input} - tsv` does;
/// lines and words come from its level-4 and level-5 rows.
///
/// Options: languages need a `{languages}` placeholder; region of interest and minimum
/// text height are applied to the program's results; language correction and custom
/// words are refused (`recognize.unsupportedOption`), as is `fast`. `sourceResolution` is
/// left unused: a PGM file has no field for it, so the program estimates the resolution.
/// `textLayout`, `regionContent` and `readsInvertedText` are left unused: the program's own
/// arguments choose its scale, page segmentation mode and settings.
public struct CommandTextRecognizer: TextRecognizer {
    public var arguments: [String]
    public var deadline: Duration

    /// - Parameter arguments: the program and its arguments, e.g.
    ///   `["tesseract", "{input}", "-", "-l", "{languages}", "tsv"]`.
    public init(arguments: [String], deadline: Duration = .seconds(60)) {
        self.arguments = arguments
        self.deadline = deadline
    }

    public func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> [RecognizedTextObservation] {
        try options.validate()
        let defaults = RecognitionOptions()
        if options.recognitionLevel != .accurate { throw RecognitionError(.unsupportedOption, "recognitionLevel fast: the command has one level") }
        if options.usesLanguageCorrection != defaults.usesLanguageCorrection {
            throw RecognitionError(.unsupportedOption, "usesLanguageCorrection: the command has no such switch")
        }
        if !options.customWords.isEmpty { throw RecognitionError(.unsupportedOption, "customWords: the command takes no word list") }
        if options.recognitionLanguages != defaults.recognitionLanguages && !arguments.contains(where: { $0.contains("{languages}") }) {
            throw RecognitionError(.unsupportedOption, "recognitionLanguages: the command has no {languages} placeholder")
        }
        guard image.channels == 1 else { throw RecognitionError(.invalidOption, "the image must be one channel of luma") }
        let output = try await run(image, languages: options.recognitionLanguages.map(Self.tesseractCode).joined(separator: "+"))
        let size = image.size
        let region = options.regionOfInterest.pixelRect(in: size)
        return Self.parseTSV(output, size: size).filter { line in
            let box = line.pixelBox
            return box.x >= region.x && box.y >= region.y && box.x + box.width <= region.x + region.width
                && box.y + box.height <= region.y + region.height
                && Double(box.height) >= options.minimumTextHeightFraction * Double(size.height)
        }
    }

    /// `en` → `eng` and so on; other codes pass through.
    static func tesseractCode(_ language: String) -> String {
        TesseractLanguageNames.name(for: language) ?? language
    }

    private func run(_ image: PixelBuffer<UInt8>, languages: String) async throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgquality-ocr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("image.pgm")
        var pgm = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        for y in 0..<image.height {
            image.withUnsafeBufferPointer { pixels in
                pgm.append(contentsOf: UnsafeBufferPointer(rebasing: pixels[(y * image.rowStride)..<(y * image.rowStride + image.width)]))
            }
        }
        try pgm.write(to: input)
        let resolved = arguments.map { $0.replacingOccurrences(of: "{input}", with: input.path).replacingOccurrences(of: "{languages}", with: languages) }
        guard let program = resolved.first else { throw RecognitionError(.engineUnavailable, "no command given") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.contains("/") ? program : "/usr/bin/env")
        process.arguments = program.contains("/") ? Array(resolved.dropFirst()) : resolved
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw RecognitionError(.engineUnavailable, "cannot run \(program): \(error)")
        }
        let deadline = self.deadline
        let stopped = Mutex(false)
        let timer = DispatchWorkItem {
            guard process.isRunning else { return }
            stopped.withLock { $0 = true }
            process.terminate()
        }
        let (seconds, attoseconds) = deadline.components
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .nanoseconds(Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)),
            execute: timer)
        // Both pipes are drained at once: a child that fills one while the other is read
        // would otherwise wait for us forever.
        let errors = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        let errorHandle = stderr.fileHandleForReading
        Thread {
            let read = errorHandle.readDataToEndOfFile()
            errors.withLock { $0 = read }
            errorsRead.signal()
        }.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        timer.cancel()
        if stopped.withLock({ $0 }) {
            throw RecognitionError(.deadlineExceeded, "\(program) ran longer than \(deadline) and was stopped")
        }
        if process.terminationReason == .uncaughtSignal {
            throw RecognitionError(.failed, "\(program) was ended by signal \(process.terminationStatus)")
        }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw RecognitionError(.failed, "\(program) exited with \(process.terminationStatus): \(message.prefix(300))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Lines (level 4) with their words (level 5) from Tesseract-style TSV.
    static func parseTSV(_ text: String, size: ImageSize) -> [RecognizedTextObservation] {
        struct Line {
            var box: PixelRect
            var block: Int
            var paragraph: (Int, Int)
            var words: [RecognizedWord] = []
        }
        var lines: [Line] = []
        for row in text.split(separator: "\n", omittingEmptySubsequences: true).dropFirst() {
            let fields = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 11, let level = Int(fields[0]), let block = Int(fields[2]), let paragraph = Int(fields[3]),
                let left = Int(fields[6]), let top = Int(fields[7]), let width = Int(fields[8]), let height = Int(fields[9])
            else { continue }
            let box = PixelRect(x: left, y: top, width: width, height: height)
            if level == 4 {
                lines.append(Line(box: box, block: block, paragraph: (block, paragraph)))
            } else if level == 5, fields.count >= 12, !lines.isEmpty {
                let word = fields[11].trimmingCharacters(in: .whitespaces)
                guard !word.isEmpty else { continue }
                let confidence = max(0, min(1, (Double(fields[10]) ?? 0) / 100))
                lines[lines.count - 1].words.append(RecognizedWord(text: RecognizedText(string: word, confidence: confidence), pixelBox: box, imageSize: size))
            }
        }
        // Blocks and paragraphs renumbered from 0 in reading order.
        var blockIndex: [Int: Int] = [:], paragraphIndex: [String: Int] = [:]
        return lines.filter { !$0.words.isEmpty }.map { line in
            let block = blockIndex[line.block] ?? { let next = blockIndex.count; blockIndex[line.block] = next; return next }()
            let key = "\(line.paragraph.0).\(line.paragraph.1)"
            let paragraph = paragraphIndex[key] ?? { let next = paragraphIndex.count; paragraphIndex[key] = next; return next }()
            let confidence = line.words.map(\.text.confidence).reduce(0, +) / Double(line.words.count)
            return RecognizedTextObservation(
                candidates: [RecognizedText(string: line.words.map(\.text.string).joined(separator: " "), confidence: confidence)],
                pixelBox: line.box, imageSize: size, words: line.words, block: block, paragraph: paragraph)
        }
    }
}
