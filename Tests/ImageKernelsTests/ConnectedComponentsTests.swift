import ImagingCore
import Testing

@testable import ImageKernels

@Suite("Connected components")
struct ConnectedComponentsTests {
    /// A plane from rows of "#" (set) and "." (unset).
    func plane(_ rows: [String]) -> ([Bool], Int, Int) {
        (rows.flatMap { $0.map { $0 == "#" } }, rows[0].count, rows.count)
    }

    /// A U whose arms meet only at its foot, a diagonal chain, a piece whose pixels touch at a
    /// corner only, and a lone pixel.
    let pieces = [
        "#.#..#....",
        "#.#...#..#",
        "###....#..",
        "........#.",
        ".##.....#.",
        "...#......",
    ]

    /// `pieces` 8-connected: four, numbered in raster order of their first pixel.
    @Test func piecesAreEightConnectedAndNumberedByTheirFirstPixel() {
        let (ink, width, height) = plane(pieces)
        let (labels, components) = ConnectedComponents.label(ink, width: width, height: height)
        let rows = (0..<height).map { y in (0..<width).map { x in String(labels[y * width + x]) }.joined() }
        #expect(rows == [
            "1010020000",
            "1010002003",
            "1110000200",
            "0000000020",
            "0440000020",
            "0004000000",
        ])
        #expect(components.map(\.box) == [
            PixelRect(x: 0, y: 0, width: 3, height: 3), PixelRect(x: 5, y: 0, width: 4, height: 5),
            PixelRect(x: 9, y: 1, width: 1, height: 1), PixelRect(x: 1, y: 4, width: 3, height: 2),
        ])
        #expect(components.map(\.area) == [7, 5, 1, 3])
    }

    /// A V: its arms are two labels until the pixel between them joins its upper left and
    /// upper right; a W joins three.
    @Test func armsMeetingBelowAreOnePiece() {
        for (rows, boxes) in [(["#.#", ".#."], [PixelRect(x: 0, y: 0, width: 3, height: 2)]),
                              (["#.#.#", ".#.#."], [PixelRect(x: 0, y: 0, width: 5, height: 2)])] {
            let (ink, width, height) = plane(rows)
            let (labels, components) = ConnectedComponents.label(ink, width: width, height: height)
            #expect(components.map(\.box) == boxes)
            #expect(Set(labels.filter { $0 != 0 }) == [1])
        }
    }

    /// `pieces` 4-connected: the diagonal chain falls apart into its pixels, the piece touching
    /// at a corner into two, and the U, reached from each arm's top before its foot joins
    /// them, stays one.
    @Test func fourConnectedPiecesShareASide() {
        let (ink, width, height) = plane(pieces)
        let (labels, components) = ConnectedComponents.label(ink, width: width, height: height, connectivity: .four)
        let rows = (0..<height).map { y in (0..<width).map { x in String(labels[y * width + x]) }.joined() }
        #expect(rows == [
            "1010020000",
            "1010003004",
            "1110000500",
            "0000000060",
            "0770000060",
            "0008000000",
        ])
        #expect(components.map(\.area) == [7, 1, 1, 1, 1, 2, 2, 1])
        #expect(components[5].box == PixelRect(x: 8, y: 3, width: 1, height: 2))
    }

    /// Paper enclosed by a one-pixel diagonal line: 4-connected, the two sides stay apart;
    /// 8-connected, they leak into one piece through the line's corners.
    @Test func aDiagonalLineSeparatesFourConnectedRegions() {
        let (line, width, height) = plane([
            "#...",
            ".#..",
            "..#.",
            "...#",
        ])
        let paper = line.map { !$0 }
        #expect(ConnectedComponents.label(paper, width: width, height: height, connectivity: .four).1.map(\.area) == [6, 6])
        #expect(ConnectedComponents.label(paper, width: width, height: height).1.map(\.area) == [12])
    }

    /// A bright square and a bright pixel on a dark ground: the pieces above Otsu's threshold,
    /// and the levels row after row.
    @Test func brightPiecesAreTheRegionsAboveOtsusThreshold() {
        var image = PixelBuffer<UInt8>(width: 7, height: 5)
        for y in 0..<5 { for x in 0..<7 { image[x, y] = 30 } }
        for (x, y) in [(1, 1), (2, 1), (1, 2), (2, 2), (5, 3)] { image[x, y] = 220 }
        let (levels, labels, components) = ConnectedComponents.brightPieces(of: image)
        #expect(levels.count == 35 && levels[1 * 7 + 2] == 220 && levels[0] == 30)
        #expect(components.map(\.area) == [4, 1])
        #expect(components.map(\.box) == [PixelRect(x: 1, y: 1, width: 2, height: 2), PixelRect(x: 5, y: 3, width: 1, height: 1)])
        #expect(labels.filter { $0 != 0 }.count == 5)
    }
}
