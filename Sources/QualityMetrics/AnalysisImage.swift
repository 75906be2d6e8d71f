import ImageCodecs
import ImageKernels
import ImagingCore

/// The pixels the detectors look at: the decoded image reduced to a fixed analysis
/// size, so every measurement means the same at every input resolution.
///
/// The longer side becomes `AnalysisImage.longSide` (1 024) by area resampling
/// (images already smaller keep their size). A 12 MP photo and the same scene at
/// 3 MP give nearly the same analysis image: that is what keeps confidences
/// comparable across sizes, as the record contract requires.
public struct AnalysisImage: Sendable {
    /// The analysis size's longer side.
    public static let longSide = 1024

    /// Luma at analysis size, 8 bits.
    public var luma: PixelBuffer<UInt8>
    /// RGB at analysis size, when the decode had colour.
    public var rgb: PixelBuffer<UInt8>?
    /// The full-resolution size as displayed.
    public var fullSize: ImageSize
    /// Full-resolution pixels per analysis pixel (≥ 1).
    public var scale: Double
    /// A centre crop (≤ 1 024 × 1 024) of the luma at decode resolution, for measurements
    /// that need fine detail (text size).
    public var detail: PixelBuffer<UInt8>
    /// Full-resolution pixels per detail pixel (the decode's scale).
    public var detailScale: Double

    /// The longest side of the detail crop.
    public static let detailSide = 1024

    /// The luma at decode resolution (shared with the decoded image, not copied), from
    /// which `textPlane()` is made only when text is searched for.
    public var decodedLuma: PixelBuffer<UInt8>
    /// The longest side of the text plane.
    public static let textSide = 2048

    /// Luma at decode resolution reduced to at most `textSide` on its longer side, where
    /// text is searched for (fine enough for small print, bounded in cost), and the
    /// full-resolution pixels per plane pixel.
    public func textPlane() -> (plane: PixelBuffer<UInt8>, scale: Double) {
        let size = AreaResample.size(fitting: decodedLuma.size, longSide: Self.textSide)
        let plane = size == decodedLuma.size ? decodedLuma : AreaResample.resize(decodedLuma, to: size)
        return (plane, Double(max(fullSize.width, fullSize.height)) / Double(max(1, max(size.width, size.height))))
    }

    public init(luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>? = nil, fullSize: ImageSize) {
        let target = AreaResample.size(fitting: luma.size, longSide: Self.longSide)
        self.luma = AreaResample.resize(luma, to: target)
        if let rgb {
            self.rgb = AreaResample.resize(interleaved: rgb, to: target)
        }
        self.fullSize = fullSize
        scale = Double(max(fullSize.width, fullSize.height)) / Double(max(target.width, target.height))
        detailScale = Double(max(fullSize.width, fullSize.height)) / Double(max(1, max(luma.width, luma.height)))
        detail = Self.centreCrop(luma, side: Self.detailSide)
        decodedLuma = luma
    }

    /// The centre `side` × `side` pixels of `plane` (all of a side that is shorter).
    static func centreCrop(_ plane: PixelBuffer<UInt8>, side: Int) -> PixelBuffer<UInt8> {
        let width = min(side, plane.width), height = min(side, plane.height)
        if width == plane.width && height == plane.height { return plane }
        let x0 = (plane.width - width) / 2, y0 = (plane.height - height) / 2
        var crop = PixelBuffer<UInt8>(width: width, height: height)
        for y in 0..<height { for x in 0..<width { crop[x, y] = plane[x0 + x, y0 + y] } }
        return crop
    }

    /// Prepares a decoded image (any depth, oriented or not).
    public init(_ image: DecodedImage) {
        let (luma, rgb) = Self.orientedEightBit(image)
        self.init(luma: luma, rgb: rgb, fullSize: image.orientedSize)
    }

    /// The decoded planes at 8 bits and in display orientation, at decode resolution: what
    /// `init(_:)` starts from, for callers that also need the full-resolution pixels (a
    /// recognizer) and would otherwise convert them a second time.
    public static func orientedEightBit(_ image: DecodedImage) -> (luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>?) {
        var luma = image.luma.eightBit
        var rgb = image.rgb?.eightBit
        if !image.isOriented && image.orientation != .up {
            luma = luma.applying(image.orientation)
            rgb = rgb?.applying(image.orientation)
        }
        return (luma, rgb)
    }

}
