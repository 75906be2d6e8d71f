import ImageCodecs
import ImagingCore
import JSONSupport
import QualityGating
import QualityMetrics

/// The JSON Schema (draft 2020-12) of the score record, generated from the same types and
/// descriptors that write records; `imgquality schema` prints it.
public enum RecordSchema {
    /// Units whose values are bounded by their documented range.
    static let boundedUnits: Set<String> = ["probability", "fraction", "score"]

    /// The schema of one score record (an assessed image or a failed input) of the built-in detectors.
    public static var scoreRecord: JSONValue { scoreRecord(registry: .builtIn) }

    /// Definitions other record schemas share with the score record: `gate`, `coded`,
    /// `failed`, `page` and `pathBytes` (of the built-in detectors).
    public static var sharedDefinitions: [(String, JSONValue)] {
        [("gate", gate(.builtIn)), ("coded", coded(codes: nil)), ("failed", failed), ("page", page), ("pathBytes", pathBytes)]
    }

    /// The schema of one score record of the detectors of `registry`.
    public static func scoreRecord(registry: DetectorRegistry) -> JSONValue {
        let detectors = registry.descriptors.map { ($0.name, schema(of: $0)) }
        return .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("imgquality score record")),
            ("description", .string(
                "One JSON object per input, in input order, as `imgquality score` and `gate` print them: an assessed image, or an input that failed with an error code.")),
            ("oneOf", .array([.object([("$ref", .string("#/$defs/assessed"))]), .object([("$ref", .string("#/$defs/failed"))])])),
            ("$defs", .object([("assessed", assessed(registry)), ("failed", failed), ("gate", gate(registry)), ("coded", coded(codes: nil))] + detectors)),
        ])
    }

    static func assessed(_ registry: DetectorRegistry) -> JSONValue {
        var properties: [(String, JSONValue)] = [
            ("path", string("the input as named: a path, or the name given to bytes")),
            ("pathBytes", pathBytes),
            ("page", page),
            ("format", .object([("enum", .array(ImageFormat.allCases.map { .string($0.rawValue) })), ("description", .string("the format read from the magic bytes"))])),
            ("width", integer("width in pixels after EXIF orientation", minimum: 1)),
            ("height", integer("height in pixels after EXIF orientation", minimum: 1)),
            ("pages", integer("pages in the file (TIFF directories); present only when more than one", minimum: 2)),
            ("raw", .object([
                ("enum", .array(RawSource.allCases.map { .string($0.rawValue) })),
                ("description", .string("camera raw files only: preview when the camera's embedded full-size JPEG was assessed, developed when the sensor data was developed at half size")),
            ])),
        ]
        properties += registry.names.map { ($0, .object([("$ref", .string("#/$defs/\($0)"))])) }
        properties += [
            ("gate", .object([("$ref", .string("#/$defs/gate"))])),
            ("warnings", .object([
                ("type", .string("array")), ("description", .string("recoverable problems the decoder worked through; present only when there are some")),
                ("items", .object([("$ref", .string("#/$defs/coded"))])),
            ])),
            ("elapsedMs", .object([("type", .string("number")), ("minimum", .int(0)), ("description", .string("wall time for this input in milliseconds, rounded to 0.1"))])),
            ("timings", .object([
                ("type", .string("object")),
                ("description", .string("with --timings only: each stage's own time in milliseconds (rounded to 0.01), in the order the stages finished: readMs, decodeMs, convertMs, prepareMs, then the shared steps and detectors that ran, probeMs for a probed document, and gateMs")),
                ("additionalProperties", .object([("type", .string("number")), ("minimum", .int(0))])),
            ])),
        ]
        return .object([
            ("type", .string("object")),
            ("description", .string("An image that was decoded and assessed; a detector that was not run is absent.")),
            ("required", .array(["path", "format", "width", "height", "gate"].map(JSONValue.string))),
            ("properties", .object(properties)),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// `page`, of both kinds of record.
    static var page: JSONValue {
        integer("the page this record is about, from 1; present only for a file of more than one page, one record per page read (--pages)", minimum: 1)
    }

    /// `pathBytes`, of both kinds of record.
    static var pathBytes: JSONValue {
        .object([
            ("type", .string("string")), ("contentEncoding", .string("base64")),
            ("description", .string("the file name's exact bytes, Base64; present only when they are not UTF-8 (path then shows U+FFFD for each byte that is not)")),
        ])
    }

    static var failed: JSONValue {
        .object([
            ("type", .string("object")),
            ("description", .string("An input that could not be read or decoded.")),
            ("required", .array([.string("path"), .string("error")])),
            ("properties", .object([
                ("path", string("the input as named")),
                ("pathBytes", pathBytes),
                ("page", page),
                ("error", coded(codes: ImagingErrorKind.allCases.map(\.rawValue))),
            ])),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// The gate's decision, its reasons those of `registry`'s photo criteria and the gate's own.
    static func gate(_ registry: DetectorRegistry) -> JSONValue {
        let reasons = JSONValue.array(GateReason.all(registry: registry).map { .string($0.rawValue) })
        return .object([
            ("type", .string("object")),
            ("description", .string("The quality gate's decision for text recognition.")),
            ("required", .array(["pass", "score", "content", "reasons", "failures"].map(JSONValue.string))),
            ("properties", .object([
                ("pass", .object([("type", .string("boolean"))])),
                ("score", number("readiness for text recognition, 0–1 (1 = ready)", range: 0...1)),
                ("content", .object([
                    ("enum", .array(JudgedContent.allCases.map { .string($0.rawValue) })),
                    ("description", .string("what the image was judged as: a document by its text, a photo by its blur, smudge and exposure")),
                ])),
                ("reasons", .object([
                    ("type", .string("array")), ("description", .string("the criteria that failed, in the order the gate checks them")),
                    ("items", .object([("enum", reasons)])),
                ])),
                ("failures", .object([
                    ("type", .string("array")),
                    ("description", .string("each failed criterion with the value measured and the threshold it failed")),
                    ("items", .object([
                        ("type", .string("object")),
                        ("required", .array(["reason", "measured", "threshold", "message"].map(JSONValue.string))),
                        ("properties", .object([
                            ("reason", .object([("enum", reasons)])),
                            ("measured", .object([("type", .string("number"))])),
                            ("threshold", .object([("type", .string("number"))])),
                            ("message", string("the failure in words, with the value and the threshold, e.g. \"text illegible: legibility 9.6 < 12\"")),
                        ])),
                        ("additionalProperties", .bool(false)),
                    ])),
                ])),
                ("predictedAccuracy", number(
                    "documents only: the word accuracy (F1) the recognizer is predicted to reach on the image, which is its score", range: 0...1)),
                ("predictor", .object([
                    ("enum", .array(["image", "image+layout"].map(JSONValue.string))),
                    ("description", .string("documents only: what the prediction used, the image's measures alone or with the recognizer's layout probe")),
                ])),
                ("probe", .object([
                    ("type", .string("object")),
                    ("description", .string("documents with a layout probe only: what the recognizer's layout analysis found")),
                    ("required", .array(["probe", "lines", "characters", "laidOutShare"].map(JSONValue.string))),
                    ("properties", .object([
                        ("probe", string("the probe's name, e.g. \"tesseract layout (rus)\"")),
                        ("lines", .object([("type", .string("integer")), ("minimum", .int(0)), ("description", .string("text lines laid out"))])),
                        ("characters", number("characters in them, estimated as each line's width over half its height", range: 0...1e9)),
                        ("laidOutShare", number("those characters over the characters the text finder found (at most 1.5)", range: 0...1.5)),
                        ("milliseconds", number("with --timings only: the probe's wall time", range: 0...1e9)),
                        ("error", string("why the probe gave nothing (the prediction then used the image alone)")),
                    ])),
                    ("additionalProperties", .bool(false)),
                ])),
                ("preparedPage", .object([
                    ("enum", .array([.bool(true)])),
                    ("description", .string("ocr records only, present when true: the decision was made on the page as prepared for reading (seen straight on, rules painted out), judged by its text")),
                ])),
            ])),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// `{"code":…,"message":…}`, with the codes listed when they are known.
    static func coded(codes: [String]?) -> JSONValue {
        let code: JSONValue = codes.map { .object([("enum", .array($0.map(JSONValue.string)))]) } ?? string("a stable dotted code")
        return .object([
            ("type", .string("object")),
            ("required", .array([.string("code"), .string("message")])),
            ("properties", .object([("code", code), ("message", string("what went wrong, in words"))])),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// A detector's member: an object with every descriptor field; the diagnostic ones are
    /// present only with `--diagnostics`.
    static func schema(of descriptor: MetricDescriptor) -> JSONValue {
        let properties: [(String, JSONValue)] = descriptor.fields.map { field in
            let meaning = "\(field.meaning) (\(field.units))" + (field.isDiagnostic ? "; present only with --diagnostics" : "")
            switch field.kind {
            case .number:
                return (field.name, number(meaning, range: boundedUnits.contains(field.units) ? field.range : nil))
            case .flag:
                return (field.name, .object([("type", .string("boolean")), ("description", .string(field.meaning))]))
            case .label(let values):
                return (field.name, .object([("enum", .array(values.map(JSONValue.string))), ("description", .string(field.meaning))]))
            case .boxes:
                let coordinate = JSONValue.object([("type", .string("integer")), ("minimum", .int(0))])
                let box = JSONValue.object([
                    ("type", .string("object")),
                    ("required", .array(["x", "y", "width", "height"].map(JSONValue.string))),
                    ("properties", .object(["x", "y", "width", "height"].map { ($0, coordinate) })),
                    ("additionalProperties", .bool(false)),
                ])
                return (field.name, .object([("type", .string("array")), ("items", box), ("description", .string(meaning))]))
            }
        }
        return .object([
            ("type", .string("object")),
            ("description", .string("\(descriptor.meaning). \(descriptor.caveats)")),
            ("required", .array(descriptor.fields.filter { !$0.isDiagnostic }.map { .string($0.name) })),
            ("properties", .object(properties)),
            ("additionalProperties", .bool(false)),
        ])
    }

    static func string(_ description: String) -> JSONValue {
        .object([("type", .string("string")), ("description", .string(description))])
    }

    static func integer(_ description: String, minimum: Int) -> JSONValue {
        .object([("type", .string("integer")), ("minimum", .int(minimum)), ("description", .string(description))])
    }

    static func number(_ description: String, range: ClosedRange<Double>?) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("number"))]
        if let range { members += [("minimum", .double(range.lowerBound)), ("maximum", .double(range.upperBound))] }
        members.append(("description", .string(description)))
        return .object(members)
    }
}
