internal import _CImagingShims
import ImagingCore

/// A libjpeg-turbo decompressor, kept for the life of one `ImageDecoder` and
/// reused across images.
final class JPEGDecoder {
    private let handle: OpaquePointer

    init() throws(ImagingError) {
        guard let handle = iq_jpeg_create() else {
            throw ImagingError(.outOfMemory, "JPEG: cannot create a decompressor")
        }
        self.handle = handle
    }

    deinit { iq_jpeg_destroy(handle) }

    private var diagnostics: iq_diagnostics { iq_jpeg_diagnostics(handle).pointee }

    /// Decodes `data` into `workspace.stored8`: one channel when only luma is needed
    /// and the file is grayscale or YCbCr (libjpeg skips colour conversion), else RGB or CMYK.
    func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var header = iq_jpeg_header()
        var status = iq_jpeg_read_header(handle, base, data.count, Int32(options.limits.maxJPEGScans), deadline, &header)
        guard status == IQ_OK else { throw diagnostics.error("JPEG", status: status) }
        let stored = ImageSize(width: Int(header.width), height: Int(header.height))
        do {
            try options.limits.check(stored, format: "JPEG")
        } catch {
            iq_jpeg_abort(handle)
            throw error
        }
        let exif = header.exif.map { UnsafeRawBufferPointer(start: $0, count: header.exif_length) }
        let (orientation, orientationWarning) = EXIF.orientation(exif)
        let flashFired = EXIF.flashFired(exif)

        let colorSpace = Int(header.color_space)
        let isCMYK = colorSpace == IQ_JPEG_CMYK || colorSpace == IQ_JPEG_YCCK
        let lumaOnly = !options.wantsRGB && (colorSpace == IQ_JPEG_GRAY || colorSpace == IQ_JPEG_YCBCR || colorSpace == IQ_JPEG_RGB)
        let components: Int32 = isCMYK ? 4 : (lumaOnly || colorSpace == IQ_JPEG_GRAY ? 1 : 3)
        let denominator = options.scale.denominator(for: stored)

        var width: UInt32 = 0, height: UInt32 = 0
        status = iq_jpeg_start(handle, Int32(denominator), components, &width, &height)
        guard status == IQ_OK else { throw diagnostics.error("JPEG", status: status) }

        workspace.stored8.reshape(width: Int(width), height: Int(height), channels: Int(components))
        let stride = workspace.stored8.rowStride
        status = workspace.stored8.withUnsafeMutableBufferPointer { pixels in
            iq_jpeg_read_all(handle, pixels.baseAddress, stride, height)
        }
        let diagnostics = self.diagnostics
        guard status == IQ_OK else { throw diagnostics.error("JPEG", status: status) }

        var warnings = diagnostics.decodeWarnings("JPEG")
        if let orientationWarning { warnings.append(orientationWarning) }
        let model: ColorModel = isCMYK ? .cmyk(inverted: header.adobe_marker != 0) : (components == 1 ? .gray : .rgb)
        var result = StoredImage(
            depth: .eight, model: model, storedSize: stored, orientation: orientation,
            scaleDenominator: denominator, sourceBitDepth: Int(header.precision), pageCount: 1, warnings: warnings,
            resolution: ImageResolution(x: header.x_resolution, y: header.y_resolution))
        result.flashFired = flashFired
        return result
    }
}
