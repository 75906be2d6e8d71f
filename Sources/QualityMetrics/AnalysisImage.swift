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
    /// Whether the camera's flash fired (EXIF): the exposure detector then judges the
    /// subject the flash lit, not the ground beyond its reach.
    public var flashFired = false

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

    /// The `detailSide` crop of the luma at decode resolution where the text is: of the
    /// windows centred on each line (kept inside the frame), the one holding the most line
    /// area, so legibility, contrast and size are measured on text rather than on whatever
    /// the centre of the frame shows. The centre crop when no line was found.
    /// - Parameter lines: line boxes in full-resolution pixels (`TextFinder.Result.lines`).
    public func detail(over lines: [PixelRect]) -> PixelBuffer<UInt8> {
        let plane = decodedLuma
        let width = min(Self.detailSide, plane.width), height = min(Self.detailSide, plane.height)
        guard !lines.isEmpty, width < plane.width || height < plane.height else { return detail }
        // Line boxes at decode resolution.
        let boxes = lines.map { line in
            (x0: Double(line.x) / detailScale, y0: Double(line.y) / detailScale,
             x1: Double(line.x + line.width) / detailScale, y1: Double(line.y + line.height) / detailScale)
        }
        func origin(centredOn box: (x0: Double, y0: Double, x1: Double, y1: Double)) -> (x: Int, y: Int) {
            let x = Int(((box.x0 + box.x1) / 2).rounded()) - width / 2, y = Int(((box.y0 + box.y1) / 2).rounded()) - height / 2
            return (max(0, min(plane.width - width, x)), max(0, min(plane.height - height, y)))
        }
        var best = (x: (plane.width - width) / 2, y: (plane.height - height) / 2), bestArea = -1.0
        for candidate in boxes {
            let (x, y) = origin(centredOn: candidate)
            var area = 0.0
            for box in boxes {
                let w = min(box.x1, Double(x + width)) - max(box.x0, Double(x))
                let h = min(box.y1, Double(y + height)) - max(box.y0, Double(y))
                if w > 0 && h > 0 { area += w * h }
            }
            if area > bestArea {
                bestArea = area
                best = (x, y)
            }
        }
        return plane.cropped(to: PixelRect(x: best.x, y: best.y, width: width, height: height))
    }

    /// The centre `side` × `side` pixels of `plane` (all of a side that is shorter).
    static func centreCrop(_ plane: PixelBuffer<UInt8>, side: Int) -> PixelBuffer<UInt8> {
        let width = min(side, plane.width), height = min(side, plane.height)
        if width == plane.width && height == plane.height { return plane }
        return plane.cropped(to: PixelRect(x: (plane.width - width) / 2, y: (plane.height - height) / 2, width: width, height: height))
    }

    /// Prepares a decoded image (any depth, oriented or not).
    public init(_ image: DecodedImage) {
        self.init(image, oriented: Self.orientedEightBit(image))
    }

    /// Prepares a decoded image from its planes as `orientedEightBit(image)` gives them, for
    /// callers that keep those planes too.
    public init(_ image: DecodedImage, oriented planes: (luma: PixelBuffer<UInt8>, rgb: PixelBuffer<UInt8>?)) {
        self.init(luma: planes.luma, rgb: planes.rgb, fullSize: image.orientedSize)
        flashFired = image.flashFired
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
