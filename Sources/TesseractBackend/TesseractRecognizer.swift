import Foundation
import ImageKernels
import ImagingCore
import Synchronization
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
/// - `textLayout` → the `fast` level's working resolution (below); `accurate` leaves it unused.
/// - `regionContent` → page segmentation mode 6 (one uniform block) for `.block` and 7 (one
///   line) for `.line`, in place of the level's mode: Tesseract's page layout analysis finds
///   no text line in a small region holding one digit or one short word (a table's cell
///   `2`, `Name`), which these modes read.
/// - `readsInvertedText` → `tessedit_do_invert`, set on every call (nil: the level's
///   setting). Tesseract reads a line it read poorly a second time as light on dark.
/// - `recognitionLevel` → `Settings(level)`. `.accurate` is Tesseract's defaults with page
///   segmentation mode 3, what `tesseract IMG - -l eng` does. `.fast` adds two things:
///   no second pass on inverted text (`tessedit_do_invert=0`), and text whose lines are
///   more than 25 pixels apart is read from a copy reduced until they are 25 pixels apart
///   (at most halved; boxes come back in the image's pixels), when the caller passes the
///   text's size in `textLayout`. The README's "Levels" section and
///   `Scripts/measure/ocr_levels.py` give what each level costs and reads.
///
/// Engines are expensive to start and hold the language data: they are kept and reused,
/// one per configuration and concurrent call, so calls from several threads run in parallel.
/// The recognizer is safe to share.
///
/// Tesseract's OpenMP parallel regions run on the thread that recognizes (`OpenMPThreads`),
/// as `OMP_THREAD_LIMIT=1` would make them, unless the environment configures OpenMP.
public final class TesseractRecognizer: TextRecognizer, TextLayoutAnalyzing {
    /// Per-image limit on recognition time, through Tesseract's monitor.
    public let deadline: Duration
    /// Idle engines by configuration.
    private let engines = Mutex<[EngineKey: [Engine]]>([:])

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
        let key = try Self.engineKey(options)
        let engine = try checkOut(key)
        defer { checkIn(engine, key) }
        let deadline = self.deadline
        let reduction = key.level.reduction(for: options.textLayout)
        var pixels = image, engineOptions = options
        if reduction < 1 {
            let size = ImageSize(
                width: max(1, Int((Double(image.width) * reduction).rounded())), height: max(1, Int((Double(image.height) * reduction).rounded())))
            // A region of interest is read from its own pixels only (`Engine.recognize`): only
            // its rows are resampled (a page's cells and lines are read one call each).
            let region = options.regionOfInterest == .full ? nil : options.regionOfInterest.pixelRect(in: size)
            if let region, region.width > 0, region.height > 0 {
                pixels = AreaResample.resize(image, to: size, rows: region.y..<(region.y + region.height))
            } else {
                pixels = AreaResample.resize(image, to: size)
            }
            engineOptions.sourceResolution = options.sourceResolution.map { max(1, Int((Double($0) * reduction).rounded())) }
        }
        let (input, inputOptions) = (pixels, engineOptions)
        let result = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try engine.recognize(input, options: inputOptions, deadline: deadline) })
            }
        }
        guard reduction < 1 else { return result }
        return (result.observations.map { Self.enlarge($0, from: pixels.size, to: image.size) }, result.sourceResolution)
    }

    /// The text lines Tesseract's page layout analysis finds (page segmentation mode 3, as
    /// recognition uses it), without recognizing them: the boxes of the lines of its text
    /// blocks (flowing, heading, pull-out, vertical and caption text; not pictures, rules or
    /// tables' lines), in `image`'s pixels. Runs on the calling thread.
    /// - Throws: `RecognitionError` for options it cannot honour or language data it lacks.
    public func textLines(in image: PixelBuffer<UInt8>, options: RecognitionOptions) throws(RecognitionError) -> [PixelRect] {
        try options.validate()
        guard image.channels == 1 else { throw RecognitionError(.invalidOption, "the image must be one channel of luma") }
        let key = try Self.engineKey(options)
        let engine = try checkOut(key)
        defer { checkIn(engine, key) }
        return engine.textLines(image)
    }

    /// An observation made on a reduced image, with its boxes in the full image's pixels.
    static func enlarge(_ line: RecognizedTextObservation, from small: ImageSize, to full: ImageSize) -> RecognizedTextObservation {
        let sx = Double(full.width) / Double(small.width), sy = Double(full.height) / Double(small.height)
        func box(_ rect: PixelRect) -> PixelRect {
            let left = max(0, Int((Double(rect.x) * sx).rounded(.down))), top = max(0, Int((Double(rect.y) * sy).rounded(.down)))
            let right = min(full.width, Int((Double(rect.x + rect.width) * sx).rounded(.up)))
            let bottom = min(full.height, Int((Double(rect.y + rect.height) * sy).rounded(.up)))
            return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
        }
        let words = line.words.map { RecognizedWord(text: $0.text, pixelBox: box($0.pixelBox), imageSize: full, language: $0.language) }
        return RecognizedTextObservation(
            candidates: line.candidates, pixelBox: box(line.pixelBox), imageSize: full, words: words, block: line.block, paragraph: line.paragraph)
    }

    /// An idle engine of this configuration, or a new one when all are busy.
    private func checkOut(_ key: EngineKey) throws(RecognitionError) -> Engine {
        let idle: Engine? = engines.withLock { $0[key]?.popLast() }
        if let idle { return idle }
        return try Engine(key)
    }

    /// The engine configuration `options` need.
    private static func engineKey(_ options: RecognitionOptions) throws(RecognitionError) -> EngineKey {
        EngineKey(
            languages: try Self.tesseractLanguages(options.recognitionLanguages), correction: options.usesLanguageCorrection,
            customWords: options.customWords, level: Settings(options.recognitionLevel))
    }

    /// Whether the data file of each of `languages` (Tesseract names joined by `+`) is where
    /// Tesseract looks first: under `TESSDATA_PREFIX` (or its `tessdata` folder), else in
    /// Debian's `/usr/share/tesseract-ocr/<version>/tessdata`. A look at the file system, not
    /// a load: false means only that the files were not found there (`prepare` decides).
    public static func languageDataFound(_ languages: String) -> Bool {
        var folders: [String] = []
        if let prefix = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"], !prefix.isEmpty {
            folders += [prefix, (prefix as NSString).appendingPathComponent("tessdata")]
        } else {
            let root = "/usr/share/tesseract-ocr"
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
            folders += versions.sorted().map { "\(root)/\($0)/tessdata" }
        }
        return languages.split(separator: "+").allSatisfy { language in
            folders.contains { FileManager.default.fileExists(atPath: "\($0)/\(language).traineddata") }
        }
    }

    /// Starts the engine `options` need, so that missing language data is found before a
    /// batch rather than once per image; the engine then serves the first recognition.
    /// - Throws: `.engineUnavailable` naming the languages without data and the Debian
    ///   packages that bring them; `.unsupportedOption` for a code it cannot map.
    public func prepare(_ options: RecognitionOptions) throws(RecognitionError) {
        let key = try Self.engineKey(options)
        let engine: Engine
        do {
            engine = try StandardError.silenced { () throws(RecognitionError) in try Engine(key) }
        } catch {
            let missing = key.languages.split(separator: "+").map(String.init).filter { !Engine.hasData(for: $0) }
            guard !missing.isEmpty else { throw error }
            let packages = missing.map { "tesseract-ocr-" + $0.lowercased().replacingOccurrences(of: "_", with: "-") }
            throw RecognitionError(
                .engineUnavailable,
                "no Tesseract language data for \(missing.joined(separator: ", ")): install Debian's \(packages.joined(separator: " ")), or set TESSDATA_PREFIX to a folder holding \(missing.map { $0 + ".traineddata" }.joined(separator: ", "))")
        }
        checkIn(engine, key)
    }

    /// Returns an engine for the next call of its configuration.
    private func checkIn(_ engine: Engine, _ key: EngineKey) {
        engines.withLock { $0[key, default: []].append(engine) }
    }

    /// Ends the idle engines now instead of with the recognizer; a later call starts new
    /// ones. A program calls it before it exits: each engine then hands its language data
    /// back to Tesseract's process-wide cache while that cache exists. Engines are ended
    /// here, not left to their last reference: the dispatch block that ran an engine can
    /// drop that reference later, on another thread, while `exit` has torn the cache down,
    /// and the dictionaries would leak.
    public func releaseIdleEngines() {
        let idle = engines.withLock { engines in
            defer { engines = [:] }
            return engines
        }
        for engine in idle.values.joined() { engine.end() }
    }

    /// Engines waiting for a call, over every configuration.
    var idleEngines: [Engine] { engines.withLock { Array($0.values.joined()) } }

    var idleEngineCount: Int { idleEngines.count }
}

