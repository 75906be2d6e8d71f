import Foundation
import ImageCodecs
import ImagingCore
@_exported import JSONSupport
import QualityGating
import QualityMetrics

/// Everything imgquality says about one input: what it is, what each detector found,
/// the gate's decision, or why it could not be read. Its JSON encoding is the score
/// record of the README (`JSONValue.encoding(assessment)`); `imgquality schema` prints
/// its JSON Schema.
public struct Assessment: Sendable, Equatable {
    /// The input as the caller named it (a path, or a name given to bytes). A file name
    /// that is not UTF-8 holds its bytes as `FileSystemPath` says.
    public var path: String
    /// The page this record is about, from 1, when the file has more than one (or when the
    /// page asked for is not its first); nil for a single image.
    public var page: Int?
    public var outcome: Outcome
    /// Wall time from reading the input to the decision, in milliseconds.
    public var elapsedMilliseconds: Double?
    /// Each stage's time, when the assessor was asked to measure them (`score --timings`).
    public var timings: StageTimings?

    public enum Outcome: Sendable, Equatable {
        case assessed(AssessedImage)
        case failed(ImagingError)
    }

    public init(path: String, page: Int? = nil, outcome: Outcome, elapsedMilliseconds: Double? = nil, timings: StageTimings? = nil) {
        self.path = path
        self.page = page
        self.outcome = outcome
        self.elapsedMilliseconds = elapsedMilliseconds
        self.timings = timings
    }

    /// The assessed image, or nil when the input failed.
    public var image: AssessedImage? {
        if case .assessed(let image) = outcome { return image }
        return nil
    }

    /// The failure, or nil when the input was assessed.
    public var error: ImagingError? {
        if case .failed(let error) = outcome { return error }
        return nil
    }

    /// Whether the gate passed the image (false for failures).
    public var passed: Bool { image?.decision.pass ?? false }
}

/// A decoded and assessed image.
public struct AssessedImage: Sendable, Equatable {
    public var format: ImageFormat
    /// The full-resolution size after EXIF orientation.
    public var size: ImageSize
    /// Pages (TIFF directories) in the file; 1 for JPEG and PNG.
    public var pageCount: Int
    public var report: QualityReport
    public var decision: GateDecision
    /// Recoverable problems the decoder worked through.
    public var warnings: [DecodeWarning]
    /// For a camera raw file, whether its embedded JPEG or its developed sensor data was assessed.
    public var rawSource: RawSource?

    public init(
        format: ImageFormat, size: ImageSize, pageCount: Int, report: QualityReport, decision: GateDecision,
        warnings: [DecodeWarning], rawSource: RawSource? = nil
    ) {
        self.rawSource = rawSource
        self.format = format
        self.size = size
        self.pageCount = pageCount
        self.report = report
        self.decision = decision
        self.warnings = warnings
    }
}

// MARK: - The record

extension Assessment {
    /// A record's `pathBytes`: the exact name in Base64 when `path` is not UTF-8, else nil
    /// (the record's `path` is then the name itself).
    public static func pathBytes(_ path: String) -> String? {
        FileSystemPath.isUTF8(path) ? nil : Data(FileSystemPath.bytes(path)).base64EncodedString()
    }
}

