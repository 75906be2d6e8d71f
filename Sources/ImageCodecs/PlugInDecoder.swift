import ImagingCore
import Synchronization

/// A decoder for a format whose library the core libraries do not link, registered once when
/// a program starts (`ImageDecoder.register`). PDF is one: Poppler is GPL-licensed, so its
/// renderer lives in the `PDFPages` product, and a program that does not register it gets
/// `decode.unsupportedFormat` for PDF files.
public protocol PlugInDecoder: Sendable {
    /// The format it decodes.
    var format: ImageFormat { get }

    /// Decodes page `options.pageIndex` of `bytes`, checking `options.limits` before any
    /// buffer the size of the image exists, and `deadline` (the time limit's end) where it can.
    func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, deadline: Deadline) throws(ImagingError) -> PlugInImage
}

/// What a plug-in decoder returns: 8-bit grey or RGB pixels in display orientation.
public struct PlugInImage: Sendable {
    /// One channel (grey) or three (RGB, interleaved).
    public var pixels: PixelBuffer<UInt8>
    public var pageCount: Int
    public var resolution: ImageResolution?
    public var warnings: [DecodeWarning]

    public init(pixels: PixelBuffer<UInt8>, pageCount: Int, resolution: ImageResolution?, warnings: [DecodeWarning] = []) {
        precondition(pixels.channels == 1 || pixels.channels == 3, "grey or RGB")
        self.pixels = pixels
        self.pageCount = pageCount
        self.resolution = resolution
        self.warnings = warnings
    }
}

extension ImageDecoder {
    private static let plugIns = Mutex<[ImageFormat: any PlugInDecoder]>([:])

    /// Makes every `ImageDecoder` decode `decoder.format` with `decoder` (the last one
    /// registered for a format wins).
    public static func register(_ decoder: any PlugInDecoder) {
        plugIns.withLock { $0[decoder.format] = decoder }
    }

    static func plugIn(for format: ImageFormat) -> (any PlugInDecoder)? {
        plugIns.withLock { $0[format] }
    }

    /// A plug-in's image as the stored image of the workspace.
    static func decodePlugIn(
        _ format: ImageFormat, _ bytes: UnsafeRawBufferPointer, options: DecodeOptions, deadline: Deadline, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        guard let decoder = plugIn(for: format) else {
            throw ImagingError(.unsupportedFormat, "\(format.name) file: this program has no \(format.name) decoder registered (imgquality's is the PDFPages product)")
        }
        let image = try decoder.decode(bytes, options: options, deadline: deadline)
        workspace.stored8 = image.pixels
        return StoredImage(
            depth: .eight, model: image.pixels.channels == 1 ? .gray : .rgb, storedSize: image.pixels.size, orientation: .up,
            scaleDenominator: 1, sourceBitDepth: 8, pageCount: image.pageCount, warnings: image.warnings, resolution: image.resolution)
    }
}
