import ImagingCore

/// A rectangle in normalized coordinates (0…1) with a **lower-left** origin, as Apple
/// Vision reports `boundingBox`.
public struct NormalizedRect: Sendable, Equatable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole image.
    public static let full = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// Whether the rectangle lies within 0…1 on both axes and has no negative size.
    public var isValid: Bool {
        width >= 0 && height >= 0 && x >= 0 && y >= 0 && maxX <= 1 + 1e-9 && maxY <= 1 + 1e-9
    }

    public func contains(_ other: NormalizedRect, tolerance: Double = 1e-6) -> Bool {
        other.x >= x - tolerance && other.y >= y - tolerance && other.maxX <= maxX + tolerance && other.maxY <= maxY + tolerance
    }

    /// The pixel rectangle (top-left origin) this covers in an image of `size`.
    public func pixelRect(in size: ImageSize) -> PixelRect {
        let left = Int((x * Double(size.width)).rounded(.down))
        let right = Int((maxX * Double(size.width)).rounded(.up))
        let top = Int(((1 - maxY) * Double(size.height)).rounded(.down))
        let bottom = Int(((1 - y) * Double(size.height)).rounded(.up))
        return PixelRect(
            x: max(0, left), y: max(0, top), width: max(0, min(size.width, right) - max(0, left)),
            height: max(0, min(size.height, bottom) - max(0, top)))
    }
}

extension PixelRect {
    /// The same rectangle normalized with a lower-left origin.
    public func normalized(in size: ImageSize) -> NormalizedRect {
        NormalizedRect(
            x: Double(x) / Double(size.width), y: 1 - Double(y + height) / Double(size.height),
            width: Double(width) / Double(size.width), height: Double(height) / Double(size.height))
    }
}

/// One reading of a line or word, with a confidence in 0…1.
public struct RecognizedText: Sendable, Equatable {
    public var string: String
    public var confidence: Double

    public init(string: String, confidence: Double) {
        self.string = string
        self.confidence = confidence
    }
}

/// A recognized word with its box in both conventions.
public struct RecognizedWord: Sendable, Equatable {
    public var text: RecognizedText
    /// Pixel rectangle, top-left origin.
    public var pixelBox: PixelRect
    /// Normalized, lower-left origin.
    public var boundingBox: NormalizedRect
    /// The language the recognizer read the word in, as a BCP 47 tag (`en`, `zh-Hant`), or nil
    /// when it does not say. A recognizer given several languages may read each word in a
    /// different one; `TesseractLanguageNames.languageTag(forTesseractName:)` converts
    /// Tesseract's names.
    public var language: String?

    public init(text: RecognizedText, pixelBox: PixelRect, imageSize: ImageSize, language: String? = nil) {
        self.text = text
        self.pixelBox = pixelBox
        boundingBox = pixelBox.normalized(in: imageSize)
        self.language = language
    }
}

/// One recognized line of text, as Vision's `RecognizedTextObservation`, with its
/// words and its place in the page's paragraphs and blocks.
public struct RecognizedTextObservation: Sendable, Equatable {
    /// Readings, best first.
    public var candidates: [RecognizedText]
    /// Normalized, lower-left origin (Vision's convention).
    public var boundingBox: NormalizedRect
    /// Pixel rectangle, top-left origin (Google Vision's convention); `quadrilateral` gives its vertices.
    public var pixelBox: PixelRect
    public var words: [RecognizedWord]
    /// Zero-based indices of the block and paragraph the line belongs to.
    public var block: Int
    public var paragraph: Int

    public init(candidates: [RecognizedText], pixelBox: PixelRect, imageSize: ImageSize, words: [RecognizedWord], block: Int, paragraph: Int) {
        self.candidates = candidates.sorted { $0.confidence > $1.confidence }
        self.pixelBox = pixelBox
        boundingBox = pixelBox.normalized(in: imageSize)
        self.words = words
        self.block = block
        self.paragraph = paragraph
    }

    /// Up to `count` readings, best first (Vision's `topCandidates(_:)`).
    public func topCandidates(_ count: Int) -> [RecognizedText] {
        Array(candidates.prefix(max(0, count)))
    }

    /// The best reading's string, or "".
    public var text: String { candidates.first?.string ?? "" }

    /// The pixel box's corners clockwise from the top-left.
    public var quadrilateral: [PixelPoint] { pixelBox.quadrilateral }
}