extension Assessment: Codable {
    /// The record's top-level members; detectors are keyed by their descriptor names.
    private enum Key: String, CodingKey {
        case path, pathBytes, page, format, width, height, pages, raw, gate, warnings, elapsedMs, timings, error
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        // JSON text is UTF-8: a name that is not shows U+FFFD in `path`, and its exact bytes
        // in `pathBytes` (Base64), as ripgrep's JSON does.
        try container.encode(FileSystemPath.display(path), forKey: .path)
        if let bytes = Self.pathBytes(path) { try container.encode(bytes, forKey: .pathBytes) }
        if let page { try container.encode(page, forKey: .page) }
        switch outcome {
        case .failed(let error):
            try container.encode(error, forKey: .error)
        case .assessed(let image):
            try container.encode(image.format, forKey: .format)
            try container.encode(image.size.width, forKey: .width)
            try container.encode(image.size.height, forKey: .height)
            if image.pageCount > 1 { try container.encode(image.pageCount, forKey: .pages) }
            if let rawSource = image.rawSource { try container.encode(rawSource, forKey: .raw) }
            var detectors = encoder.container(keyedBy: FieldKey.self)
            try image.report.encodeObservations(into: &detectors)
            try container.encode(image.decision, forKey: .gate)
            if !image.warnings.isEmpty { try container.encode(image.warnings, forKey: .warnings) }
            if let elapsedMilliseconds {
                try container.encode((elapsedMilliseconds * 10).rounded() / 10, forKey: .elapsedMs)
            }
            if let timings {
                var stages = container.nestedContainer(keyedBy: FieldKey.self, forKey: .timings)
                for stage in timings.stages {
                    try stages.encode((stage.duration.milliseconds * 100).rounded() / 100, forKey: FieldKey(stage.name + "Ms"))
                }
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let encoded = try container.decodeIfPresent(String.self, forKey: .pathBytes) {
            guard let bytes = Data(base64Encoded: encoded) else {
                throw DecodingError.dataCorruptedError(forKey: .pathBytes, in: container, debugDescription: "pathBytes is not Base64")
            }
            path = FileSystemPath.string(bytes: bytes)
        } else {
            path = try container.decode(String.self, forKey: .path)
        }
        page = try container.decodeIfPresent(Int.self, forKey: .page)
        if let error = try container.decodeIfPresent(ImagingError.self, forKey: .error) {
            outcome = .failed(error)
            return
        }
        let size = ImageSize(width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height))
        let detectors = try decoder.container(keyedBy: FieldKey.self)
        outcome = .assessed(
            AssessedImage(
                format: try container.decode(ImageFormat.self, forKey: .format), size: size,
                pageCount: try container.decodeIfPresent(Int.self, forKey: .pages) ?? 1,
                report: try QualityReport(
                    fullSize: size, observationsIn: detectors,
                    registry: decoder.userInfo[.detectorRegistry] as? DetectorRegistry ?? .builtIn),
                decision: try container.decode(GateDecision.self, forKey: .gate),
                warnings: try container.decodeIfPresent([DecodeWarning].self, forKey: .warnings) ?? [],
                rawSource: try container.decodeIfPresent(RawSource.self, forKey: .raw)))
        elapsedMilliseconds = try container.decodeIfPresent(Double.self, forKey: .elapsedMs)
    }
}

extension QualityReport {
    /// Each detector's observation under its descriptor name, in record order.
    func encodeObservations(into container: inout KeyedEncodingContainer<FieldKey>) throws {
        for (name, observation) in observations {
            try container.encode(observation, forKey: FieldKey(name))
        }
    }

    /// The observations a record holds, for the detectors of `registry`; a detector it
    /// lacks was not run.
    init(fullSize: ImageSize, observationsIn container: KeyedDecodingContainer<FieldKey>, registry: DetectorRegistry) throws {
        self.init(fullSize: fullSize)
        for detector in registry.detectors {
            self[detector.name] = try detector.decodeObservation(from: container, forKey: FieldKey(detector.name))
        }
    }
}

extension CodingUserInfoKey {
    /// The `DetectorRegistry` a record is decoded with (the built-in one when absent).
    public static let detectorRegistry = CodingUserInfoKey(rawValue: "imgquality.detectorRegistry")!
}

extension Assessment {
    /// The score record: this assessment's JSON encoding, members in contract order.
    public var record: JSONValue {
        // The ordered encoder throws only for values whose own encoding throws; no member's does.
        (try? JSONValue.encoding(self)) ?? .object([("path", .string(path))])
    }
}

extension GateDecision {
    /// The record's `gate` member.
    public var record: JSONValue {
        // The ordered encoder throws only for values whose own encoding throws; no member's does.
        (try? JSONValue.encoding(self)) ?? .null
    }
}
