import DocumentStructure
import Foundation
import GatedRecognition
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import TextRecognition

/// What became of one image, for the metrics.
enum ImageDecision: String, Sendable {
    case passed, rejected, failed

    /// An image the gate passed or rejected (`passed` is its decision), or one that failed (nil).
    init(passed: Bool?) {
        self = passed.map { $0 ? .passed : .rejected } ?? .failed
    }
}

/// The work behind the routes, without HTTP: each image decoded once, gated, and read as a
/// document when it passes, answered as Google Cloud Vision answers; and the score record.
struct VisionService<Recognizer: TextRecognizer>: Sendable {
    let gated: GatedTextRecognizer<Recognizer>
    let analyzer: DocumentAnalyzer
    /// The recognition options of a request without language hints.
    let options: RecognitionOptions
    /// `--no-gate`: every image is recognized, whatever the gate says (the gate is still reported).
    let recognizesRejected: Bool

    /// The response to one item of `images:annotate` (an `AnnotateImageResponse`), or, with
    /// `pages`, of `files:annotate` (an `AnnotateFileResponse`), and what became of its images.
    func annotate(_ item: AnnotateItem, file: Bool, deadline: ContinuousClock.Instant) async -> (response: JSONValue, decisions: [ImageDecision]) {
        let bytes: [UInt8]
        switch item.content {
        case .failure(let error): return (Self.error(error), [.failed])
        case .success(let content): bytes = content
        }
        guard ContinuousClock.now < deadline else {
            return (Self.error(ItemError(code: 4, message: "the request's deadline passed before this image was read")), [.failed])
        }
        var options = self.options
        if !item.languageHints.isEmpty { options.recognitionLanguages = item.languageHints }
        let languages = options.recognitionLanguages
        let recognizes = item.features.contains(.textDetection) || item.features.contains(.documentTextDetection)
        let selection = file ? Self.pages(item.pages) : .page(1)

        guard recognizes else {
            // IMAGE_QUALITY alone: the assessment, nothing recognized.
            let assessor = Assessor(gated.configuration)
            let assessments = assessor.assessPages(.encoded(bytes, name: "-"), pages: selection) { $0.assessment }
            let responses = assessments.map { assessment -> JSONValue in
                var members: [(String, JSONValue)] = []
                if let error = assessment.error { members.append(("error", Self.status(3, "\(error.code): \(error.message)"))) }
                members.append(("imageQuality", Self.quality(assessment)))
                if file, let page = assessment.page { members.append(("context", .object([("pageNumber", .int(page))]))) }
                return .object(members)
            }
            let decisions = assessments.map { ImageDecision(passed: $0.image?.decision.pass) }
            return (file ? Self.fileResponse(responses, mimeType: item.mimeType, totalPages: assessments.first?.image?.pageCount) : responses[0], decisions)
        }

        let outcomes = await gated.readDocumentPages(
            encoded: bytes, name: "-", pages: selection, options: options, force: recognizesRejected || !item.gate, analyzer: analyzer)
        let showsQuality = item.features.contains(.imageQuality)
        let responses = outcomes.map { outcome -> JSONValue in
            var response = GoogleVisionResponse.response(outcome, languages: languages, uri: false)
            if case .recognized(let recognition) = outcome.result, showsQuality || !recognition.decision.pass {
                response = Self.adding(("imageQuality", Self.quality(Assessment(path: "-", page: outcome.page, outcome: .assessed(recognition.image)))), to: response)
            }
            if !file { response = Self.removing("context", from: response) }
            return response
        }
        let decisions = outcomes.map { outcome -> ImageDecision in
            guard case .recognized(let recognition) = outcome.result else { return .failed }
            return ImageDecision(passed: recognition.decision.pass)
        }
        return (file ? Self.fileResponse(responses, mimeType: item.mimeType, totalPages: outcomes.first?.pageCount ?? 1) : responses[0], decisions)
    }

    /// The score record of one image's bytes, as `imgquality score` writes it, named `name`.
    func score(_ bytes: [UInt8], name: String) -> Assessment {
        Assessor(gated.configuration).assess(.encoded(bytes, name: name))
    }

    /// `files:annotate`'s pages: those asked for, else the first five, as Cloud Vision reads.
    static func pages(_ numbers: [Int]) -> PageSelection {
        var problem = ""
        let text = numbers.isEmpty ? "1-5" : numbers.map(String.init).joined(separator: ",")
        return PageSelection(parsing: text, problem: &problem) ?? .page(1)
    }

    static func fileResponse(_ pages: [JSONValue], mimeType: String?, totalPages: Int?) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let mimeType { members.append(("inputConfig", .object([("mimeType", .string(mimeType))]))) }
        members.append(("responses", .array(pages)))
        members.append(("totalPages", .int(totalPages ?? pages.count)))
        return .object(members)
    }

    /// The quality extension: the score record without its path (the image has none here).
    static func quality(_ assessment: Assessment) -> JSONValue {
        removing("path", from: assessment.record)
    }

    static func error(_ error: ItemError) -> JSONValue {
        .object([("error", status(error.code, error.message))])
    }

    /// A `google.rpc.Status`.
    static func status(_ code: Int, _ message: String) -> JSONValue {
        .object([("code", .int(code)), ("message", .string(message))])
    }

    static func adding(_ member: (String, JSONValue), to value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members + [member])
    }

    static func removing(_ name: String, from value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members.filter { $0.0 != name })
    }
}
