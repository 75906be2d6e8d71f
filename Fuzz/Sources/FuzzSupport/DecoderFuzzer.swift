import ImageCodecs
import ImagingCore

/// Feeds fuzz inputs of one format (or of one library's formats) to an `ImageDecoder` and checks
/// what a successful decode returns.
///
/// The whole input is the encoded image; its last byte also selects the decode options (see
/// `DecodeOptions.init(fuzzSelector:allowsPages:)`), so the fuzzer explores them by mutating one
/// byte and a crashing input replays with the options that crashed it. Formats decode trailing
/// bytes as padding (after EOI, IEND or the last strip), so the selector barely disturbs an image.
///
/// One decoder serves every input, as in a batch run: its JPEG engine and buffers are reused, so a
/// bug that leaves them in a bad state after a failure is found too. libFuzzer calls the entry
/// point from one thread only.
public final class DecoderFuzzer {
    private let formats: Set<ImageFormat>
    private let decoder = ImageDecoder()

    public init(_ formats: ImageFormat...) {
        self.formats = Set(formats)
    }

    /// Decodes `size` bytes at `data`.
    /// - Returns: 0, or -1 (libFuzzer keeps the input out of the corpus) when the bytes do not
    ///   start with one of this target's formats' magic: another format's decoder is not this
    ///   target's business.
    public func run(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data, size > 0 else { return -1 }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        let sniffed = bytes.withUnsafeBytes { SniffedFormat.sniff($0) }
        guard case .supported(let format) = sniffed, formats.contains(format) else { return -1 }
        let options = DecodeOptions(fuzzSelector: bytes[size - 1], allowsPages: format == .tiff || format == .pdf)
        decoder.options = options
        do {
            let image = try decoder.decode(bytes)
            Self.check(image, options: options)
        } catch {
            // Failing is an allowed answer to arbitrary bytes; only the message must be formed.
            precondition(!error.message.isEmpty, "an ImagingError without a message: \(error.code)")
        }
        return 0
    }

    /// The decoder's contract on what it returns: a luma plane of the stored size (divided by the
    /// JPEG scale, rounded up, and turned by the orientation when applied), RGB beside it when asked.
    static func check(_ image: DecodedImage, options: DecodeOptions) {
        let luma = image.luma
        let denominator = image.scaleDenominator
        precondition([1, 2, 4, 8].contains(denominator), "scale 1/\(denominator)")
        var expected = ImageSize(
            width: (image.storedSize.width + denominator - 1) / denominator,
            height: (image.storedSize.height + denominator - 1) / denominator)
        if image.isOriented { expected = image.orientation.orientedSize(expected) }
        precondition(luma.channels == 1, "luma has \(luma.channels) channels")
        precondition(luma.size == expected, "luma is \(luma.size), expected \(expected) from \(image.storedSize)")
        precondition(image.storedSize.pixelCount.map { $0 <= options.limits.maxPixels } ?? false, "above the pixel limit")
        if options.wantsRGB {
            guard let rgb = image.rgb else { preconditionFailure("RGB asked for, none returned") }
            precondition(rgb.channels == 3 && rgb.size == luma.size, "RGB is \(rgb.size)×\(rgb.channels)")
        }
    }
}