extension TesseractRecognizer {
    /// What a recognition level sets in Tesseract, beyond the languages and dictionaries.
    public struct Settings: Hashable, Sendable {
        /// Tesseract's page segmentation mode (3: automatic, without orientation detection).
        public var pageSegmentationMode: Int
        /// Tesseract variables set when the engine starts.
        public var variables: [String: String]
        /// When set, an image whose text lines are further apart than this many pixels is
        /// reduced (area resampling) until they are this far apart, before Tesseract reads it;
        /// boxes are returned in the full image's pixels. The line pitch is the caller's
        /// (`RecognitionOptions.textLayout`, which `GatedTextRecognizer` fills in from the
        /// gate's text estimate); without one nothing is reduced.
        public var targetLinePitch: Double?

        /// The settings `level` stands for.
        public init(_ level: RecognitionOptions.Level) {
            pageSegmentationMode = 3
            switch level {
            case .accurate:
                variables = [:]
                targetLinePitch = nil
            case .fast:
                variables = ["tessedit_do_invert": "0"]
                targetLinePitch = Self.fastLinePitch
            }
        }

        /// The line pitch `fast` reduces large text to: lines 25 pixels apart have x-heights of
        /// about 10 pixels (pitch ≈ 1.2 × the font size, x-height ≈ 0.45 × it), the least
        /// Tesseract reads well (the README's "Levels" section compares other targets).
        public static let fastLinePitch = 25.0

