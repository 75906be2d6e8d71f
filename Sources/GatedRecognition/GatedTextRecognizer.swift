import DocumentStructure
import ImageCodecs
import ImageKernels
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics
import TextRecognition

/// The outcome of a gated recognition: the image's assessment always; the observations
/// only when the gate passed (or recognition was forced).
public struct GatedRecognition: Sendable {
    /// The assessed image: its report and the gate's decision.
    public var image: AssessedImage
    /// nil when the gate rejected the image and recognition was not forced.
    public var observations: [RecognizedTextObservation]?
    /// The page read as a document (paragraphs, lists, tables, barcodes, detected data)
    /// when it was asked for (`readDocument`) and the page was recognized.
    public var document: DocumentObservation?
    /// The oriented full-resolution size the boxes refer to.
    public var imageSize: ImageSize
    /// A reduced copy of the decoded luma (long side at most `previewLongSide`), when the
    /// caller asked for one, to show the page in a report.
    public var preview: PixelBuffer<UInt8>?
    /// How long each step took.
    public var timing: GatedRecognitionTiming

    /// The detectors' report.
    public var report: QualityReport { image.report }
    /// The gate's decision.
    public var decision: GateDecision { image.decision }

    /// The recognized text, one line per observation, or nil when nothing was recognized.
    public var text: String? { observations.map { $0.map(\.text).joined(separator: "\n") } }
}

/// The time each step of one gated recognition took, measured with `ContinuousClock`.
public struct GatedRecognitionTiming: Sendable, Equatable {
    /// Reading and decoding the file; nil when the caller passed decoded pixels.
    public var decode: Duration?
    /// Quality analysis and the gate's decision.
    public var analysis: Duration
    /// The recognizer's call, with the page's preparation when it was prepared
    /// (`GatedTextRecognizer.preparation`); nil when the gate rejected the image and
    /// recognition was not forced.
    public var recognition: Duration?
    /// Finding the document's structure (barcodes, tables, lists, data) around the
    /// recognition, when a document was asked for; cells read one by one count here too.
    public var structure: Duration?

    public init(decode: Duration? = nil, analysis: Duration = .zero, recognition: Duration? = nil, structure: Duration? = nil) {
        self.decode = decode
        self.analysis = analysis
        self.recognition = recognition
        self.structure = structure
    }
}

/// Decode once, score, gate, and recognize only what will read well.
///
/// ```swift
/// let ocr = GatedTextRecognizer(recognizer: myRecognizer)
/// let result = try await ocr.recognize(contentsOf: "receipt.jpg")
/// if let text = result.text { print(text) } else { print("rejected:", result.decision.failures.map(\.message)) }
/// ```
public struct GatedTextRecognizer<Recognizer: TextRecognizer>: Sendable {
    public var recognizer: Recognizer
    /// The detectors, gate and decode limits; decoding is always at full resolution.
    public var configuration: Assessor.Configuration

    /// How a page the gate judges as a document is made ready before it is read as text
    /// (`DocumentAnalyzer.prepare`): seen straight on, its ruling lines and barcodes (with a 1-D
    /// code's printed digits) painted out, faint print deepened, and only the sheet kept when
    /// one was found on a desk. The words' boxes are given in the image's own coordinates. By
    /// default `DocumentAnalyzer.textPreparation`, which takes only pieces of ink as thin as
    /// strokes for rules; nil reads every image's pixels as they are. A photo, and a page read
    /// in part (`RecognitionOptions.regionOfInterest`), are read as they are either way.
    /// A page that will be prepared is gated as prepared (`GateDecision.preparedPage`).
    public var preparation: DocumentAnalyzer?

    public init(
        recognizer: Recognizer, configuration: Assessor.Configuration = Assessor.Configuration(),
        preparation: DocumentAnalyzer? = .textPreparation
    ) {
        self.recognizer = recognizer
        self.configuration = configuration
        self.configuration.decodesFullResolution = true  // recognition reads every pixel
        self.preparation = preparation
    }

    /// Decodes the file once at full resolution, gates it, and recognizes it if it passes (or if `force`).
    /// - Throws: `RecognitionError` for invalid options (before decoding), `ImagingError`
    ///   for unreadable files, and whatever the recognizer throws.
    public func recognize(contentsOf path: String, options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try await recognize(.file(path: path), options: options, force: force)
    }

    /// The same for an encoded image in memory (JPEG, PNG, TIFF, WebP, HEIF or AVIF bytes, as read from a
    /// file or received over the network).
    public func recognize(encoded bytes: [UInt8], options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try await recognize(.encoded(bytes, name: "-"), options: options, force: force)
    }

    /// Gates and recognizes pixels the caller already decoded.
    ///
    /// The file's declared resolution, if any, becomes `options.sourceResolution` unless the
    /// caller set one; the gate's measured text layout becomes `options.textLayout`.
    public func recognize(_ image: DecodedImage, options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try await recognize(.decoded(image, name: "-"), options: options, force: force)
    }

