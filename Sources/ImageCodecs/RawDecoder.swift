internal import CRaw
internal import _CImagingShims
import ImagingCore

/// Camera raw files (DNG, CR2, CR3, NEF, ARW, ORF, RW2, RAF, …) through LibRaw (LGPL-2.1 or
/// CDDL-1.0, the thread-safe `libraw_r`).
///
/// A raw file holds the sensor's mosaic and, usually, a JPEG the camera made from it. When that
/// JPEG is the photo at full size (its long side at least 90% of the sensor image's), it is
/// what is scored: it is what the camera showed, and decoding it is cheap. Otherwise the
/// mosaic is developed at half size (LibRaw's half-size demosaic: each 2 × 2 block one pixel)
/// with the camera's white balance into 8-bit sRGB. The record says which (`raw`). The sensor
/// image's size is checked against the limits before anything is unpacked; LibRaw's progress
/// callback ends the development when the time limit passes.
enum RawDecoder {
    /// What a raw file gives.
    enum Outcome {
        /// The embedded full-size JPEG, to decode as a JPEG, turned by the raw file's orientation.
        case preview([UInt8], orientation: Orientation)
        /// The mosaic, developed at half size into the workspace (RGB, display orientation).
        case developed(StoredImage)
    }

    /// The share of the sensor image's long side a JPEG preview must reach to stand for it.
    static let fullSizeShare = 0.9

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> Outcome {
        // LibRaw 0.20 (Debian 12's) overruns a string buffer while normalising some Hasselblad
        // model names, and glibc's fortify check then ends the whole process: a file that names
        // that maker anywhere is refused before LibRaw reads it.
        if names(data, anyOf: ["hasselblad", "imacon"]) {
            throw ImagingError(.unsupportedFeature, "camera raw: Hasselblad and Imacon files are not read (LibRaw 0.20 overruns a buffer on some)")
        }
        guard let raw = libraw_init(0) else { throw ImagingError(.outOfMemory, "camera raw: LibRaw could not start") }
        defer { libraw_close(raw) }
        // LibRaw prints data errors on standard error unless given a handler; this one only
        // notes that the file ended early (offset -1), which makes an I/O error a truncation.
        var endedEarly = false
        libraw_set_dataerror_handler(raw, { context, _, offset in
            if offset < 0 { context!.assumingMemoryBound(to: Bool.self).pointee = true }
        }, &endedEarly)
        func failure(_ status: Int32, _ doing: String) -> ImagingError {
            if endedEarly && status == LIBRAW_IO_ERROR.rawValue {
                return ImagingError(.truncated, "camera raw: the file ends early (\(doing))")
            }
            return error(status, doing)
        }
        let opened = libraw_open_buffer(raw, UnsafeMutableRawPointer(mutating: data.baseAddress!), data.count)
        guard opened == LIBRAW_SUCCESS.rawValue else { throw failure(opened, "reading the file") }

        var width: Int32 = 0, height: Int32 = 0, flip: Int32 = 0
        iq_raw_sizes(raw, &width, &height, &flip)
        let sensor = ImageSize(width: Int(width), height: Int(height))
        guard sensor.width > 0, sensor.height > 0 else {
            throw ImagingError(.invalidDimensions, "camera raw: the file declares \(sensor.width)×\(sensor.height) pixels")
        }
        try options.limits.check(sensor, format: "camera raw")

        if libraw_unpack_thumb(raw) == LIBRAW_SUCCESS.rawValue {
            var isJPEG: Int32 = 0, thumbWidth: Int32 = 0, thumbHeight: Int32 = 0
            var bytes: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            iq_raw_thumbnail(raw, &isJPEG, &thumbWidth, &thumbHeight, &bytes, &length)
            let long = Double(max(thumbWidth, thumbHeight)), sensorLong = Double(max(sensor.width, sensor.height))
            if isJPEG != 0, let bytes, length > 0, long >= fullSizeShare * sensorLong {
                return .preview(Array(UnsafeBufferPointer(start: bytes, count: Int(length))), orientation: orientation(flip))
            }
        }

        // The development, with the time limit checked at each of LibRaw's stages.
        var clock = deadline
        libraw_set_progress_handler(raw, { context, _, _, _ in
            let deadline = context!.assumingMemoryBound(to: UInt64.self).pointee
            return deadline != 0 && iq_monotonic_ns() > deadline ? 1 : 0
        }, &clock)
        iq_raw_develop_settings(raw)
        let unpacked = libraw_unpack(raw)
        guard unpacked == LIBRAW_SUCCESS.rawValue else { throw failure(unpacked, "unpacking the sensor data") }
        let processed = libraw_dcraw_process(raw)
        guard processed == LIBRAW_SUCCESS.rawValue else { throw failure(processed, "developing the sensor data") }
        var status: Int32 = 0
        guard let image = libraw_dcraw_make_mem_image(raw, &status) else { throw failure(status, "making the developed image") }
        defer { libraw_dcraw_clear_mem(image) }
        let size = ImageSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        guard image.pointee.type == LIBRAW_IMAGE_BITMAP, image.pointee.colors == 3, image.pointee.bits == 8,
            Int(image.pointee.data_size) >= size.width * size.height * 3
        else { throw ImagingError(.corrupt, "camera raw: LibRaw developed an image of an unexpected kind") }
        try options.limits.check(size, format: "camera raw")
        let source = iq_raw_image_data(image)!
        _ = workspace.fillStored(depth: .eight, size: size, channels: 3) { pixels, stride in
            guard let pixels else { return 1 }
            for y in 0..<size.height { (pixels + y * stride).update(from: source + y * size.width * 3, count: size.width * 3) }
            return 0
        }
        // The record's size is the sensor image's (turned as LibRaw turned it), each developed
        // pixel covering 2 × 2 of it, as a JPEG decoded at half scale reports itself.
        let turned = flip & 4 != 0 ? ImageSize(width: sensor.height, height: sensor.width) : sensor
        let halves = (turned.width + 1) / 2 == size.width && (turned.height + 1) / 2 == size.height
        return .developed(StoredImage(
            depth: .eight, model: .rgb, storedSize: halves ? turned : size, orientation: .up, scaleDenominator: halves ? 2 : 1,
            sourceBitDepth: 8, pageCount: 1, warnings: [], resolution: nil))
    }

