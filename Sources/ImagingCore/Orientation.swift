/// How stored pixels must be transformed for display: the EXIF/TIFF Orientation tag (1–8).
///
/// The raw values name where the stored first row and first column belong:
/// `.up` (1) needs nothing, `.right` (6) is a 90° clockwise turn, and so on.
public enum Orientation: Int, Sendable, CaseIterable {
    /// 1: stored as displayed.
    case up = 1
    /// 2: mirrored left–right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top–bottom.
    case downMirrored = 4
    /// 5: transposed (mirror across the main diagonal).
    case leftMirrored = 5
    /// 6: display after turning 90° clockwise.
    case right = 6
    /// 7: transversed (mirror across the anti-diagonal).
    case rightMirrored = 7
    /// 8: display after turning 90° counter-clockwise.
    case left = 8

    /// Whether display swaps width and height.
    @inlinable public var swapsDimensions: Bool { rawValue >= 5 }

    /// The displayed size of an image stored at `stored`.
    @inlinable
    public func orientedSize(_ stored: ImageSize) -> ImageSize {
        swapsDimensions ? stored.transposed : stored
    }

    /// The stored coordinate that lands at displayed (`x`, `y`), for a stored `size`.
    @inlinable @inline(__always)
    public func sourceCoordinate(x: Int, y: Int, stored size: ImageSize) -> (x: Int, y: Int) {
        let w = size.width, h = size.height
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - 1 - x)
        case .rightMirrored: return (w - 1 - y, h - 1 - x)
        case .left: return (w - 1 - y, x)
        }
    }
}

extension PixelBuffer {
    /// The buffer as displayed under `orientation`.
    ///
    /// Complexity: O(width × height × channels); `.up` returns `self` without copying.
    @inlinable
    public func applying(_ orientation: Orientation) -> PixelBuffer {
        if orientation == .up { return self }
        let stored = size
        let out = orientation.orientedSize(stored)
        var result = PixelBuffer(width: out.width, height: out.height, channels: channels)
        let channels = self.channels
        let sourceStride = rowStride
        let destinationStride = result.rowStride
        withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { destination in
                for y in 0..<out.height {
                    let destinationRow = y * destinationStride
                    for x in 0..<out.width {
                        let (sx, sy) = orientation.sourceCoordinate(x: x, y: y, stored: stored)
                        let s = sy * sourceStride + sx * channels
                        let d = destinationRow + x * channels
                        for c in 0..<channels { destination[d + c] = source[s + c] }
                    }
                }
            }
        }
        return result
    }
}

extension AnyPixelBuffer {
    /// The buffer as displayed under `orientation`.
    public func applying(_ orientation: Orientation) -> AnyPixelBuffer {
        switch self {
        case .uint8(let b): .uint8(b.applying(orientation))
        case .uint16(let b): .uint16(b.applying(orientation))
        }
    }
}
