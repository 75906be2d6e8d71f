import Foundation
import ImageCodecs
import ImagingCore

/// Decodes and scores one image at a time; one per worker thread.
final class ImageScorer {
    private let decoder: ImageDecoder

    init(options: DecodeOptions) {
        decoder = ImageDecoder(options: options)
    }

    func score(path: String) -> ScoreRecord {
        let clock = ContinuousClock()
        let start = clock.now
        let result: Result<ScoredImage, ImagingError>
        do {
            let image = try decoder.decode(contentsOf: path)
            result = .success(ScoredImage(image))
        } catch {
            result = .failure(error)
        }
        let elapsed = clock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return ScoreRecord(path: path, result: result, elapsedMs: milliseconds)
    }
}

/// What the record keeps of a decoded image.
struct ScoredImage: Sendable {
    var format: ImageFormat
    var size: ImageSize
    var pageCount: Int
    var warnings: [DecodeWarning]

    init(_ image: DecodedImage) {
        format = image.format
        size = image.orientedSize
        pageCount = image.pageCount
        warnings = image.warnings
    }
}

/// One input's outcome, printable in every output format.
struct ScoreRecord: Sendable {
    var path: String
    var result: Result<ScoredImage, ImagingError>
    var elapsedMs: Double

    var isFailure: Bool {
        if case .failure = result { return true }
        return false
    }

    /// The JSON Lines record of DESIGN.md.
    var json: JSONValue {
        switch result {
        case .failure(let error):
            return .object([
                ("path", .string(path)),
                ("error", .object([("code", .string(error.code)), ("message", .string(error.message))])),
            ])
        case .success(let image):
            var members: [(String, JSONValue)] = [
                ("path", .string(path)),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
            ]
            if image.pageCount > 1 { members.append(("pages", .int(image.pageCount))) }
            if !image.warnings.isEmpty {
                members.append((
                    "warnings",
                    .array(image.warnings.map { .object([("code", .string($0.code)), ("message", .string($0.message))]) })
                ))
            }
            members.append(("elapsedMs", .double((elapsedMs * 10).rounded() / 10)))
            return .object(members)
        }
    }

    /// Columns of the flat formats (csv, tsv, table).
    static let columns: [Column] = [
        Column(header: "status", path: "status", width: 24),
        Column(header: "format", path: "format", width: 7),
        Column(header: "width", path: "width", width: 7),
        Column(header: "height", path: "height", width: 7),
        Column(header: "elapsedMs", path: "elapsedMs", width: 10),
        Column(header: "path", path: "path", width: 40),
        Column(header: "message", path: "message"),
    ]

    /// The record flattened for the columns above: `status` is `ok`, the first warning's
    /// code, or the error's code; `message` says why.
    var flat: JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(path))]
        switch result {
        case .failure(let error):
            members += [("status", .string(error.code)), ("message", .string(error.message))]
        case .success(let image):
            members += [
                ("status", .string(image.warnings.first?.code ?? "ok")),
                ("format", .string(image.format.rawValue)),
                ("width", .int(image.size.width)),
                ("height", .int(image.size.height)),
                ("elapsedMs", .double((elapsedMs * 10).rounded() / 10)),
                ("message", .string(image.warnings.map(\.message).joined(separator: "; "))),
            ]
        }
        return .object(members)
    }
}
