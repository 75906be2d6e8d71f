internal import CWebP
internal import _CImagingShims
import ImagingCore

/// WebP through libwebp (BSD-3-Clause) and its demuxer.
///
/// A still image (lossy, lossless, with or without alpha) is decoded incrementally, 64 KiB
/// of the file at a time, and the time limit is checked after each step and at the end (a
/// small file that expands to many pixels decodes in one step, and fails once it is done).
/// An animation gives its first frame as a viewer first shows it: the canvas after that
/// frame, through libwebp's animation decoder. The EXIF chunk's Orientation is applied as
/// for JPEG. The size is checked against the limits from the header before any pixel buffer
/// exists. WebP has no reduced-size decode that keeps the stored pixels, so it decodes at
/// full size.
enum WebPDecoder {
    /// How much of the file each incremental step takes.
    static let step = 1 << 16

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var features = WebPBitstreamFeatures()
        let header = WebPGetFeatures(base, data.count, &features)
        guard header == VP8_STATUS_OK else { throw error(header, "reading the header") }
        let stored = ImageSize(width: Int(features.width), height: Int(features.height))
        guard stored.width > 0, stored.height > 0 else {
            throw ImagingError(.invalidDimensions, "WebP: the header declares \(stored.width)×\(stored.height) pixels")
        }
        try options.limits.check(stored, format: "WebP")

        let exif = metadata(data)
        let (orientation, orientationWarning) = exif.withUnsafeBytes { bytes in
            EXIF.orientation(exif.isEmpty ? nil : bytes)
        }
        let flashFired = exif.withUnsafeBytes { exif.isEmpty ? false : EXIF.flashFired($0) }

        let hasAlpha = features.has_alpha != 0 || features.has_animation != 0
        if features.has_animation != 0 {
            try firstFrame(data, size: stored, deadline: deadline, workspace: &workspace)
        } else {
            try still(data, size: stored, alpha: hasAlpha, deadline: deadline, workspace: &workspace)
        }
        var result = StoredImage(
            depth: .eight, model: hasAlpha ? .rgba(premultiplied: false) : .rgb, storedSize: stored, orientation: orientation,
            scaleDenominator: 1, sourceBitDepth: 8, pageCount: 1, warnings: orientationWarning.map { [$0] } ?? [],
            resolution: nil)
        result.flashFired = flashFired
        return result
    }

    /// A still image into the workspace, `step` bytes at a time.
    private static func still(
        _ data: UnsafeRawBufferPointer, size: ImageSize, alpha: Bool, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) {
        var outcome: ImagingError?
        _ = workspace.fillStored(depth: .eight, size: size, channels: alpha ? 4 : 3) { pixels, stride in
            guard let pixels else {
                outcome = ImagingError(.outOfMemory, "WebP: no buffer for \(size.width)×\(size.height) pixels")
                return 1
            }
            guard let decoder = WebPINewRGB(alpha ? MODE_RGBA : MODE_RGB, pixels, stride * size.height, Int32(stride)) else {
                outcome = ImagingError(.outOfMemory, "WebP: the decoder could not be created")
                return 1
            }
            defer { WebPIDelete(decoder) }
            var offset = 0
            while offset < data.count {
                let count = min(step, data.count - offset)
                let status = WebPIAppend(decoder, data.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count)
                offset += count
                guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else {
                    outcome = error(status, "decoding")
                    return 1
                }
                if deadline != 0 && iq_monotonic_ns() > deadline {
                    outcome = ImagingError(.timeLimit, "WebP: the time limit passed while decoding")
                    return 1
                }
                if status == VP8_STATUS_OK { return 0 }
            }
            var rows: Int32 = 0
            _ = WebPIDecGetRGB(decoder, &rows, nil, nil, nil)
            outcome = ImagingError(.truncated, "WebP: the data ends after \(rows) of \(size.height) rows")
            return 1
        }
        if let outcome { throw outcome }
    }

    /// An animation's first frame on its canvas, as RGBA.
    private static func firstFrame(
        _ data: UnsafeRawBufferPointer, size: ImageSize, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImagingError(.unsupportedFeature, "WebP: this libwebp cannot decode animations")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var bytes = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        guard let decoder = WebPAnimDecoderNew(&bytes, &options) else {
            throw ImagingError(.corrupt, "WebP: the animation's frames cannot be read")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, Int(info.canvas_width) == size.width, Int(info.canvas_height) == size.height
        else {
            throw ImagingError(.corrupt, "WebP: the animation's canvas does not match its header")
        }
        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
            throw ImagingError(.corrupt, "WebP: the animation's first frame cannot be decoded")
        }
        if deadline != 0 && iq_monotonic_ns() > deadline {
            throw ImagingError(.timeLimit, "WebP: the time limit passed while decoding")
        }
        _ = workspace.fillStored(depth: .eight, size: size, channels: 4) { pixels, stride in
            for y in 0..<size.height {
                (pixels! + y * stride).update(from: canvas + y * size.width * 4, count: size.width * 4)
            }
            return 0
        }
    }

    /// The EXIF chunk's bytes (a TIFF structure; a leading "Exif\0\0" is dropped), or none.
    private static func metadata(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = WebPData(bytes: data.baseAddress!.assumingMemoryBound(to: UInt8.self), size: data.count)
        // A file the demuxer refuses has no metadata to read; its pixels still get their say.
        guard let demuxer = WebPDemux(&bytes) else { return [] }
        defer { WebPDemuxDelete(demuxer) }
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk) != 0 else { return [] }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        var exif = Array(UnsafeBufferPointer(start: chunk.chunk.bytes, count: chunk.chunk.size))
        if exif.starts(with: Array("Exif\0\0".utf8)) { exif.removeFirst(6) }
        return exif
    }

    /// A libwebp status as an error of imgquality's kinds.
    static func error(_ status: VP8StatusCode, _ doing: String) -> ImagingError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: ImagingError(.truncated, "WebP: the data ends while \(doing)")
        case VP8_STATUS_UNSUPPORTED_FEATURE: ImagingError(.unsupportedFeature, "WebP: a feature this libwebp does not decode, while \(doing)")
        case VP8_STATUS_OUT_OF_MEMORY: ImagingError(.outOfMemory, "WebP: out of memory while \(doing)")
        default: ImagingError(.corrupt, "WebP: invalid data while \(doing) (libwebp status \(status.rawValue))")
        }
    }
}
