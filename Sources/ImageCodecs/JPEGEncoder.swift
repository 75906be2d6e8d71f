internal import _CImagingShims
import ImagingCore

/// Baseline JPEG encoding of 8-bit gray or RGB buffers, for thumbnails in reports.
public enum JPEGEncoder {
    /// The JPEG bytes of `pixels` (1 or 3 channels) at `quality` (1–100).
    /// - Throws: `ImagingError` (`decode.corrupt` carries libjpeg's message) on failure.
    public static func encode(_ pixels: PixelBuffer<UInt8>, quality: Int = 85) throws(ImagingError) -> [UInt8] {
        precondition(pixels.channels == 1 || pixels.channels == 3, "JPEG thumbnails are gray or RGB")
        var diagnostics = iq_diagnostics()
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pixels.withUnsafeBufferPointer { buffer in
            iq_jpeg_encode(
                buffer.baseAddress, UInt32(pixels.width), UInt32(pixels.height), Int32(pixels.channels), pixels.rowStride,
                Int32(quality), &output, &size, &diagnostics)
        }
        guard status == IQ_OK, let output else { throw diagnostics.error("JPEG encoding", status: status) }
        defer { iq_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
