internal import _CImagingShims
import ImagingCore

/// TIFF through libtiff (4.5 or later) with per-handle error handlers: no global
/// state and no longjmp.
///
/// Unsigned 1/2/4/8/16-bit gray, RGB and palette images, striped or tiled, contiguous
/// or planar, with any compression libtiff was built with, are read as stored
/// ("direct"); anything else libtiff can convert (CMYK, YCbCr without JPEG,
/// old-style JPEG, LogLuv, …) goes through its 8-bit RGBA conversion.
enum TIFFDecoder {
    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let box = DiagnosticsBox()
        let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // No single libtiff allocation may exceed what the pixel limit could need.
        let maxAllocation = max(options.limits.maxPixels, 1 << 20) * 8
        guard let tiff = iq_tiff_open(base, data.count, maxAllocation, box.pointer) else {
            throw box.value.error("TIFF", status: box.value.failure)
        }
        defer { iq_tiff_close(tiff) }

        let pageCount = Int(iq_tiff_page_count(tiff))
        guard options.pageIndex >= 0, options.pageIndex < pageCount else {
            throw ImagingError(
                .pageOutOfRange, "TIFF: page \(options.pageIndex + 1) requested, the file has \(pageCount)")
        }
        var info = iq_tiff_info()
        var status = iq_tiff_select_page(tiff, Int32(options.pageIndex), &info)
        guard status == IQ_OK else { throw box.value.error("TIFF", status: status) }
        let stored = ImageSize(width: Int(info.width), height: Int(info.height))
        try options.limits.check(stored, format: "TIFF")
        // Strips and tiles are decoded into a buffer of their own declared size: a tile may
        // claim far more pixels than the image it belongs to.
        let block = ImageSize(width: Int(info.block_width), height: Int(info.block_length))
        if block.pixelCount.map({ $0 > options.limits.maxPixels }) ?? true {
            throw ImagingError(
                .tooManyPixels,
                "TIFF: a \(info.tiled != 0 ? "tile" : "strip") declares \(block.width)×\(block.height) pixels, above the limit of \(options.limits.maxPixels) (raise it with --max-pixels)"
            )
        }
        let orientation = Orientation(rawValue: Int(info.orientation)) ?? .up

        var depth = StoredImage.Depth.eight
        let model: ColorModel
        if info.direct != 0 {
            depth = info.bits_per_sample == 16 ? .sixteen : .eight
            status = workspace.fillStored(depth: depth, size: stored, channels: Int(info.samples_per_pixel)) {
                iq_tiff_read_samples(tiff, $0, $1, deadline)
            }
            guard status == IQ_OK else { throw box.value.error("TIFF", status: status) }
            if depth == .sixteen {
                model = normalize(&workspace.stored16, info: info, tiff: tiff)
            } else {
                model = normalize(&workspace.stored8, info: info, tiff: tiff)
            }
        } else {
            status = workspace.fillStored(depth: .eight, size: stored, channels: 4) { iq_tiff_read_rgba(tiff, $0, $1, deadline) }
            guard status == IQ_OK else { throw box.value.error("TIFF", status: status) }
            model = .rgba(premultiplied: true)
        }
        return StoredImage(
            depth: depth, model: model, storedSize: stored, orientation: orientation, scaleDenominator: 1,
            sourceBitDepth: Int(info.bits_per_sample), pageCount: pageCount, warnings: box.value.decodeWarnings("TIFF"),
            resolution: ImageResolution(x: info.x_resolution, y: info.y_resolution))
    }

    /// Turns stored samples into gray, gray+alpha, RGB or RGBA at full scale:
    /// low bit depths are scaled up, MinIsWhite is inverted, palettes are looked up,
    /// extra samples beyond colour and alpha are dropped.
    private static func normalize<S: FixedWidthInteger & UnsignedInteger & Sendable>(
        _ buffer: inout PixelBuffer<S>, info: iq_tiff_info, tiff: OpaquePointer
    ) -> ColorModel {
        let bits = Int(info.bits_per_sample)
        let photometric = Int(info.photometric)
        let hasAlpha = info.alpha != 0
        let premultiplied = info.alpha == 1

        if photometric == 3 {  // palette
            var red: UnsafePointer<UInt16>?, green: UnsafePointer<UInt16>?, blue: UnsafePointer<UInt16>?
            _ = iq_tiff_colormap(tiff, &red, &green, &blue)
            let entries = 1 << bits
            let eightBit = info.colormap_is_8bit != 0
            func scale(_ value: UInt16) -> S {
                if eightBit { return S(truncatingIfNeeded: value) }
                return S(truncatingIfNeeded: (UInt32(value) + 128) / 257)
            }
            var table: [(S, S, S)] = []
            for i in 0..<entries { table.append((scale(red![i]), scale(green![i]), scale(blue![i]))) }
            var rgb = PixelBuffer<S>(width: buffer.width, height: buffer.height, channels: 3)
            let count = buffer.width * buffer.height
            buffer.withUnsafeBufferPointer { indices in
                rgb.withUnsafeMutableBufferPointer { out in
                    for i in 0..<count {
                        let entry = table[Int(indices[i]) & (entries - 1)]
                        out[3 * i] = entry.0
                        out[3 * i + 1] = entry.1
                        out[3 * i + 2] = entry.2
                    }
                }
            }
            buffer = rgb
            return .rgb
        }

        let colour = photometric == 2 ? 3 : 1
        let keep = colour + (hasAlpha ? 1 : 0)
        if buffer.channels != keep {
            var compact = PixelBuffer<S>(width: buffer.width, height: buffer.height, channels: keep)
            let from = buffer.channels
            let count = buffer.width * buffer.height
            buffer.withUnsafeBufferPointer { source in
                compact.withUnsafeMutableBufferPointer { out in
                    for i in 0..<count {
                        for c in 0..<keep { out[i * keep + c] = source[i * from + c] }
                    }
                }
            }
            buffer = compact
        }

        let full = UInt64(S.max)
        let maximum = UInt64((1 << min(bits, 16)) - 1)
        let invert = photometric == 0  // MinIsWhite
        if bits < 8 || invert {
            let channels = buffer.channels
            buffer.withUnsafeMutableBufferPointer { samples in
                for i in 0..<samples.count {
                    if hasAlpha && i % channels == channels - 1 { continue }
                    var value = UInt64(samples[i])
                    if bits < 8 { value = value * full / maximum }
                    if invert { value = full - value }
                    samples[i] = S(truncatingIfNeeded: value)
                }
            }
        }
        if colour == 1 { return hasAlpha ? .grayAlpha(premultiplied: premultiplied) : .gray }
        return hasAlpha ? .rgba(premultiplied: premultiplied) : .rgb
    }
}
