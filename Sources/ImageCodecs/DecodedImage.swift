import ImagingCore

/// Pixels decoded from one image file, with what the decoder learned about it.
public struct DecodedImage: Sendable {
    /// The format found from the file's magic bytes.
    public var format: ImageFormat
    /// One channel of BT.601 luma at the source's depth (8, or 16 where the source has 16 bits).
    public var luma: AnyPixelBuffer
    /// Interleaved RGB at the same depth, when `DecodeOptions.wantsRGB` was set.
    public var rgb: AnyPixelBuffer?
    /// The orientation found in EXIF or the TIFF Orientation tag (`.up` when none).
    public var orientation: Orientation
    /// Whether `luma`/`rgb` are already rotated for display.
    public var isOriented: Bool
    /// The full-resolution size as stored in the file.
    public var storedSize: ImageSize
    /// Each pixel covers `scaleDenominator` × `scaleDenominator` stored pixels (JPEG DCT scaling), 1 otherwise.
    public var scaleDenominator: Int
    /// Bits per sample in the file (1…16).
    public var sourceBitDepth: Int
    /// Pages in the file (TIFF directories; 1 for JPEG and PNG).
    public var pageCount: Int
    /// Recoverable problems the decoder worked through.
    public var warnings: [DecodeWarning]

    /// The full-resolution size as displayed (after orientation): what the score record reports.
    public var orientedSize: ImageSize { orientation.orientedSize(storedSize) }
}
