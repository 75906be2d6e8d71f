import ImagingCore
import GatedRecognition
import QualityGating
import TextRecognition

/// The response body of Google Cloud Vision's `images:annotate` for
/// `DOCUMENT_TEXT_DETECTION`, one image per body, so clients written for that API can
/// read imgquality's results.
///
/// Shapes follow the API's `AnnotateImageResponse`: `textAnnotations` (the whole text
/// first, then one entry per word, each with `boundingPoly.vertices` in pixels) and
/// `fullTextAnnotation` (`pages` → `blocks` → `paragraphs` → `words` → `symbols`, with
/// confidences). Symbols carry their text only: the backend does not measure per-character
/// boxes, and the API marks every box optional. A rejected or failed image gets the
/// per-image `error` (a `google.rpc.Status`: code 9 FAILED_PRECONDITION for a gate
/// rejection, 3 INVALID_ARGUMENT for an unreadable image).
enum GoogleVisionResponse {
    static func body(_ outcome: OCROutcome) -> JSONValue {
        .object([("responses", .array([response(outcome)]))])
    }

    static func response(_ outcome: OCROutcome) -> JSONValue {
        switch outcome.result {
        case .failed(let failure):
            return .object([("error", status(3, "\(failure.code): \(failure.message)"))])
        case .recognized(let recognition):
            guard let lines = recognition.observations else {
                let reasons = recognition.decision.reasons.map(\.rawValue).joined(separator: ", ")
                return .object([("error", status(9, "rejected by the quality gate: \(reasons)"))])
            }
            let text = lines.map(\.text).joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
            var annotations: [JSONValue] = []
            if !lines.isEmpty {
                let all = lines.map(\.pixelBox)
                let left = all.map(\.x).min()!, top = all.map(\.y).min()!
                let right = all.map { $0.x + $0.width }.max()!, bottom = all.map { $0.y + $0.height }.max()!
                annotations.append(.object([
                    ("locale", .string("und")), ("description", .string(text)),
                    ("boundingPoly", poly(PixelRect(x: left, y: top, width: right - left, height: bottom - top))),
                ]))
            }
            for word in lines.flatMap(\.words) {
                annotations.append(.object([("description", .string(word.text.string)), ("boundingPoly", poly(word.pixelBox))]))
            }
            let page: JSONValue = .object([
                ("width", .int(recognition.imageSize.width)), ("height", .int(recognition.imageSize.height)),
                ("blocks", .array(blocks(lines))),
                ("confidence", rounded(mean(lines.map { $0.candidates.first?.confidence ?? 0 }))),
            ])
            return .object([
                ("textAnnotations", .array(annotations)),
                ("fullTextAnnotation", .object([("pages", .array([page])), ("text", .string(text))])),
            ])
        }
    }

    /// Blocks of paragraphs of words, from the lines' block and paragraph indices.
    static func blocks(_ lines: [RecognizedTextObservation]) -> [JSONValue] {
        runs(lines, by: \.block).map { blockLines in
            let paragraphs: [JSONValue] = runs(blockLines, by: \.paragraph).map { paragraphLines in
                let words: [JSONValue] = paragraphLines.flatMap(\.words).map { word in
                    .object([
                        ("boundingBox", poly(word.pixelBox)),
                        ("symbols", .array(word.text.string.map { .object([("text", .string(String($0))), ("confidence", rounded(word.text.confidence))]) })),
                        ("confidence", rounded(word.text.confidence)),
                    ])
                }
                return .object([
                    ("boundingBox", poly(union(paragraphLines.map(\.pixelBox)))), ("words", .array(words)),
                    ("confidence", rounded(mean(paragraphLines.map { $0.candidates.first?.confidence ?? 0 }))),
                ])
            }
            return .object([
                ("boundingBox", poly(union(blockLines.map(\.pixelBox)))), ("paragraphs", .array(paragraphs)),
                ("blockType", .string("TEXT")), ("confidence", rounded(mean(blockLines.map { $0.candidates.first?.confidence ?? 0 }))),
            ])
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