    /// Gates and recognizes the selected pages of a file (a PDF, a multi-page TIFF), one
    /// outcome per page read, in page order: each page decoded, gated and recognized before
    /// the next is decoded. Pages follow `Assessor.assessPages(_:pages:_:)`: a file of one
    /// page gives one outcome without `page`; past `DecodeLimits.maxPages` one failure stands
    /// for the pages not read. Every error becomes a coded failure.
    public func recognizePages(
        contentsOf path: String, pages: PageSelection, options: RecognitionOptions = RecognitionOptions(), force: Bool = false
    ) async -> [RecognitionOutcome] {
        await recognizePages(.file(path: path), name: path, pages: pages, options: options, force: force, document: nil)
    }

    /// Reads the selected pages of a file as documents: each page decoded, gated, and when it
    /// passes (or `force`), recognized and structured by `analyzer` (`GatedRecognition.document`).
    /// With `previewLongSide` each outcome keeps a reduced copy of its page
    /// (`GatedRecognition.preview`), to show it in a report; a file of many pages holds only those.
    public func readDocumentPages(
        contentsOf path: String, pages: PageSelection, options: RecognitionOptions = RecognitionOptions(), force: Bool = false,
        analyzer: DocumentAnalyzer = DocumentAnalyzer(), previewLongSide: Int? = nil
    ) async -> [RecognitionOutcome] {
        await recognizePages(.file(path: path), name: path, pages: pages, options: options, force: force, document: analyzer, previewLongSide: previewLongSide)
    }

    /// The same for a file's bytes received some other way (a request's body), named `name` in
    /// the outcomes.
    public func readDocumentPages(
        encoded bytes: [UInt8], name: String, pages: PageSelection, options: RecognitionOptions = RecognitionOptions(), force: Bool = false,
        analyzer: DocumentAnalyzer = DocumentAnalyzer()
    ) async -> [RecognitionOutcome] {
        await recognizePages(.encoded(bytes, name: name), name: name, pages: pages, options: options, force: force, document: analyzer)
    }

    /// Decodes the file once at full resolution, gates it, and reads it as a document if it passes (or if `force`).
    public func readDocument(
        contentsOf path: String, options: RecognitionOptions = RecognitionOptions(), force: Bool = false, analyzer: DocumentAnalyzer = DocumentAnalyzer()
    ) async throws -> GatedRecognition {
        try await recognize(.file(path: path), options: options, force: force, document: analyzer)
    }

    /// A document is read whole: it may be seen straight on first, and its cells are read with
    /// their own regions of interest.
    static func checkWholePage(_ options: RecognitionOptions) throws(RecognitionError) {
        guard options.regionOfInterest == .full else {
            throw RecognitionError(.unsupportedOption, "regionOfInterest: a page read as a document is read whole")
        }
    }

    private func recognizePages(
        _ input: Assessor.Input, name path: String, pages: PageSelection, options: RecognitionOptions, force: Bool, document: DocumentAnalyzer?,
        previewLongSide: Int? = nil
    ) async -> [RecognitionOutcome] {
        do {
            try options.validate()
            if document != nil { try Self.checkWholePage(options) }
        } catch {
            return [RecognitionOutcome(path: path, result: .failed(error))]
        }
        let assessor = Assessor(configuration)
        var outcomes: [RecognitionOutcome] = []
        var cursor = PageCursor(pages, limit: assessor.maxPages, path: path)
        while let page = cursor.page {
            var assessed = assessor.assessKeepingPixels(input, page: page)
            cursor.took(&assessed.assessment)
            var outcome: RecognitionOutcome
            do {
                outcome = RecognitionOutcome(
                    path: path, result: .recognized(try await recognizeKeepingPreview(assessed, options: options, force: force, document: document, previewLongSide: previewLongSide)))
            } catch {
                outcome = RecognitionOutcome(path: path, result: .failed(RecognitionOutcome.coded(error)))
            }
            if let page = assessed.assessment.page { (outcome.page, outcome.pageCount) = (page, cursor.count) }
            outcomes.append(outcome)
        }
        if let notRead = cursor.notRead, let error = notRead.error {
            var last = RecognitionOutcome(path: path, result: .failed(error))
            (last.page, last.pageCount) = (notRead.page, cursor.count)
            outcomes.append(last)
        }
        return outcomes
    }

    private func recognize(_ input: Assessor.Input, options: RecognitionOptions, force: Bool, document: DocumentAnalyzer? = nil) async throws -> GatedRecognition {
        try options.validate()
        if document != nil { try Self.checkWholePage(options) }
        return try await recognize(Assessor(configuration).assessKeepingPixels(input), options: options, force: force, document: document)
    }

    /// Recognizes an assessed image's pixels when it passed (or when forced).
    private func recognizeKeepingPreview(
        _ assessed: Assessor.AssessedPixels, options: RecognitionOptions, force: Bool, document analyzer: DocumentAnalyzer?, previewLongSide: Int?
    ) async throws -> GatedRecognition {
        var recognition = try await recognize(assessed, options: options, force: force, document: analyzer)
        if let previewLongSide, let luma = assessed.luma, luma.width > 0, luma.height > 0 {
            recognition.preview = AreaResample.resize(luma, to: AreaResample.size(fitting: luma.size, longSide: max(1, previewLongSide)))
        }
        return recognition
    }

