import ImagingCore
import QualityMetrics
import TextRecognition

/// A recognizer's layout analysis as the gate's layout probe (`TextLayoutProbe`): the
/// `Assessor` runs it on documents so the gate predicts their accuracy from where the
/// recognizer finds lines as well as from the image's measures.
///
/// ```swift
/// let tesseract = TesseractRecognizer()
/// let options = RecognitionOptions(recognitionLanguages: ["ru"])
/// var configuration = Assessor.Configuration()
/// configuration.layoutProbe = RecognizerLayoutProbe(tesseract, options: options, name: "tesseract layout (rus)")
/// ```
public struct RecognizerLayoutProbe<Analyzer: TextLayoutAnalyzing>: TextLayoutProbe {
    public var analyzer: Analyzer
    /// The languages and level the layout is analysed with (those of the recognition to come).
    public var options: RecognitionOptions
    public var name: String

    public init(_ analyzer: Analyzer, options: RecognitionOptions, name: String) {
        self.analyzer = analyzer
        self.options = options
        self.name = name
    }

    public func textLines(in plane: PixelBuffer<UInt8>) throws -> [PixelRect] {
        try analyzer.textLines(in: plane, options: options)
    }
}
