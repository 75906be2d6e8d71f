import DocumentStructure
import Foundation
import ImageCodecs
import ImagingCore
@_exported import JSONSupport
import QualityGating
import TextRecognition

/// The response body of Google Cloud Vision's `images:annotate` for
/// `DOCUMENT_TEXT_DETECTION`, one image per body, so clients written for that API can
/// read imgquality's results; and of `files:annotate` for PDF and TIFF files, one file per
/// body with a response per page.
///
/// Shapes follow the API's `AnnotateImageResponse`: `textAnnotations` (the whole text
/// first, with its `locale`, then one entry per word, each with `boundingPoly.vertices` in
/// pixels) and `fullTextAnnotation` (`pages` → `blocks` → `paragraphs` → `words` → `symbols`,
/// with confidences). Every response has `context.uri`, the input as an absolute `file://`
/// URI, as Google names the file an image came from in batch responses.
///
/// Languages (`property.detectedLanguages` on pages, blocks, paragraphs and words, and the
/// whole text's `locale`) are BCP 47 tags. A word's language is the recognizer's when it
/// reports one, else the one language asked for; with several asked for and none reported
/// it is unknown and left out. A language's `confidence` is its share of the element's
/// characters. The locale is the page's most frequent language, else the first asked for.
///
/// The last symbol of each word carries `property.detectedBreak`: `SPACE` before the next
/// word of its line, `EOL_SURE_SPACE` at the end of a line that its paragraph continues,
/// `LINE_BREAK` at the end of a paragraph. Reading the symbols with a space for `SPACE` and a
/// newline for the other two gives back `fullTextAnnotation.text`, which is built that way
/// from the words. Symbols carry no boxes: the backend does not measure per-character boxes,
/// and the API marks every box optional. A rejected or failed image gets the per-image
/// `error` (a `google.rpc.Status`: code 9 FAILED_PRECONDITION for a gate rejection,
/// 3 INVALID_ARGUMENT for an unreadable image).
public enum GoogleVisionResponse {
    /// `{"responses": [one response]}`; `languages` are the languages recognition was asked for.
    public static func body(_ outcome: RecognitionOutcome, languages: [String]) -> JSONValue {
        .object([("responses", .array([response(outcome, languages: languages)]))])
    }

    /// Whether a file's outcomes print as `files:annotate` (`filesBody`): a PDF or TIFF, as
    /// Google's API takes those files, or any file of several pages.
    public static func isFile(_ outcomes: [RecognitionOutcome]) -> Bool {
        outcomes.contains { outcome in
            if outcome.page != nil { return true }
            if case .recognized(let recognition) = outcome.result { return [.pdf, .tiff].contains(recognition.image.format) }
            return false
        }
    }

    /// The response body of `files:annotate` for one file: `{"responses": [{"inputConfig":
    /// {"mimeType": …}, "responses": [one response per page read], "totalPages": n}]}`, each
    /// page's response with `context.pageNumber`, as Google's API answers for a PDF or TIFF.
    public static func filesBody(_ outcomes: [RecognitionOutcome], languages: [String]) -> JSONValue {
        let format = outcomes.lazy.compactMap { outcome -> ImageFormat? in
            if case .recognized(let recognition) = outcome.result { return recognition.image.format }
            return nil
        }.first
        let mimeType = format == .pdf ? "application/pdf" : format == .tiff ? "image/tiff" : format.map { "image/\($0.rawValue)" }
        let pages = outcomes.map { outcome in
            var page = outcome
            if page.page == nil { page.page = 1 }
            return response(page, languages: languages)
        }
        var file: [(String, JSONValue)] = []
        if let mimeType { file.append(("inputConfig", .object([("mimeType", .string(mimeType))]))) }
        file += [("responses", .array(pages)), ("totalPages", .int(outcomes.first?.pageCount ?? 1))]
        return .object([("responses", .array([.object(file)]))])
    }

    /// One image's `AnnotateImageResponse`. Its `context` names the file (`uri`, unless `uri`
    /// is false: bytes a client sent have no file) and the page of a file of several.
    public static func response(_ outcome: RecognitionOutcome, languages: [String], uri withURI: Bool = true) -> JSONValue {
        var where_: [(String, JSONValue)] = withURI ? [("uri", .string(uri(outcome.path)))] : []
        if let page = outcome.page { where_.append(("pageNumber", .int(page))) }
        let context: [(String, JSONValue)] = where_.isEmpty ? [] : [("context", .object(where_))]
        switch outcome.result {
        case .failed(let failure):
            return .object([("error", status(3, "\(failure.code): \(failure.message)"))] + context)
        case .recognized(let recognition):
            guard let lines = recognition.observations else {
                let reasons = recognition.decision.failures.map(\.message).joined(separator: "; ")
                return .object([("error", status(9, "rejected by the quality gate: \(reasons)"))] + context)
            }
            return .object(annotations(lines, imageSize: recognition.imageSize, languages: languages, document: recognition.document) + context)
        }
    }