        /// The factor (≤ 1) an image whose text has `layout` is reduced by before recognition.
        func reduction(for layout: TextLayout?) -> Double {
            guard let targetLinePitch, let text = layout else { return 1 }
            // Body text has a line pitch of about 12 stroke widths (pitch ≈ 1.2 × the font
            // size, stroke ≈ x-height / 5 ≈ font size / 10). A period far beyond that is one
            // of paragraphs or of a layout, not of lines: then nothing is reduced.
            guard text.linePitch > targetLinePitch, text.linePitch <= Self.maximumPitchPerStroke * text.strokeWidth
            else { return 1 }
            return max(Self.smallestReduction, targetLinePitch / text.linePitch)
        }

        /// Above this many stroke widths, a line pitch is not trusted.
        static let maximumPitchPerStroke = 24.0
        /// Never reduce more than this: a wrong estimate must not make text unreadable.
        static let smallestReduction = 0.5

        /// The variables and page segmentation mode as `tesseract` program arguments, e.g.
        /// `--psm 3 -c tessedit_do_invert=0` (the program has no counterpart of `targetLinePitch`).
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

/// One initialised TessBaseAPI; every call on it holds its lock.
final class Engine: Sendable {
    private let handle: Mutex<OpaquePointer>
    private let userWordsFile: URL?
    private let pageSegmentationMode: Int
    /// Whether the level reads lines both ways (`tessedit_do_invert`), for calls that do not say.
    private let readsInvertedText: Bool

    init(_ key: EngineKey) throws(RecognitionError) {
        // The library first (it is opened on first use), then its OpenMP runtime can be found.
        guard iq_tesseract_load() == 0 else {
            throw RecognitionError(.engineUnavailable, iq_tesseract_load_error().map { String(cString: $0) } ?? "libtesseract did not load")
        }
        OpenMPThreads.limitCurrentThread()
        guard let api = TessBaseAPICreate() else { throw RecognitionError(.engineUnavailable, "TessBaseAPICreate failed") }
        var names: [String] = [], values: [String] = []
        for (name, value) in key.level.variables.sorted(by: { $0.key < $1.key }) {
            names.append(name)
            values.append(value)
        }
        if !key.correction {
            names += ["load_system_dawg", "load_freq_dawg"]
            values += ["0", "0"]
        }
        var file: URL?
        if !key.customWords.isEmpty {
            let words = FileManager.default.temporaryDirectory.appendingPathComponent("imgquality-user-words-\(UUID().uuidString).txt")
            do {
                try Data((key.customWords.joined(separator: "\n") + "\n").utf8).write(to: words)
            } catch {
                TessBaseAPIDelete(api)
                throw RecognitionError(.engineUnavailable, "cannot write the user-words file: \(error)")
            }
            file = words
            names.append("user_words_file")
            values.append(words.path)
        }
        /// Undoes what init did, before it throws.
        func abandon() {
            TessBaseAPIEnd(api)
            TessBaseAPIDelete(api)
            if let file { try? FileManager.default.removeItem(at: file) }
        }
        guard Self.initialise(api, languages: key.languages, names: names, values: values) == 0 else {
            abandon()
            throw RecognitionError(
                .engineUnavailable,
                "Tesseract cannot load language data \"\(key.languages)\" (install tesseract-ocr-\(key.languages.split(separator: "+").first ?? "") or set TESSDATA_PREFIX)")
        }
        // Tesseract starts when at least one language loads: a language it skipped is missing too.
        let loaded = Set(Self.loadedLanguages(api))
        let skipped = key.languages.split(separator: "+").map(String.init).filter { !loaded.contains($0) }
        guard skipped.isEmpty else {
            abandon()
            throw RecognitionError(.engineUnavailable, "Tesseract cannot load language data \"\(skipped.joined(separator: "+"))\"")
        }
        // Tesseract's diagnostics ("Estimating resolution as …") and leptonica's (boxes
        // clipped in layout analysis) would mix into our stderr.
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        _ = Self.leptonicaSilenced
        handle = Mutex(api)
        userWordsFile = file
        pageSegmentationMode = key.level.pageSegmentationMode
        readsInvertedText = key.level.variables["tessedit_do_invert"] != "0"
    }

