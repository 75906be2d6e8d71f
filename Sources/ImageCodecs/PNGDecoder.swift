internal import _CImagingShims
import ImagingCore

/// PNG through libpng's progressive-free read API, wrapped by the C shim.
///
/// libpng's simplified API (`png_image_*`) is not used: its 16-bit output is
/// linear light and its grayscale conversion happens in linear space, so stored
/// sample values could not be kept. The shim keeps them: palette and low-bit gray
/// are expanded to 8 bits, 16-bit stays 16-bit, no gamma or ICC correction.
enum PNGDecoder {
    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let box = DiagnosticsBox()
        var header = iq_png_header()
        let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let png = iq_png_open(base, data.count, box.pointer, &header) else {
            throw box.value.error("PNG", status: box.value.failure)
        }
        defer { iq_png_close(png) }
        let stored = ImageSize(width: Int(header.width), height: Int(header.height))
        try options.limits.check(stored, format: "PNG")
        let exif = header.exif.map { UnsafeRawBufferPointer(start: $0, count: header.exif_length) }
        let (orientation, orientationWarning) = EXIF.orientation(exif)
        let flashFired = EXIF.flashFired(exif)

        let channels = Int(header.channels)
        let sixteen = header.sample_bits == 16
        let status = workspace.fillStored(depth: sixteen ? .sixteen : .eight, size: stored, channels: channels) {
            iq_png_read(png, $0, $1, deadline)
        }
        guard status == IQ_OK else { throw box.value.error("PNG", status: status) }

        let model: ColorModel
        switch channels {
        case 1: model = .gray
        case 2: model = .grayAlpha(premultiplied: false)
        case 3: model = .rgb
        default: model = .rgba(premultiplied: false)
        }
        var warnings = box.value.decodeWarnings("PNG")
        if let orientationWarning { warnings.append(orientationWarning) }
        var result = StoredImage(
            depth: sixteen ? .sixteen : .eight, model: model, storedSize: stored, orientation: orientation,
            scaleDenominator: 1, sourceBitDepth: Int(header.bit_depth), pageCount: 1, warnings: warnings,
            resolution: ImageResolution(x: header.x_resolution, y: header.y_resolution))
        result.flashFired = flashFired
        return result
    }
}