/// Options of a recognition, modelled on Vision's `RecognizeTextRequest`.
///
/// A recognizer either honours each option or rejects it with
/// `RecognitionError.unsupportedOption`; none is ever silently ignored.
public struct RecognitionOptions: Sendable, Equatable {
    public enum Level: String, Sendable, CaseIterable {
        case fast, accurate
    }

    public var recognitionLevel: Level
    /// Languages to read, most likely first, as ISO 639 codes (`en`, `de`, `ru`) or BCP 47 tags (`en-US`).
    public var recognitionLanguages: [String]
    /// Whether a language model may correct readings to dictionary words.
    public var usesLanguageCorrection: Bool
    /// Words to favour beyond the language's dictionary.
    public var customWords: [String]
    /// Lines shorter than this fraction of the image height are not returned (0 = all).
    public var minimumTextHeightFraction: Double
    /// Where to read, normalized with a lower-left origin; results still use whole-image coordinates.
    public var regionOfInterest: NormalizedRect
    /// The pixel density of the image, in pixels per inch along its columns, as the source file
    /// declares it (`DecodedImage.orientedResolution`), or nil when it declares none.
    ///
    /// Unlike the other options this describes the pixels instead of asking for something, so a
    /// recognizer that has no use for it may leave it unused; each says in its documentation
    /// which it does. `GatedTextRecognizer` fills it in from the decoded file.
    public var sourceResolution: Int?
    /// The size of the text in the pixels handed over, as the caller measured it (the
    /// gate's text estimate), or nil when unmeasured. Like `sourceResolution` it describes
    /// the pixels: a recognizer may use it to choose its working resolution, and says in
    /// its documentation whether it does. `GatedTextRecognizer` fills it in.
    public var textLayout: TextLayout?
    /// What `regionOfInterest` holds, as the caller knows it, or nil for a page whose layout
    /// the recognizer finds. Like `sourceResolution` it describes the pixels: a recognizer
    /// may use it to skip its layout analysis, and says in its documentation whether it does.
    /// `GatedTextRecognizer` passes `.block` for a table's cell it reads alone (the lines it
    /// reads alone are read as pages: as `.line` they read fewer tables and cells right).
    public var regionContent: RegionContent?
    /// Whether the recognizer also tries lines it reads poorly as light text on a dark ground,
    /// or nil for what `recognitionLevel` does. `GatedTextRecognizer` passes false for the
    /// cells and lines it reads alone: the page's reading tried them both ways already.
    public var readsInvertedText: Bool?

    /// What a region of the image holds.
    public enum RegionContent: String, Sendable, Equatable {
        /// One block of text, one line or a few (a table's cell).
        case block
        /// One line of text.
        case line
    }

    public init(
        recognitionLevel: Level = .accurate, recognitionLanguages: [String] = ["en"], usesLanguageCorrection: Bool = true,
        customWords: [String] = [], minimumTextHeightFraction: Double = 0, regionOfInterest: NormalizedRect = .full,
        sourceResolution: Int? = nil, textLayout: TextLayout? = nil, regionContent: RegionContent? = nil
    ) {
        self.regionContent = regionContent
        self.recognitionLevel = recognitionLevel
        self.recognitionLanguages = recognitionLanguages
        self.usesLanguageCorrection = usesLanguageCorrection
        self.customWords = customWords
        self.minimumTextHeightFraction = minimumTextHeightFraction
        self.regionOfInterest = regionOfInterest
        self.sourceResolution = sourceResolution
        self.textLayout = textLayout
    }

    /// Checks the values every recognizer requires.
    /// - Throws: `RecognitionError` `.invalidOption` naming the option.
    public func validate() throws(RecognitionError) {
        guard regionOfInterest.isValid, regionOfInterest.width > 0, regionOfInterest.height > 0 else {
            throw RecognitionError(.invalidOption, "regionOfInterest \(regionOfInterest) is not a non-empty rectangle within 0…1")
        }
        guard (0...1).contains(minimumTextHeightFraction) else {
            throw RecognitionError(.invalidOption, "minimumTextHeightFraction \(minimumTextHeightFraction) is outside 0…1")
        }
        guard !recognitionLanguages.isEmpty else {
            throw RecognitionError(.invalidOption, "recognitionLanguages is empty")
        }
        if let sourceResolution, sourceResolution <= 0 {
            throw RecognitionError(.invalidOption, "sourceResolution \(sourceResolution) is not a positive number of pixels per inch")
        }
    }
}

