import ImagingCore
import JSONSupport
import QualityAssessment
import QualityGating
import TextRecognition

/// One image's gated recognition, ready to print.
public struct RecognitionOutcome: Sendable {
    public enum Result: Sendable {
        case recognized(GatedRecognition)
        case failed(any CodedError)
    }

    /// The input as the caller named it.
    public var path: String
    /// The page, from 1, and the file's pages, for a file of more than one page.
    public var page: Int?
    public var pageCount: Int?
    public var result: Result

    public init(path: String, result: Result) {
        self.path = path
        self.result = result
    }

    /// An error as a coded failure: its own code, or `recognition.failed`.
    static func coded(_ error: any Error) -> any CodedError {
        (error as? any CodedError) ?? RecognitionError(.failed, "\(error)")
    }

    /// The path for people: bytes that are not UTF-8 shown as U+FFFD.
    public var shownPath: String { FileSystemPath.display(path) }

    /// `path`, and `pathBytes` when the name is not UTF-8, as the score record has them.
    public var pathMembers: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("path", .string(shownPath))]
        if let bytes = Assessment.pathBytes(path) { members.append(("pathBytes", .string(bytes))) }
        if let page { members.append(("page", .int(page))) }
        return members
    }

    /// The heading of this input in `ocr --format text`: the path, and the page of a file of several.
    var heading: String {
        guard let page, let pageCount else { return "==> \(shownPath) <==" }
        return "==> \(shownPath) (page \(page) of \(pageCount)) <=="
    }

    /// The `ocr --format text` output of this input.
    public var text: String {
        switch result {
        case .failed(let error):
            return "\(heading)\n[error \(error.code): \(error.message)]\n\n"
        case .recognized(let recognition):
            let failures = recognition.decision.failures.map(\.message).joined(separator: "; ")
            guard let text = recognition.text else { return "\(heading)\n[rejected: \(failures)]\n\n" }
            // --force recognizes a rejected image too; the text still says it was rejected.
            let rejected = recognition.decision.pass ? "" : "[rejected: \(failures); recognized with --force]\n"
            return "\(heading)\n\(rejected)\(text)\n\n"
        }
    }

    /// The `ocr --format jsonl` record of this input.
    public var json: JSONValue {
        switch result {
        case .failed(let error):
            return .object(pathMembers + [("error", .object([("code", .string(error.code)), ("message", .string(error.message))]))])
        case .recognized(let recognition):
            let observations: JSONValue = recognition.observations.map { .array($0.map(Self.json)) } ?? .null
            return .object(pathMembers + [
                ("width", .int(recognition.imageSize.width)), ("height", .int(recognition.imageSize.height)),
                ("gate", recognition.image.decision.record),
                ("text", recognition.text.map(JSONValue.string) ?? .null),
                ("observations", observations),
                ("timing", Self.json(recognition.timing)),
            ])
        }
    }

    static func json(_ line: RecognizedTextObservation) -> JSONValue {
        let words: [JSONValue] = line.words.map { word in
            .object([("text", .string(word.text.string)), ("confidence", JSONValue.rounded(word.text.confidence)), ("pixelBox", json(word.pixelBox))])
        }
        var members: [(String, JSONValue)] = [("text", .string(line.text))]
        members.append(("confidence", JSONValue.rounded(line.candidates.first?.confidence ?? 0)))
        members.append(("boundingBox", json(line.boundingBox)))
        members.append(("pixelBox", json(line.pixelBox)))
        members.append(("block", .int(line.block)))
        members.append(("paragraph", .int(line.paragraph)))
        members.append(("words", .array(words)))
        return .object(members)
    }

    /// Milliseconds rounded to 0.1, as `elapsedMs` in the score record; a step that did not run is left out.
    static func json(_ timing: GatedRecognitionTiming) -> JSONValue {
        func milliseconds(_ duration: Duration) -> JSONValue {
            .double((duration.milliseconds * 10).rounded() / 10)
        }
        var members: [(String, JSONValue)] = []
        if let decode = timing.decode { members.append(("decodeMs", milliseconds(decode))) }
        members.append(("analysisMs", milliseconds(timing.analysis)))
        if let recognition = timing.recognition { members.append(("recognitionMs", milliseconds(recognition))) }
        if let structure = timing.structure { members.append(("structureMs", milliseconds(structure))) }
        return .object(members)
    }

    static func json(_ rect: NormalizedRect) -> JSONValue {
        .object([("x", JSONValue.rounded(rect.x)), ("y", JSONValue.rounded(rect.y)), ("width", JSONValue.rounded(rect.width)), ("height", JSONValue.rounded(rect.height))])
    }

    static func json(_ rect: PixelRect) -> JSONValue {
        .object([("x", .int(rect.x)), ("y", .int(rect.y)), ("width", .int(rect.width)), ("height", .int(rect.height))])
    }
}
