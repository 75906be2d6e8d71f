import ImageCodecs
import ImagingCore
import JSONSupport
import QualityGating
import QualityMetrics

/// The one assessment pipeline: decode once, build the analysis image, run the detectors
/// asked for, and gate.
///
/// The command line (`score`, `gate`, `ocr`, `calibrate`), the gated text recognizer and
/// the Vision-style request handler all assess through this type.
///
/// An `Assessor` keeps a decoder and its buffers between calls, so it is not thread-safe:
/// make one per thread or task from a shared `Assessor.Configuration`.
///
/// ```swift
/// let assessor = Assessor()
/// let assessment = assessor.assess(contentsOf: "receipt.jpg")
/// print(String(decoding: try JSONValue.encoding(assessment).serialized.utf8, as: UTF8.self))
/// ```
public final class Assessor {
    /// What to run and how to decode: shareable across threads.
    public struct Configuration: Sendable {
        public var analyzer: QualityAnalyzer
        public var gate: QualityGate
        /// Limits, page and strictness; the assessor chooses colour and scale itself.
        public var decodeOptions: DecodeOptions
        /// Decode every pixel (for a recognizer that reads them), instead of the smallest
        /// JPEG scale the detectors need.
        public var decodesFullResolution: Bool
        /// Time each stage (read, decode, conversion, each detector, gate) into `Assessment.timings`.
        public var measuresStages: Bool
        /// The recognizer's layout analysis, run on documents only, for the gate's prediction
        /// of their accuracy; nil predicts from the image's measures alone.
        public var layoutProbe: (any TextLayoutProbe)?
        /// Run `layoutProbe` on every document, even when the gate's reading predictor weighs
        /// nothing it measures, so that the decision records what it measured (the page
        /// corpus's records, which a fit of the predictor chooses among all measures from).
        public var probesEveryDocument = false

        public init(
            analyzer: QualityAnalyzer = QualityAnalyzer(), gate: QualityGate = QualityGate(),
            decodeOptions: DecodeOptions = DecodeOptions(), decodesFullResolution: Bool = false, measuresStages: Bool = false,
            layoutProbe: (any TextLayoutProbe)? = nil
        ) {
            self.layoutProbe = layoutProbe
            self.analyzer = analyzer
            self.gate = gate
            self.decodeOptions = decodeOptions
            self.decodesFullResolution = decodesFullResolution
            self.measuresStages = measuresStages
        }

        /// The detectors' report on an analysis image and the gate's decision on it.
        public func judge(_ image: AnalysisImage) -> (report: QualityReport, decision: GateDecision) {
            var timings: StageTimings?
            return judge(image, timings: &timings)
        }

        /// `judge(_:)`, adding each stage's time to `timings` when it is non-nil.
        ///
        /// With a layout probe, a document's analysis image (`AnalysisImage.luma`, 1 024 pixels
        /// on its longer side) goes to the probe before the gate decides, when the gate's
        /// reading predictor weighs what the probe measures (`ReadingPredictor.weighsProbe`)
        /// or `probesEveryDocument` is set; a photo never does.
        /// At that size Tesseract's layout analysis costs about a seventh of a recognition, and
        /// what it lays out predicts the reading as well as at 1 600 or 2 048 pixels (on the
        /// page corpus's test documents: Spearman 0.81 against 0.79 and 0.78).
        public func judge(_ image: AnalysisImage, timings: inout StageTimings?) -> (report: QualityReport, decision: GateDecision) {
            let report = analyzer.analyze(image, timings: &timings)
            var probed: LayoutProbeResult?
            if let layoutProbe, gate.predictor.weighsProbe || probesEveryDocument, let text = report.text, gate.judgedContent(report) == .document {
                let start = timings?.begin()
                probed = LayoutProbeResult.run(layoutProbe, on: image.luma, text: text, timed: start != nil)
                if let start { timings!.end("probe", start) }
            }
            guard timings != nil else { return (report, gate.decide(report, probe: probed)) }
            let decision = timings!.measure("gate") { gate.decide(report, probe: probed) }
            return (report, decision)
        }

