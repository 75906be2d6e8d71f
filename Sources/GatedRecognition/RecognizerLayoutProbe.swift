import ImagingCore
import QualityMetrics
import Synchronization
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
///
/// A recognizer that cannot start (language data it cannot load) fails every page alike: the
/// first failure is kept and given again, without starting the recognizer for each page.
public struct RecognizerLayoutProbe<Analyzer: TextLayoutAnalyzing>: TextLayoutProbe {
    public var analyzer: Analyzer
    /// The languages and level the layout is analysed with (those of the recognition to come).
    public var options: RecognitionOptions
    public var name: String
    private let failure = FirstFailure()

    public init(_ analyzer: Analyzer, options: RecognitionOptions, name: String) {
        self.analyzer = analyzer
        self.options = options
        self.name = name
    }

    public func textLines(in plane: PixelBuffer<UInt8>) throws -> [PixelRect] {
        if let kept = failure.message.withLock({ $0 }) { throw RememberedFailure(description: kept) }
        do {
            return try analyzer.textLines(in: plane, options: options)
        } catch {
            failure.message.withLock { $0 = $0 ?? "\(error)" }
            throw error
        }
    }
}

/// The first failure of a probe, shared by its copies.
private final class FirstFailure: Sendable {
    let message = Mutex<String?>(nil)
}

/// A probe's earlier failure, given again.
private struct RememberedFailure: Error, CustomStringConvertible {
    var description: String
}
