import Foundation
import ImagingCore
import TextRecognition

private import CTesseract

/// A `TextRecognizer` backed by libtesseract through its C API.
///
/// Pixels are passed from memory (`TessBaseAPISetImage`), never through a file.
/// Option mapping:
/// - `recognitionLanguages` → Tesseract language codes joined with `+` (`en` → `eng`,
///   `de` → `deu`, …; three-letter Tesseract codes pass through). Missing language data
///   is `recognize.engineUnavailable`.
/// - `usesLanguageCorrection = false` → `load_system_dawg` and `load_freq_dawg` off at init.
/// - `customWords` → a user-words file given to the engine at init.
/// - `regionOfInterest` → `TessBaseAPISetRectangle`; boxes stay in whole-image coordinates.
/// - `minimumTextHeightFraction` → lines shorter than the fraction are dropped.
/// - `sourceResolution` → `TessBaseAPISetSourceResolution`, as the `tesseract` program passes
///   the density leptonica reads from the file. When it is nil, Tesseract takes 70 ppi and
///   estimates the resolution from the size of the text, as the program does for a file that
///   declares none. Outside 70…2400 ppi Tesseract replaces it with 70, as for the program.
/// - `recognitionLevel = .fast` → refused (`recognize.unsupportedOption`) until a faster
///   configuration has been measured against the accurate one.
///
/// Engines are expensive to start: one per configuration is kept and reused; calls on
/// one configuration are serialised on its engine, so the recognizer is safe to share.
///
/// Run processes that use it with `OMP_THREAD_LIMIT=1`, as Tesseract's documentation
/// advises: libgomp reads it only at load time, and without it Tesseract's OpenMP threads
/// spin against each other (measured here on 2 cores: a 1240×1754 page takes 15.6 s with
/// the default, 1.3 s with the limit, with the `tesseract` CLI).
public final class TesseractRecognizer: TextRecognizer, @unchecked Sendable {
    /// Per-image limit on recognition time, through Tesseract's monitor.
    public let deadline: Duration
    private let lock = NSLock()
    private var engines: [EngineKey: Engine] = [:]

    public init(deadline: Duration = .seconds(60)) {
        self.deadline = deadline
    }

    /// The libtesseract version in use.
    public static var version: String { String(cString: TessVersion()) }

    /// The Tesseract language string for `languages`, e.g. `eng+deu`.
    /// - Throws: `.unsupportedOption` for a code it cannot map.
    public static func tesseractLanguages(_ languages: [String]) throws(RecognitionError) -> String {
        var codes: [String] = []
        for language in languages {
            if let code = TesseractLanguageNames.name(for: language) {
                codes.append(code)
            } else if language.count >= 3, language.allSatisfy({ $0.isLetter || $0 == "_" }) {
                codes.append(language)  // already a Tesseract name: eng, chi_tra, …
            } else {
                throw RecognitionError(.unsupportedOption, "recognitionLanguages: no Tesseract language for \"\(language)\"")
            }
        }
        return codes.joined(separator: "+")
    }

    public func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> [RecognizedTextObservation] {
        try await recognition(image, options: options).observations
    }

    /// The observations and the source resolution Tesseract worked with (what
    /// `TessBaseAPIGetSourceYResolution` reports after recognition).
    func recognition(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> (observations: [RecognizedTextObservation], sourceResolution: Int) {
        try options.validate()
        guard image.channels == 1 else { throw RecognitionError(.invalidOption, "the image must be one channel of luma") }
        let key = EngineKey(
            languages: try Self.tesseractLanguages(options.recognitionLanguages), correction: options.usesLanguageCorrection,
            customWords: options.customWords, level: Settings(options.recognitionLevel))
        let engine = try engine(for: key)
        let deadline = self.deadline
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try engine.recognize(image, options: options, deadline: deadline) })
            }
        }
    }

    private func engine(for key: EngineKey) throws(RecognitionError) -> Engine {
        lock.lock()
        defer { lock.unlock() }
        if let engine = engines[key] { return engine }
        let engine = try Engine(key)
        engines[key] = engine
        return engine
    }
}