        /// The gate's decision on a page as a recognizer will read it after preparation (seen
        /// straight on, its rules painted out, its faint print deepened: `DocumentAnalyzer.prepare`),
        /// judged as a document by the text measured on those pixels (`page`, at full
        /// resolution) and the layout probe when the predictor weighs it. The prediction then
        /// answers for what the recognizer reads: a page photographed askew reads straight
        /// once levelled, which its skew in the photo does not say. The decision is marked
        /// `GateDecision.preparedPage`. Nil when the text finder finds no page in the prepared
        /// page (`TextObservation.showsPage`): the photo's decision then stands.
        public func judgePreparedPage(_ page: PixelBuffer<UInt8>) -> GateDecision? {
            var analyzer = analyzer
            analyzer.enabled = analyzer.enabled.intersection([DetectorKind.text.rawValue])
            guard !analyzer.enabled.isEmpty, page.width > 0, page.height > 0 else { return nil }
            let image = AnalysisImage(luma: page, fullSize: page.size)
            let report = analyzer.analyze(image)
            // A prepared page on which the text finder finds no page (a few lines left where the
            // photo showed a page) says too little to predict from.
            guard let text = report.text, text.showsPage else { return nil }
            var gate = gate
            gate.policy.content = .document
            var probed: LayoutProbeResult?
            if let layoutProbe, gate.predictor.weighsProbe || probesEveryDocument {
                probed = LayoutProbeResult.run(layoutProbe, on: image.luma, text: text)
            }
            var decision = gate.decide(report, probe: probed)
            decision.preparedPage = true
            return decision
        }

        /// The decode options the detectors need on top of `decodeOptions`.
        public var chosenDecodeOptions: DecodeOptions {
            var options = analyzer.decodeOptions(base: decodeOptions)
            if decodesFullResolution { options.scale = .full }
            return options
        }
    }

    /// An input to assess.
    public enum Input: Sendable {
        /// A file, read whole.
        case file(path: String)
        /// Encoded bytes (JPEG, PNG, TIFF, WebP, HEIF or AVIF) named `name` in the assessment.
        case encoded([UInt8], name: String)
        /// Pixels the caller already decoded, named `name` in the assessment.
        case decoded(DecodedImage, name: String)

        var name: String {
            switch self {
            case .file(let path): path
            case .encoded(_, let name), .decoded(_, let name): name
            }
        }
    }

    /// An assessment with the pixels it was made from, for a recognizer to read next.
    public struct AssessedPixels: Sendable {
        public var assessment: Assessment
        /// The 8-bit luma in display orientation at decode resolution; nil when the input failed.
        public var luma: PixelBuffer<UInt8>?
        /// The interleaved 8-bit RGB in display orientation at decode resolution; nil for
        /// grey images and failed inputs.
        public var rgb: PixelBuffer<UInt8>?
        /// The declared vertical density of `luma`'s pixels, in pixels per inch, if the file declares one.
        public var pixelsPerInch: Double?
        /// Time spent reading and decoding (nil for decoded input), and analysing and gating.
        public var decodeDuration: Duration?
        public var analysisDuration: Duration
    }

    public let configuration: Configuration
    private let decoder: ImageDecoder

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        decoder = ImageDecoder(options: configuration.chosenDecodeOptions)
    }

    /// Assesses the file at `path`; a file that cannot be read or decoded gives an
    /// assessment holding its error.
    public func assess(contentsOf path: String) -> Assessment {
        assessKeepingPixels(.file(path: path)).assessment
    }

    /// Assesses an input.
    public func assess(_ input: Input) -> Assessment {
        assessKeepingPixels(input).assessment
    }

    /// Assesses an input and keeps the oriented 8-bit luma it analysed.
    public func assessKeepingPixels(_ input: Input) -> AssessedPixels {
        let clock = ContinuousClock()
        let start = clock.now
        let image: DecodedImage
        var decodeDuration: Duration?
        do throws(ImagingError) {
            image = try decode(input)
        } catch {
            let elapsed = clock.now - start
            return AssessedPixels(
                assessment: Assessment(path: input.name, outcome: .failed(error), elapsedMilliseconds: elapsed.milliseconds),
                luma: nil, rgb: nil, pixelsPerInch: nil, decodeDuration: elapsed, analysisDuration: .zero)
        }
        if case .decoded = input {} else { decodeDuration = clock.now - start }
        let analysisStart = clock.now
        var timings: StageTimings?
        if configuration.measuresStages {
            timings = StageTimings()
            if case .decoded = input {} else {
                timings!.record("read", image.stages.read)
                timings!.record("decode", image.stages.codec)
                timings!.record("convert", image.stages.conversion)
            }
        }
        let prepareStart = timings?.begin()
        let (luma, rgb) = AnalysisImage.orientedEightBit(image)
        let analysisImage = AnalysisImage(image, oriented: (luma, rgb))
        if let prepareStart { timings!.end("prepare", prepareStart) }
        let (report, decision) = configuration.judge(analysisImage, timings: &timings)
        let end = clock.now
        let assessed = AssessedImage(
            format: image.format, size: image.orientedSize, pageCount: image.pageCount, report: report, decision: decision,
            warnings: image.warnings, rawSource: image.rawSource)
        return AssessedPixels(
            assessment: Assessment(
                path: input.name, outcome: .assessed(assessed), elapsedMilliseconds: (end - start).milliseconds, timings: timings),
            luma: luma, rgb: rgb, pixelsPerInch: image.orientedResolution.map { $0.vertical / Double(image.scaleDenominator) },
            decodeDuration: decodeDuration, analysisDuration: end - analysisStart)
    }
}

