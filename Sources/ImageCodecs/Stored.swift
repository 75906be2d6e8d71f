import ImagingCore

/// What a format decoder hands back: pixels as stored (before colour conversion and
/// orientation) in the workspace, and what it learned.
struct StoredImage {
    enum Depth { case eight, sixteen }
    var depth: Depth
    var model: ColorModel
    var storedSize: ImageSize
    var orientation: Orientation
    var scaleDenominator: Int
    var sourceBitDepth: Int
    var pageCount: Int
    var warnings: [DecodeWarning]
    var resolution: ImageResolution?
    /// Whether the file's EXIF says a flash fired.
    var flashFired = false
}

/// Buffers reused from one image to the next by one `ImageDecoder`.
///
/// Buffers handed out in a `DecodedImage` are shared copy-on-write: while the
/// caller holds the image they are copied on the next decode; once the caller lets
/// go, their memory is reused.
struct DecodeWorkspace {
    var file: [UInt8] = []
    var stored8 = PixelBuffer<UInt8>()
    var stored16 = PixelBuffer<UInt16>()
    var luma8 = PixelBuffer<UInt8>()
    var luma16 = PixelBuffer<UInt16>()
    var rgb8: PixelBuffer<UInt8>? = PixelBuffer<UInt8>()
    var rgb16: PixelBuffer<UInt16>? = PixelBuffer<UInt16>()

    /// Drops every buffer larger than `bytes`, so one huge image does not pin its memory.
    mutating func trim(above bytes: Int) {
        if file.capacity > bytes { file = [] }
        if stored8.samples.capacity > bytes { stored8 = PixelBuffer() }
        if stored16.samples.capacity * 2 > bytes { stored16 = PixelBuffer() }
        if luma8.samples.capacity > bytes { luma8 = PixelBuffer() }
        if luma16.samples.capacity * 2 > bytes { luma16 = PixelBuffer() }
        if (rgb8?.samples.capacity ?? 0) > bytes { rgb8 = PixelBuffer() }
        if (rgb16?.samples.capacity ?? 0) * 2 > bytes { rgb16 = PixelBuffer() }
    }
}

extension DecodeWorkspace {
    /// Reshapes the stored buffer of `depth` and lets `read` fill it through its bytes
    /// (`read` gets the first byte and the row stride in bytes), returning `read`'s status.
    mutating func fillStored(
        depth: StoredImage.Depth, size: ImageSize, channels: Int,
        _ read: (UnsafeMutablePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        switch depth {
        case .eight:
            stored8.reshape(width: size.width, height: size.height, channels: channels)
            let stride = stored8.rowStride
            return stored8.withUnsafeMutableBufferPointer { read($0.baseAddress, stride) }
        case .sixteen:
            stored16.reshape(width: size.width, height: size.height, channels: channels)
            let stride = stored16.rowStride * 2
            return stored16.withUnsafeMutableBufferPointer { pixels in
                pixels.withMemoryRebound(to: UInt8.self) { read($0.baseAddress, stride) }
            }
        }
    }
}