    private func recognize(
        _ assessed: Assessor.AssessedPixels, options: RecognitionOptions, force: Bool, document analyzer: DocumentAnalyzer?
    ) async throws -> GatedRecognition {
        let assessment = assessed.assessment
        guard case .assessed(var image) = assessment.outcome, let luma = assessed.luma else {
            throw assessment.error ?? ImagingError(.corrupt, "no pixels were decoded")
        }
        var timing = GatedRecognitionTiming(decode: assessed.decodeDuration, analysis: assessed.analysisDuration)
        let clock = ContinuousClock()
        // A document that will be read prepared (seen straight on, its rules painted out) is
        // judged as it will be read: the prediction made on the photo answers for the photo's
        // pixels, and a page photographed askew or with faint print reads far better prepared
        // (`Assessor.Configuration.judgePreparedPage`).
        var prepared: (page: PreparedPage, duration: Duration)?
        if image.decision.content == .document, let preparer = analyzer ?? (options.regionOfInterest == .full ? preparation : nil) {
            let start = clock.now
            let page = preparer.prepare(luma)
            prepared = (page, clock.now - start)
            let judging = clock.now
            if let decision = configuration.judgePreparedPage(page.cleaned) { image.decision = decision }
            timing.analysis += clock.now - judging
        }
        guard image.decision.pass || force else {
            return GatedRecognition(image: image, observations: nil, imageSize: luma.size, timing: timing)
        }
        var options = options
        if options.sourceResolution == nil, let density = assessed.pixelsPerInch {
            // Rounded as leptonica rounds a file's density for the `tesseract` program.
            options.sourceResolution = max(1, Int((density + 0.5).rounded(.down)))
        }
        if options.textLayout == nil, let text = image.report.text, text.detected {
            // The estimate was made at decode resolution, which is full here: the recognizer's pixels.
            options.textLayout = TextLayout(linePitch: text.linePitch, strokeWidth: text.strokeWidth)
        }
        guard let analyzer else {
            let start = clock.now
            let observations: [RecognizedTextObservation]
            if let prepared {
                // A photographed page reads far better seen straight on, without its rules.
                observations = prepared.page.sourceObservations(try await recognizer.recognize(prepared.page.cleaned, options: options))
            } else {
                observations = try await recognizer.recognize(luma, options: options)
            }
            timing.recognition = clock.now - start + (prepared?.duration ?? .zero)
            return GatedRecognition(image: image, observations: observations, imageSize: luma.size, timing: timing)
        }
        // As a document: rules and barcodes painted out before the page is read, then each
        // cell and each line of text the page's reading left unread read on its own.
        var start = clock.now
        let page = prepared?.page ?? analyzer.prepare(luma)
        var structure = clock.now - start + (prepared?.duration ?? .zero)
        start = clock.now
        let observations = try await recognizer.recognize(page.cleaned, options: options)
        timing.recognition = clock.now - start
        start = clock.now
        // The ink the page's reading left unread, found once for its characters and lines.
        let unread = page.unreadInk(after: observations)
        var cellWords: [RecognizedWord] = []
        // Lone characters in a column (a table's row numbers) are read as cells are.
        for cell in page.cellsToRead(after: observations) + page.charactersToRead(in: unread) {
            var cellOptions = options
            cellOptions.regionOfInterest = cell.normalized(in: page.size)
            // A cell holds a block of text: Tesseract's layout analysis finds no line in a
            // cell holding a lone digit (a sign-up sheet's row number), which a block's reading reads.
            cellOptions.regionContent = .block
            // Light text on a dark ground the page's reading tried already: a cell or line
            // read alone is read as dark on light only (the same words, in less time).
            cellOptions.readsInvertedText = false
            // A cell the recognizer cannot read again keeps what the page's reading gave it.
            guard let lines = try? await recognizer.recognize(page.cleaned, options: cellOptions) else { continue }
            cellWords += lines.flatMap(\.words)
        }
        var lineWords: [[RecognizedWord]] = []
        let lineRegions = page.linesToRead(in: unread)
        // Lines read alone are read with their paper made white (a shadow across a line).
        let flattened = lineRegions.isEmpty ? page.cleaned : page.paperFlattened(lineRegions)
        for line in lineRegions {
            var lineOptions = options
            lineOptions.regionOfInterest = line.normalized(in: page.size)
            lineOptions.readsInvertedText = false
            lineWords.append((try? await recognizer.recognize(flattened, options: lineOptions))?.flatMap(\.words) ?? [])
        }
        let document = analyzer.assemble(
            page, observations: observations, cellWords: cellWords, lineWords: lineWords, lineRegions: lineRegions)
        structure += clock.now - start
        timing.structure = structure
        var recognition = GatedRecognition(image: image, observations: page.sourceObservations(observations), imageSize: luma.size, timing: timing)
        recognition.document = document
        return recognition
    }
}