    /// The input as an absolute `file://` URI, percent-encoded; a relative path is taken
    /// from the current directory. A name that is not UTF-8 has its own bytes encoded.
    public static func uri(_ path: String) -> String {
        let absolute = FileSystemPath.standardized(path)
        guard !FileSystemPath.isUTF8(absolute) else {
            return URL(fileURLWithPath: absolute, isDirectory: false).absoluteString
        }
        // `URL` takes text, so the bytes are encoded here.
        let encoded = FileSystemPath.bytes(absolute).split(separator: UInt8(ascii: "/")).map { segment in
            "/" + segment.map { byte in
                // `;` as `URL` leaves it in a path.
                byte < 0x80 && (CharacterSet.urlPathAllowed.contains(Unicode.Scalar(byte)) || byte == UInt8(ascii: ";"))
                    ? String(Unicode.Scalar(byte)) : String(format: "%%%02X", byte)
            }.joined()
        }
        return "file://" + encoded.joined()
    }

    /// `textAnnotations` and `fullTextAnnotation` of recognized lines. With the page's
    /// document, blocks lying in a table are TABLE blocks and each barcode is a BARCODE block.
    public static func annotations(
        _ lines: [RecognizedTextObservation], imageSize: ImageSize, languages: [String], document: DocumentObservation? = nil
    ) -> [(String, JSONValue)] {
        let lines = lines.map { line in
            var line = line
            line.words.removeAll { $0.text.string.isEmpty }
            return line
        }
        let languages = Languages(requested: languages)
        // The words of a line, one space apart: what the symbols' breaks spell.
        let text = lines.map { $0.words.isEmpty ? $0.text : $0.words.map(\.text.string).joined(separator: " ") }.joined(separator: "\n")
            + (lines.isEmpty ? "" : "\n")
        let allWords = lines.flatMap(\.words)
        let pageLanguages = languages.detected(allWords)
        var textAnnotations: [JSONValue] = []
        if !lines.isEmpty {
            let locale = pageLanguages.first?.tag ?? languages.requested.first ?? "und"
            textAnnotations.append(.object([
                ("locale", .string(locale)), ("description", .string(text)), ("boundingPoly", poly(union(lines.map(\.pixelBox)))),
            ]))
        }
        for word in allWords {
            textAnnotations.append(.object([("description", .string(word.text.string)), ("boundingPoly", poly(word.pixelBox))]))
        }
        let page: JSONValue = .object(
            property(pageLanguages) + [
                ("width", .int(imageSize.width)), ("height", .int(imageSize.height)),
                ("blocks", .array(blocks(lines, languages: languages, document: document))),
                ("confidence", JSONValue.rounded(mean(lines.map { $0.candidates.first?.confidence ?? 0 }))),
            ])
        return [
            ("textAnnotations", .array(textAnnotations)),
            ("fullTextAnnotation", .object([("pages", .array([page])), ("text", .string(text))])),
        ]
    }

    /// Blocks of paragraphs of words, from the lines' block and paragraph indices.
    static func blocks(_ lines: [RecognizedTextObservation], languages: Languages, document: DocumentObservation? = nil) -> [JSONValue] {
        let tables = document?.tables.map(\.box) ?? []
        let barcodes: [JSONValue] = (document?.barcodes ?? []).map { code in
            .object([("boundingBox", poly(code.box)), ("paragraphs", .array([])), ("blockType", .string("BARCODE")), ("confidence", .double(1))])
        }
        return runs(lines, by: \.block).map { blockLines in
            let box = union(blockLines.map(\.pixelBox))
            // A block at least half inside a table found on the page.
            let inTable = box.width * box.height > 0 && tables.contains { overlap($0, box) * 2 >= box.width * box.height }
            let paragraphs: [JSONValue] = runs(blockLines, by: \.paragraph).map { paragraphLines in
                .object(
                    property(languages.detected(paragraphLines.flatMap(\.words))) + [
                        ("boundingBox", poly(union(paragraphLines.map(\.pixelBox)))),
                        ("words", .array(words(paragraphLines, languages: languages))),
                        ("confidence", JSONValue.rounded(mean(paragraphLines.map { $0.candidates.first?.confidence ?? 0 }))),
                    ])
            }
            return .object(
                property(languages.detected(blockLines.flatMap(\.words))) + [
                    ("boundingBox", poly(union(blockLines.map(\.pixelBox)))), ("paragraphs", .array(paragraphs)),
                    ("blockType", .string(inTable ? "TABLE" : "TEXT")),
                    ("confidence", JSONValue.rounded(mean(blockLines.map { $0.candidates.first?.confidence ?? 0 }))),
                ])
        } + barcodes
    }