extension TesseractRecognizer {
    /// What a recognition level sets in Tesseract, beyond the languages and dictionaries.
    public struct Settings: Hashable, Sendable {
        /// Tesseract's page segmentation mode (3: automatic, without orientation detection).
        public var pageSegmentationMode: Int
        /// Tesseract variables set when the engine starts.
        public var variables: [String: String]

        /// The settings `level` stands for.
        public init(_ level: RecognitionOptions.Level) {
            pageSegmentationMode = 3
            switch level {
            case .accurate: variables = [:]
            case .fast: variables = ["tessedit_do_invert": "0"]
            }
        }

        /// The same settings as `tesseract` program arguments, e.g. `--psm 3 -c tessedit_do_invert=0`.
        public var commandLineArguments: [String] {
            ["--psm", String(pageSegmentationMode)] + variables.sorted { $0.key < $1.key }.flatMap { ["-c", "\($0.key)=\($0.value)"] }
        }
    }
}

/// What an engine is initialised with (init-only Tesseract settings).
struct EngineKey: Hashable {
    var languages: String
    var correction: Bool
    var customWords: [String]
    var level: TesseractRecognizer.Settings
}

/// One initialised TessBaseAPI; calls are serialised by its lock.
final class Engine: @unchecked Sendable {
    private let handle: OpaquePointer
    private let lock = NSLock()
    private var userWordsFile: URL?
    private let pageSegmentationMode: Int

