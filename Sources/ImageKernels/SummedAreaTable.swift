/// A summed-area table (an integral image) of a grid of integers: the sum over any box of the
/// grid in four lookups, whatever the box's size.
///
/// The table has a row and a column of zeros ahead of the grid's, so its entry (x, y) is the
/// sum of the values above and to the left of the grid's place (x, y), and a box's sum needs
/// no test at the grid's edges.
public struct SummedAreaTable: Sendable {
    /// The grid's size (the table's is one more each way).
    public let width: Int, height: Int
    @usableFromInline let table: [Int]

    /// The table of the `width` × `height` grid whose value at place (x, y) is `value(x, y)`.
    @inlinable
    public init(width: Int, height: Int, value: (_ x: Int, _ y: Int) -> Int) {
        precondition(width >= 0 && height >= 0)
        (self.width, self.height) = (width, height)
        let stride = width + 1
        var table = [Int](repeating: 0, count: stride * (height + 1))
        table.withUnsafeMutableBufferPointer { table in
            for y in 0..<height {
                var row = 0
                for x in 0..<width {
                    row &+= value(x, y)
                    table[(y &+ 1) &* stride &+ x &+ 1] = table[y &* stride &+ x &+ 1] &+ row
                }
            }
        }
        self.table = table
    }

    /// The table of a grid of `width` × `height` values stored row after row.
    @inlinable
    public init<Value: BinaryInteger>(_ values: [Value], width: Int, height: Int) {
        precondition(values.count == width * height)
        self = values.withUnsafeBufferPointer { values in SummedAreaTable(width: width, height: height) { Int(values[$1 &* width &+ $0]) } }
    }

    /// The sum over the places with `x0 ≤ x < x1` and `y0 ≤ y < y1` (0 ≤ x0 ≤ x1 ≤ width,
    /// 0 ≤ y0 ≤ y1 ≤ height).
    @inlinable
    public func sum(x0: Int, y0: Int, x1: Int, y1: Int) -> Int {
        let stride = width + 1
        return table[y1 * stride + x1] - table[y0 * stride + x1] - table[y1 * stride + x0] + table[y0 * stride + x0]
    }
}
