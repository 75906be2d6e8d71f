/// Bounds on what a decoder will read or allocate for one input.
///
/// Every input is untrusted: each limit has a finite default with a stated reason,
/// and is checked before the allocation it protects.
public struct DecodeLimits: Hashable, Sendable {
    /// The most pixels (width × height, as stored) an image may declare.
    ///
    /// Default 256 megapixels (2²⁸): above the largest phone and consumer camera
    /// sensors (about 200 MP), while one 8-bit luma plane of that size is 256 MiB.
    /// A header claiming 100 000 × 100 000 is refused before any pixel buffer exists.
    public var maxPixels: Int

    /// The largest file read into memory, in bytes.
    ///
    /// Default 512 MiB: an uncompressed 16-bit RGB TIFF of 80 MP fits; files are
    /// read whole, so this bounds each worker's input buffer.
    public var maxFileBytes: Int

    /// The most scans a progressive JPEG may have.
    ///
    /// Default 1 000: real encoders write about 10; a hostile file with thousands of
    /// tiny scans makes libjpeg do quadratic work.
    public var maxJPEGScans: Int

    /// The most time reading and decoding one image may take; nil for no limit.
    ///
    /// Default 60 s: a 12 MP photo takes about 0.1 s and the largest image `maxPixels`
    /// allows a few seconds, so only a file built to make a decoder crawl, or a pipe whose
    /// writer is slow or absent, reaches it. Reading checks it between chunks and, for a
    /// FIFO, terminal or socket, while waiting for data; the decoders check it between rows
    /// (JPEG, PNG) or strips and tiles (TIFF).
    public var timeLimit: Duration?

    /// The most pages of one file read as records (`--pages all` on a PDF or multi-page TIFF).
    ///
    /// Default 1 000: a long report or a fax batch; a file claiming more pages has the pages
    /// after the limit reported as one `decode.limitExceeded` record instead of read.
    public var maxPages: Int

    public static let defaultMaxPixels = 1 << 28
    public static let defaultMaxPages = 1_000
    public static let defaultMaxFileBytes = 512 << 20
    public static let defaultMaxJPEGScans = 1_000
    public static let defaultTimeLimit = Duration.seconds(60)

    public init(
        maxPixels: Int = DecodeLimits.defaultMaxPixels,
        maxFileBytes: Int = DecodeLimits.defaultMaxFileBytes,
        maxJPEGScans: Int = DecodeLimits.defaultMaxJPEGScans,
        timeLimit: Duration? = DecodeLimits.defaultTimeLimit,
        maxPages: Int = DecodeLimits.defaultMaxPages
    ) {
        self.maxPages = maxPages
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
        self.maxJPEGScans = maxJPEGScans
        self.timeLimit = timeLimit
    }

    /// The error for an image that took longer than `timeLimit`, naming the limit and its flag.
    public func timeLimitError(_ what: String) -> ImagingError {
        let seconds = timeLimit.map { limit in
            let (whole, fraction) = limit.components
            let value = Double(whole) + Double(fraction) / 1e18
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        } ?? "no"
        return ImagingError(
            .timeLimit, "\(what): took longer than the time limit of \(seconds) s (raise it with --time-limit)")
    }

    /// Checks a declared size against the limits.
    /// - Throws: `ImagingError` `.invalidDimensions` for a zero dimension,
    ///   `.tooManyPixels` above `maxPixels`.
    public func check(_ size: ImageSize, format: String) throws(ImagingError) {
        guard size.width > 0, size.height > 0 else {
            throw ImagingError(.invalidDimensions, "\(format) header declares \(size.width)×\(size.height) pixels")
        }
        guard let pixels = size.pixelCount, pixels <= maxPixels else {
            throw ImagingError(
                .tooManyPixels,
                "\(format) header declares \(size.width)×\(size.height) pixels, above the limit of \(maxPixels) (raise it with --max-pixels)"
            )
        }
    }
}
