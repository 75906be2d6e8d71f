internal import _CImagingShims
import ImagingCore
import Synchronization

/// Decodes JPEG, PNG, TIFF, WebP, HEIF, AVIF, GIF, BMP, JPEG XL and camera raw files, and PDF pages
/// where the `PDFPages` product registered its renderer (`ImageDecoder.register`) into luma (and optionally RGB) pixel buffers.
///
/// The format comes from the magic bytes, never the file name. Every input is
/// treated as hostile: sizes are checked against `DecodeOptions.limits` before any
/// pixel buffer is allocated, and failures are thrown as `ImagingError` with a
/// stable code.
///
/// An `ImageDecoder` keeps a JPEG engine and its buffers between calls, so decoding
/// many images with one decoder allocates little. It is not thread-safe: use one per
/// thread or task.
///
/// ```swift
/// let decoder = ImageDecoder(options: DecodeOptions(scale: .atLeast(shortSide: 512)))
/// let image = try decoder.decode(contentsOf: "scan.jpg")
/// print(image.format, image.orientedSize, image.luma.size)
/// ```
public final class ImageDecoder {
    public var options: DecodeOptions
    private var workspace = DecodeWorkspace()
    private var jpeg: JPEGDecoder?

    public init(options: DecodeOptions = DecodeOptions()) {
        self.options = options
    }

    /// Counts the images decoded (each call that reaches a format's decoder) by the task it
    /// is bound in, so tests can check that a pipeline decodes each input once.
    package final class Counter: Sendable {
        private let decoded = Atomic(0)

        package init() {}

        package var count: Int { decoded.load(ordering: .relaxed) }

        func increment() { decoded.add(1, ordering: .relaxed) }
    }

    /// The counter of the current task, if a test bound one (`$counter.withValue`).
    @TaskLocal package static var counter: Counter?

    /// Reads and decodes the file at `path`.
    /// - Throws: `ImagingError`: input errors (`input.*`) and decode errors (`decode.*`).
    public func decode(contentsOf path: String) throws(ImagingError) -> DecodedImage {
        defer { workspace.trim(above: 64 << 20) }
        let deadline = Deadline(options.limits.timeLimit)
        let clock = ContinuousClock(), start = clock.now
        do throws(ImagingError) {
            try FileInput.readFile(path, maxBytes: options.limits.maxFileBytes, deadline: deadline, into: &workspace.file)
        } catch where error.kind == .timeLimit {
            throw options.limits.timeLimitError("reading the file")
        }
        let read = clock.now - start
        var image = try decodeBytes(of: workspace.file, deadline: deadline)
        image.stages.read = read
        // The compressed bytes are not needed once decoded: a large file's buffer goes now
        // rather than through the analysis that follows (a 12 MP JPEG's 3–5 MB).
        if workspace.file.capacity > 1 << 20 { workspace.file = [] }
        return image
    }

    /// Decodes an image held in memory.
    /// - Throws: `ImagingError` (`input.empty`, `input.tooLarge`, `decode.*`).
    public func decode(_ bytes: [UInt8]) throws(ImagingError) -> DecodedImage {
        guard !bytes.isEmpty else { throw ImagingError(.empty, "no bytes to decode") }
        guard bytes.count <= options.limits.maxFileBytes else {
            throw ImagingError(.fileTooLarge, "\(bytes.count) bytes, above the limit of \(options.limits.maxFileBytes)")
        }
        return try decodeBytes(of: bytes, deadline: Deadline(options.limits.timeLimit))
    }