extension Assessor {
    /// Assesses the selected pages of the file at `path`, one assessment per page read, in
    /// page order (see `assessPages(_:pages:_:)`).
    public func assessPages(contentsOf path: String, pages: PageSelection) -> [Assessment] {
        assessPages(.file(path: path), pages: pages) { $0.assessment }
    }

    /// Assesses the selected pages of an input, one result per page read, in page order, each
    /// page's assessment and pixels given to `transform` before the next page is decoded (so a
    /// long PDF's pages, about 35 MB each at 300 dpi, are not all held at once).
    ///
    /// The first page selected is decoded first, which says how many pages the file has; the
    /// other selected pages follow, and those past the last are skipped. A file of more than
    /// one page gives each result its `page`. After `DecodeLimits.maxPages` pages, one
    /// `decode.limitExceeded` result stands for the selected pages not read. When the first
    /// page selected cannot be read the file gives that one failure (a file that fails to
    /// decode does not say how many pages it has); a later page that fails gives its failure
    /// and the pages after it are still read. Pixels the caller decoded are one page.
    public func assessPages<Result>(_ input: Input, pages: PageSelection, _ transform: (AssessedPixels) -> Result) -> [Result] {
        if case .decoded = input { return [transform(assessKeepingPixels(input))] }
        var results: [Result] = []
        var cursor = PageCursor(pages, limit: maxPages, path: input.name)
        while let page = cursor.page {
            var result = assessKeepingPixels(input, page: page)
            cursor.took(&result.assessment)
            results.append(transform(result))
        }
        if let notRead = cursor.notRead {
            results.append(transform(AssessedPixels(
                assessment: notRead, luma: nil, rgb: nil, pixelsPerInch: nil, decodeDuration: nil, analysisDuration: .zero)))
        }
        return results
    }

    /// Assesses page `page` (from 1) of an input and keeps its pixels; the assessment has no
    /// `page` member (the caller knows whether the file has several).
    public func assessKeepingPixels(_ input: Input, page: Int) -> AssessedPixels {
        let chosen = decoder.options.pageIndex
        defer { decoder.options.pageIndex = chosen }
        decoder.options.pageIndex = page - 1
        return assessKeepingPixels(input)
    }

    /// The most pages of one file read (`DecodeLimits.maxPages`).
    public var maxPages: Int { decoder.options.limits.maxPages }

}

/// The walk over one file's selected pages, shared by `Assessor.assessPages` and the gated
/// recognizer: the page to read next (nil at the end), each assessment's page number, and the
/// failure that stands for the selected pages past the limit.
public struct PageCursor {
    /// The page to read next, from 1; nil once the walk is over.
    public private(set) var page: Int?
    /// The file's pages, once its first page read has said.
    public private(set) var count: Int?
    /// When the limit ended the walk, the `decode.limitExceeded` failure for the pages not read.
    public private(set) var notRead: Assessment?
    private let pages: PageSelection
    private let limit: Int
    private let path: String
    private var read = 0

    public init(_ pages: PageSelection, limit: Int, path: String) {
        self.pages = pages
        self.limit = limit
        self.path = path
        page = pages.first
    }

    /// Takes the assessment of `page`: the first one read says how many pages the file has
    /// (or, failing, ends the walk: a file that fails to decode does not say); in a file of
    /// several, the assessment gets its page number. Then moves to the next selected page.
    public mutating func took(_ assessment: inout Assessment) {
        guard let current = page else { return }
        if count == nil {
            guard let image = assessment.image else {
                page = nil
                return
            }
            count = image.pageCount
        }
        if count! > 1 { assessment.page = current }
        read += 1
        page = pages.page(after: current, count: count!)
        if let next = page, read == limit {
            let error = ImagingError(
                .limitExceeded, "page \(next) of \(count!) not read, nor those after it: \(limit) pages read, the limit (raise it with --max-pages)")
            notRead = Assessment(path: path, page: next, outcome: .failed(error), elapsedMilliseconds: 0)
            page = nil
        }
    }
}

extension Assessor {
    /// The decoded pixels of an input.
    /// - Throws: `ImagingError` when the input cannot be read or decoded.
    public func decode(_ input: Input) throws(ImagingError) -> DecodedImage {
        switch input {
        case .file(let path): try decoder.decode(contentsOf: path)
        case .encoded(let bytes, _): try decoder.decode(bytes)
        case .decoded(let decoded, _): decoded
        }
    }

    /// The analysis image of an input, for detectors run one by one (the request handler).
    /// - Throws: `ImagingError` when the input cannot be read or decoded.
    public func analysisImage(_ input: Input) throws(ImagingError) -> AnalysisImage {
        AnalysisImage(try decode(input))
    }
}
