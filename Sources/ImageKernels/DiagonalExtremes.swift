/// The pixels of a region furthest along each diagonal of the frame: the corners of a
/// four-sided shape (a sheet of paper, a page) seen in perspective and turned by less than
/// 45°. Pixels may be added in any order: of pixels alike along a diagonal, the first in
/// raster order is kept.
public struct DiagonalExtremes: Sendable {
    /// A corner: its score along the diagonal and its pixel.
    public typealias Extreme = (score: Int, x: Int, y: Int)

    /// The pixels with the largest −(x + y), x − y, x + y and y − x (score `Int.min` while
    /// the region is empty).
    public var topLeft: Extreme = (Int.min, 0, 0), topRight: Extreme = (Int.min, 0, 0)
    public var bottomRight: Extreme = (Int.min, 0, 0), bottomLeft: Extreme = (Int.min, 0, 0)

    public init() {}

    /// Top left, top right, bottom right and bottom left.
    public var corners: [Extreme] { [topLeft, topRight, bottomRight, bottomLeft] }

    @inlinable @inline(__always)
    public mutating func add(_ x: Int, _ y: Int) {
        @inline(__always) func keep(_ extreme: inout Extreme, _ score: Int) {
            if score > extreme.score || (score == extreme.score && (y, x) < (extreme.y, extreme.x)) { extreme = (score, x, y) }
        }
        keep(&topLeft, -(x + y))
        keep(&topRight, x - y)
        keep(&bottomRight, x + y)
        keep(&bottomLeft, y - x)
    }
}
