import Testing

@testable import ImageKernels

@Suite("Summed-area table")
struct SummedAreaTableTests {
    /// A 4 × 3 grid of the values 1 to 12, row after row.
    let values: [UInt8] = Array(1...12)

    @Test func boxSumsAreTheSumsOfTheirPlaces() {
        let table = SummedAreaTable(values, width: 4, height: 3)
        #expect(table.sum(x0: 0, y0: 0, x1: 4, y1: 3) == 78)
        #expect(table.sum(x0: 1, y0: 1, x1: 3, y1: 3) == 6 + 7 + 10 + 11)
        #expect(table.sum(x0: 3, y0: 0, x1: 4, y1: 3) == 4 + 8 + 12)
        #expect(table.sum(x0: 2, y0: 2, x1: 3, y1: 3) == 11)
        // An empty box sums to nothing, at the edges too.
        #expect(table.sum(x0: 2, y0: 1, x1: 2, y1: 3) == 0)
        #expect(table.sum(x0: 4, y0: 3, x1: 4, y1: 3) == 0)
    }

    @Test func everyBoxAgreesWithCountingItsPlaces() {
        let table = SummedAreaTable(width: 4, height: 3) { x, y in Int(values[y * 4 + x]) * (x == y ? -1 : 1) }
        for y0 in 0...3 {
            for y1 in y0...3 {
                for x0 in 0...4 {
                    for x1 in x0...4 {
                        var expected = 0
                        for y in y0..<y1 { for x in x0..<x1 { expected += Int(values[y * 4 + x]) * (x == y ? -1 : 1) } }
                        #expect(table.sum(x0: x0, y0: y0, x1: x1, y1: y1) == expected, "\(x0) \(y0) \(x1) \(y1)")
                    }
                }
            }
        }
    }

    @Test func anEmptyGridHasOnlyEmptyBoxes() {
        let table = SummedAreaTable([UInt8](), width: 0, height: 0)
        #expect(table.sum(x0: 0, y0: 0, x1: 0, y1: 0) == 0)
    }
}