    /// Whether `data` holds any of `words` (lower-case ASCII), in any case.
    static func names(_ data: UnsafeRawBufferPointer, anyOf words: [String]) -> Bool {
        let patterns = words.map { Array($0.utf8) }
        guard let shortest = patterns.map(\.count).min(), data.count >= shortest else { return false }
        for start in 0...(data.count - shortest) {
            let first = data[start] | 0x20
            for pattern in patterns where first == pattern[0] && start + pattern.count <= data.count {
                if (1..<pattern.count).allSatisfy({ data[start + $0] | 0x20 == pattern[$0] }) { return true }
            }
        }
        return false
    }

    /// LibRaw's `flip` (0, 3, 5, 6: none, 180°, 90° counter-clockwise, 90° clockwise) as the
    /// EXIF orientation that shows the photo upright.
    static func orientation(_ flip: Int32) -> Orientation {
        switch flip {
        case 3: .down
        case 5: .left
        case 6: .right
        default: .up
        }
    }

    /// A LibRaw status as an error of imgquality's kinds.
    private static func error(_ status: Int32, _ doing: String) -> ImagingError {
        let text = libraw_strerror(status).map { String(cString: $0) } ?? "error \(status)"
        let message = "camera raw: \(text) (\(doing))"
        switch status {
        case LIBRAW_FILE_UNSUPPORTED.rawValue: return ImagingError(.unsupportedFeature, message)
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue: return ImagingError(.outOfMemory, message)
        case LIBRAW_CANCELLED_BY_CALLBACK.rawValue: return ImagingError(.timeLimit, "camera raw: the time limit passed while developing")
        case LIBRAW_DATA_ERROR.rawValue, LIBRAW_IO_ERROR.rawValue: return ImagingError(.corrupt, message)
        case LIBRAW_TOO_BIG.rawValue: return ImagingError(.limitExceeded, message)
        default: return ImagingError(.corrupt, message)
        }
    }
}