    /// Leptonica's messages off, once for the process (its threshold is a process-wide setting).
    private static let leptonicaSilenced: Bool = {
        _ = setMsgSeverity(6)
        return true
    }()

    /// Whether Tesseract can load the data of one language (its own code, `rus`), with its
    /// complaints kept off standard error.
    static func hasData(for language: String) -> Bool {
        guard let api = TessBaseAPICreate() else { return false }
        defer {
            TessBaseAPIEnd(api)
            TessBaseAPIDelete(api)
        }
        return StandardError.silenced { TessBaseAPIInit3(api, nil, language) == 0 && loadedLanguages(api) == [language] }
    }

    /// The languages whose data an initialised API loaded (Tesseract skips the ones it cannot).
    static func loadedLanguages(_ api: OpaquePointer) -> [String] {
        guard let vector = TessBaseAPIGetLoadedLanguagesAsVector(api) else { return [] }
        defer { TessDeleteTextArray(vector) }
        var languages: [String] = []
        var entry = vector
        while let language = entry.pointee {
            languages.append(String(cString: language))
            entry += 1
        }
        return languages
    }

    /// `TessBaseAPIInit4` with init-only variables; 0 on success.
    private static func initialise(_ api: OpaquePointer, languages: String, names: [String], values: [String]) -> Int32 {
        let cNames = names.map { strdup($0) }, cValues = values.map { strdup($0) }
        defer {
            cNames.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        var namePointers: [UnsafeMutablePointer<CChar>?] = cNames, valuePointers: [UnsafeMutablePointer<CChar>?] = cValues
        return namePointers.withUnsafeMutableBufferPointer { n in
            valuePointers.withUnsafeMutableBufferPointer { v in
                TessBaseAPIInit4(api, nil, languages, OEM_DEFAULT, nil, 0, n.baseAddress, v.baseAddress, n.count, 1)
            }
        }
    }

    /// The languages the engine was initialised with, as Tesseract reports them (`eng+deu`).
    var initialisedLanguages: String {
        handle.withLock { TessBaseAPIGetInitLanguagesAsString($0).map { String(cString: $0) } ?? "" }
    }

    /// A boolean setting as the engine holds it; nil for an unknown name.
    func boolVariable(_ name: String) -> Bool? {
        handle.withLock { handle in
            var value: Int32 = 0
            return TessBaseAPIGetBoolVariable(handle, name, &value) != 0 ? value != 0 : nil
        }
    }

    /// A string setting as the engine holds it; nil for an unknown name.
    func stringVariable(_ name: String) -> String? {
        handle.withLock { TessBaseAPIGetStringVariable($0, name).map { String(cString: $0) } }
    }

    /// Ends the engine: Tesseract frees its recognizer and hands its language data back to
    /// the process-wide cache. The engine recognizes nothing afterwards; `deinit` frees the
    /// handle (Tesseract's `End` does nothing the second time).
    func end() {
        handle.withLock { TessBaseAPIEnd($0) }
    }

    deinit {
        handle.withLock { handle in
            TessBaseAPIEnd(handle)
            TessBaseAPIDelete(handle)
        }
        if let userWordsFile { try? FileManager.default.removeItem(at: userWordsFile) }
    }

    func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions, deadline: Duration) throws(RecognitionError) -> (observations: [RecognizedTextObservation], sourceResolution: Int) {
        // libgomp keeps the limit per thread: set it on whichever thread recognizes.
        OpenMPThreads.limitCurrentThread()
        return try handle.withLock { (handle) throws(RecognitionError) in
            let mode = options.regionContent.map { $0 == .line ? 7 : 6 } ?? pageSegmentationMode
            // Set on every call: an engine serves calls with and without it.
            let inverted = options.readsInvertedText ?? readsInvertedText
            _ = TessBaseAPISetVariable(handle, "tessedit_do_invert", inverted ? "1" : "0")
            return try Self.recognize(image, options: options, deadline: deadline, pageSegmentationMode: mode, handle: handle)
        }
    }

