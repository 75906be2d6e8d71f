/// The width and height of an image or a buffer, in pixels.
public struct ImageSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    @inlinable
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `width × height`, or `nil` when the product overflows `Int`.
    public var pixelCount: Int? {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : product
    }

    /// The size with width and height exchanged, as a 90° rotation leaves it.
    @inlinable public var transposed: ImageSize { ImageSize(width: height, height: width) }

    public var description: String { "\(width)×\(height)" }
}
