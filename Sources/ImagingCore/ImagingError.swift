/// An error that a script can branch on: a stable dotted `code` and a human `message`.
///
/// Codes are part of the record contract (`{"error":{"code":…,"message":…}}`):
/// once published they do not change meaning.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// A stable identifier such as `decode.truncated`.
    var code: String { get }
    /// What went wrong, where, with the evidence the detecting code had.
    var message: String { get }
}

extension CodedError {
    public var description: String { "\(code): \(message)" }
}

/// The classes of one error type, each with its stable dotted code as raw value.
public protocol ErrorKind: RawRepresentable, Sendable, Hashable, CaseIterable where RawValue == String {
    /// The kind a code this version does not know reads as; nil makes it a decoding error.
    static var fallback: Self? { get }
}

extension ErrorKind {
    public static var fallback: Self? { nil }
}

/// An error of one of `Kind`'s classes, with the message the detecting code wrote.
///
/// Each error domain is a specialisation: `ImagingError`, `RecognitionError`,
/// `ProfileError`; their codes are their kinds' raw values.
public struct KindedError<Kind: ErrorKind>: CodedError, Hashable {
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var code: String { kind.rawValue }
}

/// Why an input could not be read or decoded.
public typealias ImagingError = KindedError<ImagingErrorKind>

/// The classes of `ImagingError`, each with its stable code.
public enum ImagingErrorKind: String, ErrorKind {
    /// The path does not exist.
    case notFound = "input.notFound"
    /// The path names a directory where a file was expected.
    case isDirectory = "input.isDirectory"
    /// The file exists but cannot be read (permissions, I/O error).
    case unreadable = "input.unreadable"
    /// The file has no bytes.
    case empty = "input.empty"
    /// The file is larger than `DecodeLimits.maxFileBytes`.
    case fileTooLarge = "input.tooLarge"
    /// The bytes are not any image format imgquality recognises.
    case notAnImage = "decode.notAnImage"
    /// A recognised image format that imgquality does not decode (HEIF, WebP, GIF, …).
    case unsupportedFormat = "decode.unsupportedFormat"
    /// A supported format using a feature this build cannot decode (12-bit JPEG, float TIFF, …).
    case unsupportedFeature = "decode.unsupportedFeature"
    /// The data ends before the image does.
    case truncated = "decode.truncated"
    /// The data violates its format (bad Huffman code, CRC mismatch, broken IFD, …).
    case corrupt = "decode.corrupt"
    /// The header claims more pixels than `DecodeLimits.maxPixels` allows.
    case tooManyPixels = "decode.tooManyPixels"
    /// The header claims a zero or negative dimension.
    case invalidDimensions = "decode.invalidDimensions"
    /// An allocation failed or a library's memory limit was reached.
    case outOfMemory = "decode.outOfMemory"
    /// A structural limit was exceeded (too many progressive scans).
    case limitExceeded = "decode.limitExceeded"
    /// Reading and decoding took longer than `DecodeLimits.timeLimit`.
    case timeLimit = "decode.timeLimit"
    /// The requested page does not exist.
    case pageOutOfRange = "decode.pageOutOfRange"
}

/// A recoverable problem the decoder worked through; the pixels are still returned.
///
/// Warnings have the shape of errors (a kind with a stable code, and a message) but are
/// kept apart from failures so a report can show them; strict decoding
/// (`DecodeOptions.isStrict`) turns the data-integrity kinds into errors.
public typealias DecodeWarning = KindedError<DecodeWarningKind>

/// The classes of `DecodeWarning`, each with its stable code.
public enum DecodeWarningKind: String, ErrorKind {
    /// The data ended early and the decoder filled in the rest (libjpeg's "premature end of data").
    case truncated = "decode.truncated"
    /// Corrupt data was skipped or resynchronised (bad Huffman code, extraneous bytes, bad CRC).
    case corrupt = "decode.corrupt"
    /// Anything else a library chose to mention (unknown TIFF tags, odd markers).
    case other = "decode.warning"

    /// A warning this version does not know reads as `other`.
    public static var fallback: Self? { .other }
}

extension KindedError where Kind == DecodeWarningKind {
    /// Whether the pixels may differ from what the encoder wrote.
    public var affectsPixels: Bool { kind != .other }
}

/// The record's `{"code":…,"message":…}`, the shape both failures and warnings print as.
private enum CodedErrorKeys: String, CodingKey {
    case code, message
}

private func encodeCoded(code: String, message: String, to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodedErrorKeys.self)
    try container.encode(code, forKey: .code)
    try container.encode(message, forKey: .message)
}

/// The code and message, checked by `kind`, which throws for a code it does not know.
private func decodeCoded<Kind>(from decoder: any Decoder, kind: (String) -> Kind?) throws -> (Kind, String) {
    let container = try decoder.container(keyedBy: CodedErrorKeys.self)
    let code = try container.decode(String.self, forKey: .code)
    guard let found = kind(code) else {
        throw DecodingError.dataCorruptedError(forKey: .code, in: container, debugDescription: "unknown code \(code)")
    }
    return (found, try container.decode(String.self, forKey: .message))
}

extension KindedError: Codable {
    public func encode(to encoder: any Encoder) throws { try encodeCoded(code: code, message: message, to: encoder) }

    /// A code that is not one of `Kind`'s reads as `Kind.fallback`, or is a decoding error.
    public init(from decoder: any Decoder) throws {
        let (kind, message) = try decodeCoded(from: decoder) { Kind(rawValue: $0) ?? Kind.fallback }
        self.init(kind, message)
    }
}