    /// The boxes of the lines in the text blocks of Tesseract's layout analysis of `image`.
    func textLines(_ image: PixelBuffer<UInt8>) -> [PixelRect] {
        OpenMPThreads.limitCurrentThread()
        return handle.withLock { handle in
            defer { TessBaseAPIClear(handle) }
            image.withUnsafeBufferPointer { pixels in
                TessBaseAPISetImage(handle, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.rowStride))
            }
            TessBaseAPISetPageSegMode(handle, TessPageSegMode(UInt32(pageSegmentationMode)))
            guard let page = TessBaseAPIAnalyseLayout(handle) else { return [] }
            defer { TessPageIteratorDelete(page) }
            var lines: [PixelRect] = []
            repeat {
                guard Self.isText(TessPageIteratorBlockType(page)) else { continue }
                var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
                if TessPageIteratorBoundingBox(page, RIL_TEXTLINE, &left, &top, &right, &bottom) != 0 {
                    lines.append(PixelRect(x: Int(left), y: Int(top), width: Int(right - left), height: Int(bottom - top)))
                }
            } while TessPageIteratorNext(page, RIL_TEXTLINE) != 0
            return lines
        }
    }

    /// Whether Tesseract's block type holds text to read.
    private static func isText(_ type: TessPolyBlockType) -> Bool {
        type == PT_FLOWING_TEXT || type == PT_HEADING_TEXT || type == PT_PULLOUT_TEXT || type == PT_VERTICAL_TEXT
            || type == PT_CAPTION_TEXT
    }

    private static func recognize(
        _ image: PixelBuffer<UInt8>, options: RecognitionOptions, deadline: Duration, pageSegmentationMode: Int, handle: OpaquePointer
    ) throws(RecognitionError) -> (observations: [RecognizedTextObservation], sourceResolution: Int) {
        defer { TessBaseAPIClear(handle) }
        let size = image.size
        // A region of interest is handed over as the pixels it covers, rows of the whole
        // image's stride starting at its corner: Tesseract copies what it is given into its
        // own image, so a small region (a cell, a line) costs its own size, not the page's,
        // and is read as `TessBaseAPISetRectangle` over the whole page reads it.
        let region = options.regionOfInterest == .full ? nil : options.regionOfInterest.pixelRect(in: size)
        var offset = (x: 0, y: 0)
        image.withUnsafeBufferPointer { pixels in
            if let region, region.width > 0, region.height > 0 {
                let corner = pixels.baseAddress! + region.y * image.rowStride + region.x
                TessBaseAPISetImage(handle, corner, Int32(region.width), Int32(region.height), 1, Int32(image.rowStride))
                offset = (region.x, region.y)
            } else {
                TessBaseAPISetImage(handle, pixels.baseAddress, Int32(size.width), Int32(size.height), 1, Int32(image.rowStride))
                if let region { TessBaseAPISetRectangle(handle, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height)) }
            }
        }
        if let resolution = options.sourceResolution {
            // As the `tesseract` program passes a file's density. Without it the pixels have
            // none, and Tesseract takes 70 ppi and estimates the resolution from the text, as
            // the program does for a file without a density.
            TessBaseAPISetSourceResolution(handle, Int32(clamping: resolution))
        }
        TessBaseAPISetPageSegMode(handle, TessPageSegMode(UInt32(pageSegmentationMode)))
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
        let observations = collect(handle, size: size, offset: offset, minimumHeight: options.minimumTextHeightFraction * Double(size.height))
        return (observations, Int(TessBaseAPIGetSourceYResolution(handle)))
    }