    private func decodeBytes(of array: [UInt8], deadline: Deadline) throws(ImagingError) -> DecodedImage {
        let result: Result<DecodedImage, ImagingError> = array.withUnsafeBytes { bytes in
            do throws(ImagingError) { return .success(try decodeBytes(bytes, deadline: deadline)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func decodeBytes(_ bytes: UnsafeRawBufferPointer, deadline: Deadline) throws(ImagingError) -> DecodedImage {
        Self.counter?.increment()
        let format: ImageFormat
        switch SniffedFormat.sniff(bytes) {
        case .supported(let found):
            format = found
        case .unsupported(let name):
            throw ImagingError(.unsupportedFormat, "\(name) image: imgquality decodes \(ImageFormat.decodedNames())")
        case .unknown:
            throw ImagingError(.notAnImage, describeUnknownBytes(bytes))
        }
        return try decodeBytes(bytes, format: format, deadline: deadline)
    }

    private func decodeBytes(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, deadline: Deadline) throws(ImagingError) -> DecodedImage {
        let clock = ContinuousClock(), start = clock.now
        var rawSource: RawSource?
        let stored: StoredImage
        if options.pageIndex != 0, let only = format.onlyPage {
            throw ImagingError(.pageOutOfRange, "\(format.name): page \(options.pageIndex + 1) requested, \(only)")
        }
        do throws(ImagingError) {
            switch format {
            case .jpeg:
                if jpeg == nil { jpeg = try JPEGDecoder() }
                stored = try jpeg!.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .png:
                stored = try PNGDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .tiff:
                stored = try TIFFDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .webp:
                stored = try WebPDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .heif, .avif:
                stored = try HEIFDecoder.decode(bytes, format: format, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .gif:
                stored = try GIFDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .bmp:
                stored = try BMPDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .jxl:
                stored = try JXLDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace)
            case .pdf:
                stored = try Self.decodePlugIn(format, bytes, options: options, deadline: deadline, workspace: &workspace)
            case .raw:
                switch try RawDecoder.decode(bytes, options: options, deadline: deadline.nanoseconds, workspace: &workspace) {
                case .developed(let developed):
                    stored = developed
                    rawSource = .developed
                case .preview(let jpeg, let orientation):
                    return try decodePreview(jpeg, orientation: orientation, deadline: deadline)
                }
            }
        } catch where error.kind == .timeLimit {
            throw options.limits.timeLimitError(format.name)
        }

        if options.isStrict, let warning = stored.warnings.first(where: \.affectsPixels) {
            throw ImagingError(
                warning.kind == .truncated ? .truncated : .corrupt, "strict mode: \(warning.message)")
        }

        let converting = clock.now
        // The workspace lives in a class: take its buffers out so each is accessed alone.
        var (luma, rgb): (AnyPixelBuffer, AnyPixelBuffer?)
        var work = workspace
        workspace = DecodeWorkspace()
        switch stored.depth {
        case .eight:
            (luma, rgb) = Self.convert(
                work.stored8, model: stored.model, wantsRGB: options.wantsRGB,
                luma: &work.luma8, rgb: &work.rgb8, wrap: AnyPixelBuffer.uint8)
        case .sixteen:
            (luma, rgb) = Self.convert(
                work.stored16, model: stored.model, wantsRGB: options.wantsRGB,
                luma: &work.luma16, rgb: &work.rgb16, wrap: AnyPixelBuffer.uint16)
        }
        workspace = work

        let orient = options.appliesOrientation && stored.orientation != .up
        if orient {
            luma = luma.applying(stored.orientation)
            rgb = rgb?.applying(stored.orientation)
        }
        var image = DecodedImage(
            format: format, luma: luma, rgb: rgb, orientation: stored.orientation, isOriented: options.appliesOrientation,
            storedSize: stored.storedSize, scaleDenominator: stored.scaleDenominator,
            sourceBitDepth: stored.sourceBitDepth, pageCount: stored.pageCount, warnings: stored.warnings,
            resolution: stored.resolution, flashFired: stored.flashFired)
        image.rawSource = rawSource
        image.stages.codec = converting - start
        image.stages.conversion = clock.now - converting
        return image
    }
}

extension ImageDecoder {
    /// A raw file's embedded JPEG, decoded as a JPEG and turned by the raw file's orientation
    /// (the camera's JPEG is stored as the sensor lies).
    private func decodePreview(_ jpeg: [UInt8], orientation: Orientation, deadline: Deadline) throws(ImagingError) -> DecodedImage {
        let chosen = options
        defer { options = chosen }
        options.appliesOrientation = false
        let result: Result<DecodedImage, ImagingError> = jpeg.withUnsafeBytes { bytes in
            do throws(ImagingError) {
                guard case .supported(.jpeg) = SniffedFormat.sniff(bytes) else {
                    throw ImagingError(.corrupt, "camera raw: the embedded preview is not a JPEG")
                }
                return .success(try decodeBytes(bytes, format: .jpeg, deadline: deadline))
            } catch {
                return .failure(ImagingError(error.kind, "camera raw: embedded preview: \(error.message)"))
            }
        }
        var image = try result.get()
        image.format = .raw
        image.rawSource = .preview
        image.orientation = orientation
        image.isOriented = chosen.appliesOrientation
        if chosen.appliesOrientation && orientation != .up {
            image.luma = image.luma.applying(orientation)
            image.rgb = image.rgb?.applying(orientation)
        }
        return image
    }
}

/// When one image's reading and decoding must end, on the clock the C decoders read.
public struct Deadline: Sendable {
    /// A `CLOCK_MONOTONIC` time in nanoseconds; 0 for none.
    public let nanoseconds: UInt64

    init(_ limit: Duration?) {
        guard let limit, limit > .zero else {
            nanoseconds = 0
            return
        }
        let (seconds, attoseconds) = limit.components
        // A limit of a century or more is no limit, and must not wrap the clock.
        let span = seconds >= 3_155_760_000 ? UInt64(1) << 62 : UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        nanoseconds = iq_monotonic_ns() + max(span, 1)
    }

    public var hasPassed: Bool { nanoseconds != 0 && iq_monotonic_ns() > nanoseconds }

    /// What is left, rounded up to whole milliseconds, as `poll` takes it: −1 (wait without
    /// end) for no deadline, at most a day at a time.
    var millisecondsLeft: Int32 {
        guard nanoseconds != 0 else { return -1 }
        let now = iq_monotonic_ns()
        guard nanoseconds > now else { return 0 }
        return Int32(min((nanoseconds - now + 999_999) / 1_000_000, 86_400_000))
    }
}

extension ImageDecoder {
    /// Colour conversion into the workspace's reusable luma and RGB buffers.
    private static func convert<S>(
        _ stored: PixelBuffer<S>, model: ColorModel, wantsRGB: Bool,
        luma: inout PixelBuffer<S>, rgb: inout PixelBuffer<S>?, wrap: (PixelBuffer<S>) -> AnyPixelBuffer
    ) -> (AnyPixelBuffer, AnyPixelBuffer?) {
        var rgbOut = wantsRGB ? rgb ?? PixelBuffer() : nil
        ColorMath<S>.convert(stored, model: model, luma: &luma, rgb: &rgbOut)
        // RGB that is the stored buffer itself (an RGB file) is not kept a second time: the
        // workspace holding it twice would make the next decode copy the stored buffer
        // before writing into it (9 MB for a 12 MP JPEG decoded at half size).
        if wantsRGB { rgb = model == .rgb ? PixelBuffer() : rgbOut }
        return (wrap(luma), rgbOut.map(wrap))
    }
}

@available(*, unavailable, message: "an ImageDecoder keeps per-thread buffers; create one per task")
extension ImageDecoder: Sendable {}

extension ImagingError {
    /// A format whose library is opened the first time a file needs it, and could not be:
    /// `decode.unsupportedFeature` with what the loader said and the Debian package to install.
    static func libraryMissing(_ format: String, loaderSaid reason: UnsafePointer<CChar>, package: String) -> ImagingError {
        ImagingError(.unsupportedFeature, "\(format): \(String(cString: reason)) (install \(package))")
    }
}
