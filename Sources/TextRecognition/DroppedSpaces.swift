import Foundation
import ImagingCore

/// Spaces a recognizer left out inside a word, put back from where its characters lie.
///
/// Tesseract's line model reads a number and its unit as one word ("16 kg" as `16kg`,
/// "34.2 cm" as `34.2cm`) and sometimes two names as one (`WernerGarland`), though the print
/// has a space between them: the language model favours the joined reading. The characters'
/// boxes still show the gap. A word is split where a digit is followed by a letter, or a
/// lower-case letter by a capital, across a gap of at least `gapFactor` times the line's
/// median character height. Only these two steps are split: between two digits or two
/// letters of the same case a gap that wide is common within one word (a "1" is narrow in
/// its box), and a word printed without a space ("16kg", "iPhone") has no gap that wide.
public enum DroppedSpaces {
    /// One character of a word as the recognizer read it, with its pixel box.
    public struct Character: Sendable, Equatable {
        public var text: String
        public var box: PixelRect

        public init(text: String, box: PixelRect) {
            self.text = text
            self.box = box
        }
    }

    /// A gap between two characters at least this many times the line's median character
    /// height is a space. Between Tesseract's character boxes on `Datasets/structure`'s clean
    /// renders (training split), such a step within a word spans at most 0.24 heights where the
    /// print has no space ("FedEx", a tracking number's "1Z") and 0.41 or more where it has one
    /// ("16 kg" read `16kg`); this is midway.
    public static let gapFactor = 0.33

    /// Whether a word's text has a step where a space may have been left out (a digit before
    /// a letter, a lower-case letter before a capital): only such words need their characters.
    public static func maySplit(_ text: String) -> Bool {
        zip(text, text.dropFirst()).contains { ($0.isNumber && $1.isLetter) || ($0.isLowercase && $1.isUppercase) }
    }

    /// The median height of the characters of a line's words (0 when it has none).
    public static func characterHeight(_ words: [[Character]]) -> Double {
        medianHeight(words.flatMap { $0.map(\.box.height) })
    }

    /// The median of a line's character heights (0 when it has none).
    public static func medianHeight(_ heights: [Int]) -> Double {
        let sorted = heights.sorted()
        guard !sorted.isEmpty else { return 0 }
        return Double(sorted[sorted.count / 2])
    }

    /// The word as one or more words: split where a space was left out between `characters`
    /// (the word's characters in reading order, their texts making up the word's text);
    /// the word itself when there is none, or when the characters do not spell the word.
    /// Each part keeps the word's confidence, language and vertical extent.
    public static func split(_ word: RecognizedWord, characters: [Character], characterHeight: Double, imageSize: ImageSize) -> [RecognizedWord] {
        guard characters.count >= 2, characterHeight > 0, characters.map(\.text).joined() == word.text.string else { return [word] }
        var starts: [Int] = [0]
        for index in 1..<characters.count {
            let (before, after) = (characters[index - 1], characters[index])
            guard let last = before.text.last, let first = after.text.first else { continue }
            let step = (last.isNumber && first.isLetter) || (last.isLowercase && first.isUppercase)
            let gap = Double(after.box.x - (before.box.x + before.box.width))
            if step && gap >= gapFactor * characterHeight { starts.append(index) }
        }
        guard starts.count > 1 else { return [word] }
        let ends = starts.dropFirst().map { $0 } + [characters.count]
        // Each part must be a plain word or number: a code mixing letters and digits
        // ("1Z6E1W…", "A320neo") is one token, whatever its characters' spacing.
        guard zip(starts, ends).allSatisfy({ isPlain(characters[$0..<$1].map(\.text).joined()) }) else { return [word] }
        return zip(starts, ends).enumerated().map { part, range in
            let pieces = characters[range.0..<range.1]
            let left = part == 0 ? word.pixelBox.x : pieces.first!.box.x
            let right = range.1 == characters.count ? word.pixelBox.x + word.pixelBox.width : pieces.map { $0.box.x + $0.box.width }.max()!
            let box = PixelRect(x: left, y: word.pixelBox.y, width: max(0, right - left), height: word.pixelBox.height)
            return RecognizedWord(
                text: RecognizedText(string: pieces.map(\.text).joined(), confidence: word.text.confidence), pixelBox: box, imageSize: imageSize,
                language: word.language)
        }
    }

    /// Letters only, or a number (digits with . , : / -), once punctuation at either end is set aside.
    static func isPlain(_ text: String) -> Bool {
        let core = text.trimmingCharacters(in: .punctuationCharacters)
        guard !core.isEmpty else { return false }
        return core.allSatisfy(\.isLetter) || (core.contains(where: \.isNumber) && core.allSatisfy { $0.isNumber || ".,:/-".contains($0) })
    }
}
