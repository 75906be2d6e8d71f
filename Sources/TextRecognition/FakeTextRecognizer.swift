import ImagingCore
import Synchronization

/// An in-memory `TextRecognizer` for tests: it "reads" a fixed script of lines, whatever
/// the pixels, while honouring the region of interest and minimum text height like a
/// real backend, and counts its calls so tests can prove the gate kept an image away.
public final class FakeTextRecognizer: TextRecognizer {
    /// One scripted line: its text, pixel box (top-left origin), confidence and layout.
    public struct Line: Sendable {
        public var text: String
        public var box: PixelRect
        public var confidence: Double
        public var block: Int
        public var paragraph: Int

        public init(_ text: String, box: PixelRect, confidence: Double = 0.9, block: Int = 0, paragraph: Int = 0) {
            self.text = text
            self.box = box
            self.confidence = confidence
            self.block = block
            self.paragraph = paragraph
        }
    }

    public let lines: [Line]
    /// Option names this fake refuses with `.unsupportedOption` (to test rejection paths).
    public let unsupportedOptions: Set<String>
    /// Calls so far, and the options and image size of the latest.
    private let calls = Mutex<(count: Int, latest: RecognitionOptions?, size: ImageSize?)>((0, nil, nil))

    public init(lines: [Line], unsupportedOptions: Set<String> = []) {
        self.lines = lines
        self.unsupportedOptions = unsupportedOptions
    }

    /// How many times `recognize` ran.
    public var callCount: Int {
        calls.withLock { $0.count }
    }

    /// The options of the latest call that got past validation, or nil before the first.
    public var lastOptions: RecognitionOptions? {
        calls.withLock { $0.latest }
    }

    /// The size of the image of the latest call that got past validation, or nil before the first.
    public var lastImageSize: ImageSize? {
        calls.withLock { $0.size }
    }

    public func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> [RecognizedTextObservation] {
        try options.validate()
        let defaults = RecognitionOptions()
        let used: [(String, Bool)] = [
            ("recognitionLevel", options.recognitionLevel != defaults.recognitionLevel),
            ("recognitionLanguages", options.recognitionLanguages != defaults.recognitionLanguages),
            ("usesLanguageCorrection", options.usesLanguageCorrection != defaults.usesLanguageCorrection),
            ("customWords", !options.customWords.isEmpty),
        ]
        for (name, isUsed) in used where isUsed && unsupportedOptions.contains(name) {
            throw RecognitionError(.unsupportedOption, "the fake recognizer does not support \(name)")
        }
        calls.withLock {
            $0.count += 1
            $0.latest = options
            $0.size = image.size
        }
        let size = image.size
        let region = options.regionOfInterest.pixelRect(in: size)
        return lines.compactMap { line -> RecognizedTextObservation? in
            let box = line.box
            guard box.x >= region.x, box.y >= region.y, box.x + box.width <= region.x + region.width,
                box.y + box.height <= region.y + region.height
            else { return nil }
            guard Double(box.height) >= options.minimumTextHeightFraction * Double(size.height) else { return nil }
            // Words share the line's width in proportion to their length.
            let words = line.text.split(separator: " ").map(String.init)
            let letters = max(1, words.reduce(0) { $0 + $1.count })
            var x = box.x
            var recognized: [RecognizedWord] = []
            for word in words {
                let width = box.width * word.count / letters
                recognized.append(RecognizedWord(
                    text: RecognizedText(string: word, confidence: line.confidence),
                    pixelBox: PixelRect(x: x, y: box.y, width: width, height: box.height), imageSize: size))
                x += width
            }
            return RecognizedTextObservation(
                candidates: [RecognizedText(string: line.text, confidence: line.confidence)], pixelBox: box, imageSize: size,
                words: recognized, block: line.block, paragraph: line.paragraph)
        }
    }
}

extension FakeTextRecognizer: TextLayoutAnalyzing {
    /// The scripted lines' boxes that lie inside `image` (its layout "finds" what it would read).
    public func textLines(in image: PixelBuffer<UInt8>, options: RecognitionOptions) throws -> [PixelRect] {
        try options.validate()
        return lines.map(\.box).filter { $0.x >= 0 && $0.y >= 0 && $0.x + $0.width <= image.width && $0.y + $0.height <= image.height }
    }
}