    /// Walks the result character by character, starting a line at each text line's first
    /// character and a word at each word's; a line's words are split where Tesseract left
    /// out a space their characters' boxes show (`DroppedSpaces`). Boxes are moved by
    /// `offset`, the corner of the pixels Tesseract was given, into `size`'s image.
    private static func collect(
        _ handle: OpaquePointer, size: ImageSize, offset: (x: Int, y: Int), minimumHeight: Double
    ) -> [RecognizedTextObservation] {
        guard let results = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(results) }
        let page = TessResultIteratorGetPageIteratorConst(results)
        func box(_ level: TessPageIteratorLevel) -> PixelRect? {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
            return PixelRect(x: offset.x + Int(left), y: offset.y + Int(top), width: Int(right - left), height: Int(bottom - top))
        }
        func text(_ level: TessPageIteratorLevel) -> String? {
            guard let pointer = TessResultIteratorGetUTF8Text(results, level) else { return nil }
            defer { TessDeleteText(pointer) }
            return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var observations: [RecognizedTextObservation] = []
        var block = -1, paragraph = -1
        var current: (text: String, confidence: Double, box: PixelRect, block: Int, paragraph: Int, words: [RecognizedWord])?
        // The heights of the characters of the line's kept words; the characters themselves of
        // each word that may have lost a space (`DroppedSpaces.maySplit`), none of the others.
        var heights: [Int] = []
        var characters: [[DroppedSpaces.Character]] = []
        var inWord = false, splittable = false
        func finish() {
            guard let line = current, !line.text.isEmpty, Double(line.box.height) >= minimumHeight else { return }
            let height = DroppedSpaces.medianHeight(heights)
            let words = zip(line.words, characters).flatMap { DroppedSpaces.split($0, characters: $1, characterHeight: height, imageSize: size) }
            // The line's text is its words' when a space was put back, else Tesseract's own.
            let text = words.count == line.words.count ? line.text : words.map(\.text.string).joined(separator: " ")
            observations.append(RecognizedTextObservation(
                candidates: [RecognizedText(string: text, confidence: line.confidence)], pixelBox: line.box, imageSize: size,
                words: words, block: line.block, paragraph: line.paragraph))
        }
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_BLOCK) != 0 { block += 1 }
            if TessPageIteratorIsAtBeginningOf(page, RIL_PARA) != 0 { paragraph += 1 }
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                finish()
                current = nil
                characters = []
                heights = []
                if let lineBox = box(RIL_TEXTLINE), let lineText = text(RIL_TEXTLINE) {
                    let confidence = Double(TessResultIteratorConfidence(results, RIL_TEXTLINE)) / 100
                    current = (lineText, max(0, min(1, confidence)), lineBox, max(0, block), max(0, paragraph), [])
                }
            }
            if TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                (inWord, splittable) = (false, false)
                if current != nil, let wordBox = box(RIL_WORD), let wordText = text(RIL_WORD), !wordText.isEmpty {
                    let confidence = max(0, min(1, Double(TessResultIteratorConfidence(results, RIL_WORD)) / 100))
                    // The language model the word was read with (Tesseract's string, not ours to free).
                    let language = TessResultIteratorWordRecognitionLanguage(results).map {
                        TesseractLanguageNames.languageTag(forTesseractName: String(cString: $0))
                    }
                    let word = RecognizedWord(
                        text: RecognizedText(string: wordText, confidence: confidence), pixelBox: wordBox, imageSize: size, language: language)
                    current?.words.append(word)
                    characters.append([])
                    (inWord, splittable) = (true, DroppedSpaces.maySplit(wordText))
                }
            }
            if inWord, let characterBox = box(RIL_SYMBOL) {
                if !splittable {
                    heights.append(characterBox.height)
                } else if let characterText = text(RIL_SYMBOL), !characterText.isEmpty {
                    heights.append(characterBox.height)
                    characters[characters.count - 1].append(DroppedSpaces.Character(text: characterText, box: characterBox))
                }
            }
        } while TessResultIteratorNext(results, RIL_SYMBOL) != 0
        finish()
        return observations
    }
}

/// Standard error pointed at /dev/null for a moment: Tesseract prints its failures to load
/// language data there, several lines each time. Used before a batch starts, while no other
/// thread writes to standard error.
enum StandardError {
    static func silenced<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, STDERR_FILENO) }
        defer {
            fflush(nil)
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if null >= 0 { close(null) }
        }
        return try body()
    }
}