    /// The area two rectangles share.
    static func overlap(_ a: PixelRect, _ b: PixelRect) -> Int {
        let width = min(a.x + a.width, b.x + b.width) - max(a.x, b.x), height = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        return width > 0 && height > 0 ? width * height : 0
    }

    /// The words of one paragraph's lines, each ending in the break that follows it.
    static func words(_ paragraphLines: [RecognizedTextObservation], languages: Languages) -> [JSONValue] {
        let worded = paragraphLines.filter { !$0.words.isEmpty }
        var result: [JSONValue] = []
        for (lineIndex, line) in worded.enumerated() {
            for (wordIndex, word) in line.words.enumerated() {
                let lineEnd = wordIndex == line.words.count - 1
                let breakType = !lineEnd ? "SPACE" : lineIndex < worded.count - 1 ? "EOL_SURE_SPACE" : "LINE_BREAK"
                let confidence = JSONValue.rounded(word.text.confidence)
                let characters = Array(word.text.string)
                let symbols: [JSONValue] = characters.indices.map { index in
                    let last = index == characters.count - 1
                    let detectedBreak: [(String, JSONValue)] =
                        last ? [("property", .object([("detectedBreak", .object([("type", .string(breakType))]))]))] : []
                    return .object(detectedBreak + [("text", .string(String(characters[index]))), ("confidence", confidence)])
                }
                result.append(.object(
                    property(languages.detected([word])) + [
                        ("boundingBox", poly(word.pixelBox)), ("symbols", .array(symbols)), ("confidence", confidence),
                    ]))
            }
        }
        return result
    }

    /// `property.detectedLanguages`, or nothing when no language is known.
    static func property(_ detected: [(tag: String, share: Double)]) -> [(String, JSONValue)] {
        guard !detected.isEmpty else { return [] }
        let entries: [JSONValue] = detected.map { .object([("languageCode", .string($0.tag)), ("confidence", JSONValue.rounded($0.share))]) }
        return [("property", .object([("detectedLanguages", .array(entries))]))]
    }

    /// The languages of words: the recognizer's, else the one language asked for.
    struct Languages {
        /// The languages asked for as BCP 47 tags, without repeats, most likely first.
        var requested: [String]

        init(requested languages: [String]) {
            var seen = Set<String>()
            requested = languages.map(TesseractLanguageNames.languageTag(forRequested:)).filter { seen.insert($0).inserted }
        }

        func language(of word: RecognizedWord) -> String? {
            word.language ?? (requested.count == 1 ? requested[0] : nil)
        }

        /// Each known language with its share of the characters of `words`, largest first
        /// (ties in order of first appearance); shares add up to less than 1 when some words'
        /// languages are unknown.
        func detected(_ words: [RecognizedWord]) -> [(tag: String, share: Double)] {
            var counts: [(tag: String, characters: Int)] = []
            var total = 0
            for word in words {
                let characters = word.text.string.count
                total += characters
                guard let tag = language(of: word) else { continue }
                if let index = counts.firstIndex(where: { $0.tag == tag }) {
                    counts[index].characters += characters
                } else {
                    counts.append((tag, characters))
                }
            }
            guard total > 0 else { return [] }
            let ordered = counts.enumerated().sorted { ($0.element.characters, -$0.offset) > ($1.element.characters, -$1.offset) }
            return ordered.map { ($0.element.tag, Double($0.element.characters) / Double(total)) }
        }
    }

    /// Consecutive runs of lines sharing `key`, in order.
    static func runs(_ lines: [RecognizedTextObservation], by key: KeyPath<RecognizedTextObservation, Int>) -> [[RecognizedTextObservation]] {
        var result: [[RecognizedTextObservation]] = []
        for line in lines {
            if let last = result.last?.last, last[keyPath: key] == line[keyPath: key] {
                result[result.count - 1].append(line)
            } else {
                result.append([line])
            }
        }
        return result
    }

    static func poly(_ rect: PixelRect) -> JSONValue {
        .object([("vertices", .array(rect.quadrilateral.map { .object([("x", .int($0.x)), ("y", .int($0.y))]) }))])
    }

    static func union(_ rects: [PixelRect]) -> PixelRect {
        guard let first = rects.first else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        var left = first.x, top = first.y, right = first.x + first.width, bottom = first.y + first.height
        for r in rects.dropFirst() {
            left = min(left, r.x)
            top = min(top, r.y)
            right = max(right, r.x + r.width)
            bottom = max(bottom, r.y + r.height)
        }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    static func status(_ code: Int, _ message: String) -> JSONValue {
        .object([("code", .int(code)), ("message", .string(message))])
    }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
}
