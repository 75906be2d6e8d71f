import ImagingCore
import TextRecognition

/// The synthetic page of `Scenes.page` (600 × 800) and a script of its lines.
public enum Page {
    public static let width = 600, height = 800
    public static var pixels: PixelBuffer<UInt8> { Scenes.plane(Scenes.page(), width: width, height: height) }
    public static let words = ["quality", "gate", "reads", "only", "what", "will", "read", "well", "every", "line", "counts"]
    public static var lines: [FakeTextRecognizer.Line] {
        (0..<11).map { index in
            let text = "\(words[index]) \(words[(index + 3) % words.count])"
            return FakeTextRecognizer.Line(text, box: PixelRect(x: 40, y: 40 + 30 * index, width: 500, height: 14), confidence: 0.9, block: index / 6, paragraph: index / 3)
        }
    }
}
