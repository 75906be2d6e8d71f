/// A pixel rectangle with a **top-left** origin.
public struct PixelRect: Sendable, Equatable, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Corners clockwise from the top-left, as Google Cloud Vision's `boundingPoly.vertices`.
    public var quadrilateral: [PixelPoint] {
        [PixelPoint(x: x, y: y), PixelPoint(x: x + width, y: y), PixelPoint(x: x + width, y: y + height), PixelPoint(x: x, y: y + height)]
    }
}

/// A pixel position, top-left origin.
public struct PixelPoint: Sendable, Equatable, Codable {
    public var x: Int
    public var y: Int
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}
