import ImagingCore

/// What to decode and how much of it.
public struct DecodeOptions: Sendable, Hashable {
    /// Size and structure bounds checked before allocating.
    public var limits: DecodeLimits
    /// Also produce interleaved RGB (3 channels); luma is always produced.
    public var wantsRGB: Bool
    /// The output resolution. Only JPEG can decode below full size (libjpeg's DCT
    /// scaling); other formats are decoded at full size whatever is asked.
    public var scale: DecodeScale
    /// The page (TIFF directory) to decode, 0-based. Single-page formats have only page 0.
    public var pageIndex: Int
    /// Rotate/flip the pixels as the EXIF or TIFF Orientation tag says (default).
    /// When false, pixels stay as stored and `DecodedImage.orientation` tells what to do.
    public var appliesOrientation: Bool
    /// Treat warnings that affect pixels (truncated or corrupt data the library
    /// worked through) as errors.
    public var isStrict: Bool

    public init(
        limits: DecodeLimits = DecodeLimits(),
        wantsRGB: Bool = false,
        scale: DecodeScale = .full,
        pageIndex: Int = 0,
        appliesOrientation: Bool = true,
        isStrict: Bool = false
    ) {
        self.limits = limits
        self.wantsRGB = wantsRGB
        self.scale = scale
        self.pageIndex = pageIndex
        self.appliesOrientation = appliesOrientation
        self.isStrict = isStrict
    }
}

/// The resolution to decode at.
public enum DecodeScale: Sendable, Hashable {
    /// Every stored pixel.
    case full
    /// 1/`denominator` of each dimension (rounded up); `denominator` is 1, 2, 4 or 8.
    case reduced(denominator: Int)
    /// The smallest reduction whose shorter side is still at least `shortSide` pixels.
    case atLeast(shortSide: Int)
    /// The smallest reduction whose shorter side is at least `shortSide` and whose longer
    /// side is at least `longSide` pixels.
    case covering(shortSide: Int, longSide: Int)

    /// The libjpeg scale denominator for an image stored at `size`.
    func denominator(for size: ImageSize) -> Int {
        switch self {
        case .full:
            return 1
        case .reduced(let denominator):
            return [8, 4, 2].first { $0 <= denominator } ?? 1
        case .atLeast(let shortSide):
            return Self.covering(shortSide: shortSide, longSide: 0).denominator(for: size)
        case .covering(let shortSide, let longSide):
            let short = min(size.width, size.height), long = max(size.width, size.height)
            for denominator in [8, 4, 2]
            where (short + denominator - 1) / denominator >= shortSide && (long + denominator - 1) / denominator >= longSide {
                return denominator
            }
            return 1
        }
    }
}
