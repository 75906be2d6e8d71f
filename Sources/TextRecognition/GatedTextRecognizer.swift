import ImageCodecs
import ImagingCore
import QualityGating
import QualityMetrics

/// The outcome of a gated recognition: the quality report and decision always; the
/// observations only when the gate passed (or recognition was forced).
public struct GatedRecognition: Sendable {
    public var report: QualityReport
    public var decision: GateDecision
    /// nil when the gate rejected the image and recognition was not forced.
    public var observations: [RecognizedTextObservation]?
    /// The oriented full-resolution size the boxes refer to.
    public var imageSize: ImageSize
    /// How long each step took.
    public var timing: GatedRecognitionTiming

    /// The recognized text, one line per observation, or nil when nothing was recognized.
    public var text: String? { observations.map { $0.map(\.text).joined(separator: "\n") } }
}

/// The time each step of one gated recognition took, measured with `ContinuousClock`.
public struct GatedRecognitionTiming: Sendable, Equatable {
    /// Reading and decoding the file; nil when the caller passed decoded pixels.
    public var decode: Duration?
    /// Quality analysis and the gate's decision.
    public var analysis: Duration
    /// The recognizer's call; nil when the gate rejected the image and recognition was not forced.
    public var recognition: Duration?

    public init(decode: Duration? = nil, analysis: Duration = .zero, recognition: Duration? = nil) {
        self.decode = decode
        self.analysis = analysis
        self.recognition = recognition
    }
}

/// Decode once, score, gate, and recognize only what will read well.
///
/// ```swift
/// let ocr = GatedTextRecognizer(recognizer: myRecognizer)
/// let result = try await ocr.recognize(contentsOf: "receipt.jpg")
/// if let text = result.text { print(text) } else { print("rejected:", result.decision.reasons) }
/// ```
public struct GatedTextRecognizer<Recognizer: TextRecognizer>: Sendable {
    public var recognizer: Recognizer
    public var analyzer: QualityAnalyzer
    public var gate: QualityGate
    public var limits: DecodeLimits

    public init(recognizer: Recognizer, analyzer: QualityAnalyzer = QualityAnalyzer(), gate: QualityGate = QualityGate(), limits: DecodeLimits = DecodeLimits()) {
        self.recognizer = recognizer
        self.analyzer = analyzer
        self.gate = gate
        self.limits = limits
    }

    /// Decodes the file once at full resolution, gates it, and recognizes it if it passes (or if `force`).
    /// - Throws: `RecognitionError` for invalid options (before decoding), `ImagingError`
    ///   for unreadable files, and whatever the recognizer throws.
    public func recognize(contentsOf path: String, options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try await decodeAndRecognize(options: options, force: force) { (decoder: ImageDecoder) throws(ImagingError) in try decoder.decode(contentsOf: path) }
    }

    /// The same for an encoded image in memory (JPEG, PNG or TIFF bytes, as read from a
    /// file or received over the network).
    public func recognize(encoded bytes: [UInt8], options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try await decodeAndRecognize(options: options, force: force) { (decoder: ImageDecoder) throws(ImagingError) in try decoder.decode(bytes) }
    }

    private func decodeAndRecognize(
        options: RecognitionOptions, force: Bool, _ decode: (ImageDecoder) throws(ImagingError) -> DecodedImage
    ) async throws -> GatedRecognition {
        try options.validate()
        var decodeOptions = QualityAnalyzer.decodeOptions(for: analyzer.detectors, base: DecodeOptions(limits: limits))
        decodeOptions.scale = .full  // recognition reads every pixel
        let decoder = ImageDecoder(options: decodeOptions)
        let clock = ContinuousClock()
        let start = clock.now
        let image = try decode(decoder)
        let decoded = clock.now
        var result = try await recognize(image, options: options, force: force)
        result.timing.decode = decoded - start
        return result
    }

    /// Gates and recognizes pixels the caller already decoded.
    ///
    /// The file's declared resolution, if any, becomes `options.sourceResolution` unless the
    /// caller set one.
    public func recognize(_ image: DecodedImage, options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try options.validate()
        let clock = ContinuousClock()
        let start = clock.now
        let (luma, rgb) = AnalysisImage.orientedEightBit(image)
        let report = analyzer.analyze(AnalysisImage(luma: luma, rgb: rgb, fullSize: image.orientedSize))
        let decision = gate.decide(report)
        var timing = GatedRecognitionTiming(analysis: clock.now - start)
        guard decision.pass || force else {
            return GatedRecognition(report: report, decision: decision, observations: nil, imageSize: luma.size, timing: timing)
        }
        var options = options
        if options.sourceResolution == nil, let resolution = image.orientedResolution {
            // The vertical density of the pixels handed over (a reduced JPEG decode has fewer),
            // rounded as leptonica rounds a file's density for the `tesseract` program.
            let density = resolution.vertical / Double(image.scaleDenominator)
            options.sourceResolution = max(1, Int((density + 0.5).rounded(.down)))
        }
        let recognitionStart = clock.now
        let observations = try await recognizer.recognize(luma, options: options)
        timing.recognition = clock.now - recognitionStart
        return GatedRecognition(report: report, decision: decision, observations: observations, imageSize: luma.size, timing: timing)
    }
}
