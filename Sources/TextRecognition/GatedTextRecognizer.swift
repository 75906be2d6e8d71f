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

    /// The recognized text, one line per observation, or nil when nothing was recognized.
    public var text: String? { observations.map { $0.map(\.text).joined(separator: "\n") } }
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
        try options.validate()
        var decodeOptions = QualityAnalyzer.decodeOptions(for: analyzer.detectors, base: DecodeOptions(limits: limits))
        decodeOptions.scale = .full  // recognition reads every pixel
        let decoder = ImageDecoder(options: decodeOptions)
        let image = try decoder.decode(contentsOf: path)
        return try await recognize(image, options: options, force: force)
    }

    /// Gates and recognizes pixels the caller already decoded.
    public func recognize(_ image: DecodedImage, options: RecognitionOptions = RecognitionOptions(), force: Bool = false) async throws -> GatedRecognition {
        try options.validate()
        let analysis = AnalysisImage(image)
        let report = analyzer.analyze(analysis)
        let decision = gate.decide(report)
        var luma = image.luma.eightBit
        if !image.isOriented && image.orientation != .up { luma = luma.applying(image.orientation) }
        guard decision.pass || force else {
            return GatedRecognition(report: report, decision: decision, observations: nil, imageSize: luma.size)
        }
        let observations = try await recognizer.recognize(luma, options: options)
        return GatedRecognition(report: report, decision: decision, observations: observations, imageSize: luma.size)
    }
}