    init(_ key: EngineKey) throws(RecognitionError) {
        guard let handle = TessBaseAPICreate() else { throw RecognitionError(.engineUnavailable, "TessBaseAPICreate failed") }
        self.handle = handle
        pageSegmentationMode = key.level.pageSegmentationMode
        var names: [String] = [], values: [String] = []
        for (name, value) in key.level.variables.sorted(by: { $0.key < $1.key }) {
            names.append(name)
            values.append(value)
        }
        if !key.correction {
            names += ["load_system_dawg", "load_freq_dawg"]
            values += ["0", "0"]
        }
        if !key.customWords.isEmpty {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("imgquality-user-words-\(UUID().uuidString).txt")
            do {
                try Data((key.customWords.joined(separator: "\n") + "\n").utf8).write(to: file)
            } catch {
                // deinit releases the handle: the object is fully initialised here.
                throw RecognitionError(.engineUnavailable, "cannot write the user-words file: \(error)")
            }
            userWordsFile = file
            names.append("user_words_file")
            values.append(file.path)
        }
        let cNames = names.map { strdup($0) }, cValues = values.map { strdup($0) }
        defer {
            cNames.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        var namePointers: [UnsafeMutablePointer<CChar>?] = cNames, valuePointers: [UnsafeMutablePointer<CChar>?] = cValues
        let status = namePointers.withUnsafeMutableBufferPointer { n in
            valuePointers.withUnsafeMutableBufferPointer { v in
                TessBaseAPIInit4(handle, nil, key.languages, OEM_DEFAULT, nil, 0, n.baseAddress, v.baseAddress, n.count, 1)
            }
        }
        guard status == 0 else {
            // deinit ends and deletes the handle and removes the user-words file.
            throw RecognitionError(
                .engineUnavailable,
                "Tesseract cannot load language data \"\(key.languages)\" (install tesseract-ocr-\(key.languages.split(separator: "+").first ?? "") or set TESSDATA_PREFIX)")
        }
        // Tesseract's diagnostics ("Estimating resolution as …") would mix into our stderr.
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
        if let userWordsFile { try? FileManager.default.removeItem(at: userWordsFile) }
    }

    func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions, deadline: Duration) throws -> (observations: [RecognizedTextObservation], sourceResolution: Int) {
        lock.lock()
        defer { lock.unlock() }
        defer { TessBaseAPIClear(handle) }
        let size = image.size
        image.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(handle, pixels.baseAddress, Int32(size.width), Int32(size.height), 1, Int32(image.rowStride))
        }
        if let resolution = options.sourceResolution {
            // As the `tesseract` program passes a file's density. Without it the pixels have
            // none, and Tesseract takes 70 ppi and estimates the resolution from the text, as
            // the program does for a file without a density.
            TessBaseAPISetSourceResolution(handle, Int32(clamping: resolution))
        }
        TessBaseAPISetPageSegMode(handle, TessPageSegMode(UInt32(pageSegmentationMode)))
        if options.regionOfInterest != .full {
            let region = options.regionOfInterest.pixelRect(in: size)
            TessBaseAPISetRectangle(handle, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height))
        }
        let monitor = TessMonitorCreate()
        defer { TessMonitorDelete(monitor) }
        let milliseconds = Int32(clamping: deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000)
        TessMonitorSetDeadlineMSecs(monitor, milliseconds)
        let clock = ContinuousClock()
        let start = clock.now
        let status = TessBaseAPIRecognize(handle, monitor)
        if clock.now - start >= deadline {
            throw RecognitionError(.deadlineExceeded, "recognition took longer than \(deadline)")
        }
        guard status == 0 else { throw RecognitionError(.failed, "TessBaseAPIRecognize failed (\(status))") }
        let observations = collect(size: size, minimumHeight: options.minimumTextHeightFraction * Double(size.height))
        return (observations, Int(TessBaseAPIGetSourceYResolution(handle)))
    }

    /// Walks the result word by word, starting a line at each text line's first word.
    private func collect(size: ImageSize, minimumHeight: Double) -> [RecognizedTextObservation] {
        guard let results = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(results) }
        let page = TessResultIteratorGetPageIteratorConst(results)
        func box(_ level: TessPageIteratorLevel) -> PixelRect? {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
            return PixelRect(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top))
        }
        func text(_ level: TessPageIteratorLevel) -> String? {
            guard let pointer = TessResultIteratorGetUTF8Text(results, level) else { return nil }
            defer { TessDeleteText(pointer) }
            return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var observations: [RecognizedTextObservation] = []
        var block = -1, paragraph = -1
        var current: (text: String, confidence: Double, box: PixelRect, block: Int, paragraph: Int, words: [RecognizedWord])?
        func finish() {
            guard let line = current, !line.text.isEmpty, Double(line.box.height) >= minimumHeight else { return }
            observations.append(RecognizedTextObservation(
                candidates: [RecognizedText(string: line.text, confidence: line.confidence)], pixelBox: line.box, imageSize: size,
                words: line.words, block: line.block, paragraph: line.paragraph))
        }
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_BLOCK) != 0 { block += 1 }
            if TessPageIteratorIsAtBeginningOf(page, RIL_PARA) != 0 { paragraph += 1 }
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                finish()
                current = nil
                if let lineBox = box(RIL_TEXTLINE), let lineText = text(RIL_TEXTLINE) {
                    let confidence = Double(TessResultIteratorConfidence(results, RIL_TEXTLINE)) / 100
                    current = (lineText, max(0, min(1, confidence)), lineBox, max(0, block), max(0, paragraph), [])
                }
            }
            if let wordBox = box(RIL_WORD), let wordText = text(RIL_WORD), !wordText.isEmpty {
                let confidence = max(0, min(1, Double(TessResultIteratorConfidence(results, RIL_WORD)) / 100))
                current?.words.append(RecognizedWord(text: RecognizedText(string: wordText, confidence: confidence), pixelBox: wordBox, imageSize: size))
            }
        } while TessResultIteratorNext(results, RIL_WORD) != 0
        finish()
        return observations
    }
}
