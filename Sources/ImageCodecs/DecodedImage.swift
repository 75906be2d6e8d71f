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
    /// The pixel density the file declares for its full-resolution pixels, along its stored
    /// axes, or nil when it declares none or only an aspect ratio. Read from a JPEG's JFIF
    /// density, a PNG's pHYs chunk and a TIFF's XResolution/YResolution with ResolutionUnit;
    /// EXIF resolution tags are not read (leptonica, and so the `tesseract` program, reads
    /// none either).
    public var resolution: ImageResolution?
    /// Whether the file's EXIF says a flash fired (JPEG and PNG; false without EXIF).
    public var flashFired = false
    /// For a camera raw file, what the pixels are: its embedded full-size JPEG, or the sensor
    /// data developed at half size; nil for other formats.
    public var rawSource: RawSource?
    /// Time spent in each step of decoding.
    public var stages = DecodeStages()

    /// The full-resolution size as displayed (after orientation): what the score record reports.
    public var orientedSize: ImageSize { orientation.orientedSize(storedSize) }

    /// `resolution` along the displayed axes (swapped when orientation swaps width and height).
    public var orientedResolution: ImageResolution? {
        guard let resolution else { return nil }
        return orientation.swapsDimensions ? ImageResolution(horizontal: resolution.vertical, vertical: resolution.horizontal) : resolution
    }
}

/// What a camera raw file's pixels are.
public enum RawSource: String, Sendable, Codable, CaseIterable {
    /// The JPEG the camera embedded at full size.
    case preview
    /// The sensor data developed at half size (LibRaw).
    case developed
}

/// Time spent in each step of decoding one image.
public struct DecodeStages: Sendable, Equatable {
    /// Reading the file (zero for bytes in memory).
    public var read = Duration.zero
    /// The codec's own work (libjpeg, libpng, libtiff), its colour conversion included.
    public var codec = Duration.zero
    /// Conversion to luma and RGB, and rotation for display.
    public var conversion = Duration.zero

    public init() {}
}

/// A pixel density in pixels per inch along each axis.
public struct ImageResolution: Sendable, Equatable {
    /// Pixels per inch along a row.
    public var horizontal: Double
    /// Pixels per inch along a column.
    public var vertical: Double

    public init(horizontal: Double, vertical: Double) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// From a C header's pair, where 0 means "not declared".
    init?(x: Double, y: Double) {
        guard x > 0, y > 0, x.isFinite, y.isFinite else { return nil }
        self.init(horizontal: x, vertical: y)
    }
}