/// How large text is in an image, in its pixels.
public struct TextLayout: Sendable, Equatable {
    /// Distance between text lines (0 when no line period was found).
    public var linePitch: Double
    /// Typical stroke width of the characters.
    public var strokeWidth: Double

    public init(linePitch: Double, strokeWidth: Double) {
        self.linePitch = linePitch
        self.strokeWidth = strokeWidth
    }
}

/// Why a recognition failed or was refused.
public typealias RecognitionError = KindedError<RecognitionErrorKind>

/// The classes of `RecognitionError`, each with its stable code.
public enum RecognitionErrorKind: String, ErrorKind {
    /// An option the recognizer cannot honour (it never ignores one silently).
    case unsupportedOption = "recognize.unsupportedOption"
    /// An option outside its valid range.
    case invalidOption = "recognize.invalidOption"
    /// The engine cannot start (missing language data, missing program).
    case engineUnavailable = "recognize.engineUnavailable"
    /// Recognition ran past its deadline.
    case deadlineExceeded = "recognize.deadlineExceeded"
    /// The engine failed on this image.
    case failed = "recognize.failed"
}

/// A text recognizer behind imgquality's gate.
///
/// Every implementation must:
/// 1. Take the already-decoded, oriented 8-bit luma and never read the file again.
/// 2. Honour every `RecognitionOptions` field or throw `.unsupportedOption` naming it,
///    before doing any work; call `options.validate()` and propagate its error.
///    (`sourceResolution`, `textLayout` and `regionContent` describe the pixels and may be
///    left unused: say so.)
/// 3. Return one observation per line, in reading order, with candidates best first and
///    confidences in 0…1; `boundingBox` within 0…1 (lower-left origin) and `pixelBox`
///    within the image (top-left origin); every word's box inside its line's box.
/// 4. Return only lines inside `regionOfInterest` (in whole-image coordinates) and at
///    least `minimumTextHeightFraction` of the image height tall.
/// 5. Be safe to call from several tasks at once.
///
/// `TextRecognizerConformance` checks these on any implementation; `FakeTextRecognizer`
/// is an in-memory implementation for tests of the gated flow.
public protocol TextRecognizer: Sendable {
    func recognize(_ image: PixelBuffer<UInt8>, options: RecognitionOptions) async throws -> [RecognizedTextObservation]
}

/// A recognizer whose layout analysis runs on its own: where it would find lines of text,
/// without reading them (for Tesseract a fraction of a recognition's cost). The quality gate
/// uses it to predict what the recognizer will read (`RecognizerLayoutProbe`).
public protocol TextLayoutAnalyzing: Sendable {
    /// The boxes of the text lines the recognizer's layout analysis finds in `image` (one
    /// channel of luma), in its pixels, with the languages and level of `options`.
    func textLines(in image: PixelBuffer<UInt8>, options: RecognitionOptions) throws -> [PixelRect]
}

/// Tesseract's names for languages, shared by the backends that drive Tesseract.
public enum TesseractLanguageNames {
    /// ISO 639-1 codes and the Tesseract traineddata names they map to.
    public static let byISOCode: [String: String] = [
        "en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "pt": "por", "nl": "nld", "ru": "rus",
        "uk": "ukr", "pl": "pol", "cs": "ces", "sv": "swe", "da": "dan", "no": "nor", "fi": "fin", "tr": "tur",
        "el": "ell", "ja": "jpn", "ko": "kor", "zh": "chi_sim", "ar": "ara", "he": "heb", "hi": "hin",
        "hu": "hun", "ro": "ron", "bg": "bul", "hr": "hrv", "sr": "srp", "sk": "slk", "sl": "slv", "lt": "lit",
        "lv": "lav", "et": "est", "ca": "cat", "vi": "vie", "th": "tha", "id": "ind", "fa": "fas", "bn": "ben",
    ]

    /// The Tesseract name for an ISO 639 code or BCP 47 tag (`en-US` → `eng`), or nil.
    public static func name(for language: String) -> String? {
        byISOCode[String(language.split(separator: "-").first ?? "").lowercased()]
    }
}
