import Foundation
import ImageCodecs
import ImagingCore
import Testing
import TextRecognition
import _ImagingTestSupport

@testable import DocumentStructure

/// Structure from drawn pixels and placed words, with no recognizer: every answer is known.
@Suite("Document structure")
struct DocumentAnalyzerTests {
    let analyzer = DocumentAnalyzer()

    /// A white page.
    static func page(width: Int = 1000, height: Int = 700) -> PixelBuffer<UInt8> {
        PixelBuffer(width: width, height: height, channels: 1, samples: Array(repeating: 235, count: width * height))
    }

    /// A dark line `thickness` pixels wide from (x0, y0) to (x1, y1).
    static func line(_ image: inout PixelBuffer<UInt8>, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, thickness: Int = 2) {
        let steps = Int(max(abs(x1 - x0), abs(y1 - y0)).rounded(.up)) * 2
        let (width, height) = (image.width, image.height)
        image.withUnsafeMutableBufferPointer { pixels in
            for step in 0...steps {
                let t = Double(step) / Double(steps)
                let x = Int((x0 + (x1 - x0) * t).rounded()), y = Int((y0 + (y1 - y0) * t).rounded())
                for dy in 0..<thickness {
                    for dx in 0..<thickness where x + dx < width && y + dy < height && x + dx >= 0 && y + dy >= 0 {
                        pixels[(y + dy) * width + x + dx] = 20
                    }
                }
            }
        }
    }

    /// A word observation per (text, box); each its own line in block 0, paragraph `paragraph`.
    static func lines(_ words: [[(String, PixelRect)]], size: ImageSize, paragraph: Int = 0) -> [RecognizedTextObservation] {
        words.map { line in
            let recognized = line.map { RecognizedWord(text: RecognizedText(string: $0.0, confidence: 0.9), pixelBox: $0.1, imageSize: size) }
            let box = line.map(\.1).dropFirst().reduce(line[0].1) { $0.union($1) }
            return RecognizedTextObservation(
                candidates: [RecognizedText(string: line.map(\.0).joined(separator: " "), confidence: 0.9)], pixelBox: box, imageSize: size,
                words: recognized, block: 0, paragraph: paragraph)
        }
    }

    /// A grid of `rows` × columns with the given column edges, tilted by `degrees` about its
    /// top-left corner; the rule between columns 1 and 2 of row 0 left out (a spanning header).
    static func grid(_ image: inout PixelBuffer<UInt8>, x: Double, y: Double, columns: [Double], rows: Int, rowHeight: Double, degrees: Double) -> (Double, Double) -> (Double, Double) {
        let angle = degrees * .pi / 180
        let place = { (u: Double, v: Double) -> (Double, Double) in (x + u * cos(angle) - v * sin(angle), y + u * sin(angle) + v * cos(angle)) }
        let width = columns.last!, height = Double(rows) * rowHeight
        for row in 0...rows {
            let (a, b) = (place(0, Double(row) * rowHeight), place(width, Double(row) * rowHeight))
            line(&image, a.0, a.1, b.0, b.1)
        }
        for (index, u) in columns.enumerated() {
            let top = index == 2 ? rowHeight : 0
            let (a, b) = (place(u, top), place(u, height))
            line(&image, a.0, a.1, b.0, b.1)
        }
        return place
    }

    @Test(arguments: [0.0, 3.0, -6.0])
    func aRuledTableIsFoundWithItsSpanningCellAtAnyTilt(degrees: Double) throws {
        var image = Self.page()
        let columns: [Double] = [0, 220, 480, 700]
        let place = Self.grid(&image, x: 120, y: 150, columns: columns, rows: 4, rowHeight: 60, degrees: degrees)
        // Each cell's print: a block of characters in its middle.
        func centre(_ row: Int, _ column: Int) -> (Double, Double) {
            let right = row == 0 && column == 1 ? columns[3] : columns[column + 1]
            return place((columns[column] + right) / 2, Double(row) * 60 + 30)
        }
        for row in 0..<4 {
            for column in 0..<3 where !(row == 0 && column == 2) {
                let (cx, cy) = centre(row, column)
                _ = Self.ink(&image, x: Int(cx) - 24, y: Int(cy) - 8, words: [4])
            }
        }
        let page = analyzer.prepare(image)
        #expect(page.gridCount == 1)
        // A tilted page is levelled first (turned about its centre), and read level.
        #expect((page.geometry != nil) == (degrees != 0))
        let angle = -degrees * .pi / 180
        func levelled(_ point: (Double, Double)) -> (Double, Double) {
            let (dx, dy) = (point.0 - 500, point.1 - 350)
            return (500 + dx * cos(angle) - dy * sin(angle), 350 + dx * sin(angle) + dy * cos(angle))
        }
        // A word in the middle of each cell.
        var words: [[(String, PixelRect)]] = []
        for row in 0..<4 {
            for column in 0..<3 where !(row == 0 && column == 2) {
                let (cx, cy) = levelled(centre(row, column))
                words.append([("r\(row)c\(column)", PixelRect(x: Int(cx) - 30, y: Int(cy) - 10, width: 60, height: 20))])
            }
        }
        let document = analyzer.assemble(page, observations: Self.lines(words, size: image.size))
        let table = try #require(document.tables.first)
        #expect(document.tables.count == 1)
        #expect((table.rows, table.columns, table.ruling) == (4, 3, .grid))
        #expect(table.cells.count == 11)
        let header = try #require(table.cells.first { $0.row == 0 && $0.column == 1 })
        #expect((header.rowSpan, header.columnSpan, header.text) == (1, 2, "r0c1"))
        for cell in table.cells { #expect(cell.text == "r\(cell.row)c\(cell.column)") }
        #expect(document.paragraphs.isEmpty)
        #expect(document.text == "r0c0\tr0c1\t\nr1c0\tr1c1\tr1c2\nr2c0\tr2c1\tr2c2\nr3c0\tr3c1\tr3c2")
    }

    @Test func aGridOfFaintLinesSharedBetweenRowsIsFound() throws {
        // Rules a pixel wide that fall between two rows or columns, each darkened by 16 levels
        // (7% of the paper, no ink to the ink test): a bright photo's thin rules. 3 × 3 cells.
        var image = Self.page()
        for y in stride(from: 150, through: 330, by: 60) {
            for x in 120...720 { image[x, y, 0] = 219; image[x, y + 1, 0] = 219 }
        }
        for x in stride(from: 120, through: 720, by: 200) {
            for y in 150...331 where image[x, y, 0] == 235 { image[x, y, 0] = 219; image[x + 1, y, 0] = 219 }
        }
        var words: [[(String, PixelRect)]] = []
        for row in 0..<3 {
            for column in 0..<3 {
                let box = PixelRect(x: 160 + 200 * column, y: 170 + 60 * row, width: 80, height: 20)
                words.append([("r\(row)c\(column)", box)])
            }
        }
        Self.print(&image, under: words)
        let page = analyzer.prepare(image)
        #expect(page.gridCount == 1)
        let document = analyzer.assemble(page, observations: Self.lines(words, size: image.size))
        let table = try #require(document.tables.first)
        #expect((table.rows, table.columns, table.ruling) == (3, 3, .grid))
        for cell in table.cells { #expect(cell.text == "r\(cell.row)c\(cell.column)") }
    }

    /// A ruled table of 4 rows × 3 columns whose header row is filled at `fill` with light
    /// print (`light` blocks the size of characters); dark print in the other rows.
    static func filledHeaderTable(fill: UInt8, light: UInt8 = 235) -> (PixelBuffer<UInt8>, [[(String, PixelRect)]]) {
        var image = Self.page()
        _ = Self.grid(&image, x: 120, y: 150, columns: [0, 220, 480, 700], rows: 4, rowHeight: 60, degrees: 0)
        // The rule the grid leaves out in row 0 (its spanning header) drawn too: three columns.
        Self.line(&image, 600, 150, 600, 210)
        for y in 150..<211 { for x in 120..<822 { image[x, y, 0] = min(image[x, y, 0], fill) } }
        var words: [[(String, PixelRect)]] = []
        for row in 0..<4 {
            for (column, left) in [140, 360, 620].enumerated() {
                words.append([("r\(row)c\(column)", PixelRect(x: left, y: 170 + 60 * row, width: 80, height: 20))])
            }
        }
        Self.print(&image, under: Array(words.dropFirst(3)))
        for (_, box) in words.prefix(3).joined() {
            for left in stride(from: box.x, to: box.x + box.width, by: 14) {
                for y in (box.y + 3)..<(box.y + box.height - 3) {
                    for x in left..<min(left + 10, box.x + box.width) { image[x, y, 0] = light }
                }
            }
        }
        return (image, words)
    }

    @Test func lightPrintOnADarkHeaderIsReadAsDarkOnLight() throws {
        let (image, words) = Self.filledHeaderTable(fill: 30)
        let ink = PageInk(image)
        let fills = DocumentAnalyzer.reversedFills(image, ink: ink)
        #expect(fills.count == 1)
        let fill = try #require(fills.first)
        // The band (x 120–821, y 150–210 and the rules along it), within a few pixels.
        #expect(abs(fill.box.x - 120) <= 3 && abs(fill.box.y - 150) <= 3, "\(fill.box)")
        #expect(abs(fill.box.x + fill.box.width - 822) <= 3 && abs(fill.box.y + fill.box.height - 212) <= 3, "\(fill.box)")
        #expect(fill.fill == 30 && fill.paper == 235)
        let page = analyzer.prepare(image)
        // The header's print is dark on light paper, the band's rules painted out with the grid.
        #expect(page.cleaned[145, 180] < 100, "a header letter: \(page.cleaned[145, 180])")
        #expect(page.cleaned[135, 180] > 200, "the band between letters: \(page.cleaned[135, 180])")
        #expect(page.gridCount == 1)
        let document = analyzer.assemble(page, observations: Self.lines(words, size: image.size))
        let table = try #require(document.tables.first)
        #expect((table.rows, table.columns, table.ruling) == (4, 3, .grid))
        for cell in table.cells { #expect(cell.text == "r\(cell.row)c\(cell.column)") }
    }

    @Test func aShadedHeaderOrADarkBoxWithoutPrintIsNoFill() {
        // Shaded a tenth darker than its paper (dark print on it): no fill.
        var (image, _) = Self.filledHeaderTable(fill: 210, light: 40)
        #expect(DocumentAnalyzer.reversedFills(image, ink: PageInk(image)).isEmpty)
        // A dark picture: a solid box with nothing light in it.
        (image, _) = Self.filledHeaderTable(fill: 30, light: 30)
        #expect(DocumentAnalyzer.reversedFills(image, ink: PageInk(image)).isEmpty)
        // Dark on light everywhere: the fill search leaves the page as it is.
        image = Self.page()
        _ = Self.grid(&image, x: 120, y: 150, columns: [0, 220, 480, 700], rows: 4, rowHeight: 60, degrees: 0)
        #expect(DocumentAnalyzer.reversedFills(image, ink: PageInk(image)).isEmpty)
    }

    @Test func theRulesAreRemovedFromThePixelsToRecognize() {
        var image = Self.page()
        _ = Self.grid(&image, x: 120, y: 150, columns: [0, 220, 480, 700], rows: 4, rowHeight: 60, degrees: 0)
        let page = analyzer.prepare(image)
        #expect(image[120, 150] == 20)
        #expect(page.cleaned[120, 150] == 235)
        #expect(page.cleaned[500, 270] == 235)
        #expect(page.cleaned.samples.min() == 235)
    }

    @Test func aTableWithoutRulesFromTheAlignmentOfWords() throws {
        var image = Self.page()
        var rows: [[(String, PixelRect)]] = []
        let texts = [["Item", "Qty", "Price"], ["Seeds", "40", "$3.20"], ["Compost", "25", "$15.00"], ["Trowel", "10", "$8.99"]]
        for (r, row) in texts.enumerated() {
            rows.append(row.enumerated().map { c, text in (text, PixelRect(x: 100 + 260 * c, y: 300 + 40 * r, width: 14 * text.count, height: 22)) })
        }
        // A paragraph above: words with ordinary spaces.
        let prose = ["The", "club", "buys", "its", "seeds", "in", "spring"].enumerated().map { i, word in (word, PixelRect(x: 100 + 90 * i, y: 200, width: 80, height: 22)) }
        let observations = Self.lines([prose], size: image.size, paragraph: 0) + Self.lines(rows, size: image.size, paragraph: 1)
        Self.print(&image, under: [prose] + rows)
        let document = analyzer.assemble(analyzer.prepare(image), observations: observations)
        #expect(document.paragraphs.map(\.text) == ["The club buys its seeds in spring"])
        let table = try #require(document.tables.first)
        #expect((table.rows, table.columns, table.ruling) == (4, 3, .alignment))
        #expect(table.grid == texts)
        // The cells tile the table's box, split midway between the words of neighbouring rows
        // (22-pixel words 40 apart: 331, 371, 411) and columns (words end at 198 and 402 and
        // start at 360 and 620: 279, 511).
        #expect(table.box == PixelRect(x: 100, y: 300, width: 604, height: 142))
        let cell = { (row: Int, column: Int) in table.cells.first { $0.row == row && $0.column == column }?.box }
        #expect(cell(0, 0) == PixelRect(x: 100, y: 300, width: 179, height: 31))
        #expect(cell(1, 1) == PixelRect(x: 279, y: 331, width: 232, height: 40))
        #expect(cell(3, 2) == PixelRect(x: 511, y: 411, width: 193, height: 31))
        #expect(document.detectedData.map(\.text) == ["$3.20", "$15.00", "$8.99"])
    }

    @Test func listsByTheirMarkersWithWrappedItems() throws {
        var image = Self.page()
        func row(_ y: Int, _ words: [String], x: Int = 100) -> [(String, PixelRect)] {
            var left = x
            return words.map { word in
                defer { left += 14 * word.count + 12 }
                return (word, PixelRect(x: left, y: y, width: 14 * word.count, height: 22))
            }
        }
        let rows = [
            row(100, ["•", "Bring", "gloves"]), row(136, ["•", "Water", "the", "beds"]), row(166, ["at", "dawn"], x: 126),
            row(202, ["•", "Return", "tools"]),
            row(300, ["1.", "Sign"]), row(336, ["2.", "Pay"]), row(372, ["3.", "Collect"]),
            row(470, ["a)", "Spades"]), row(506, ["b)", "Rakes"]),
        ]
        Self.print(&image, under: rows)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        #expect(document.lists.map(\.marker) == [.bullet, .number, .letter])
        #expect(document.lists[0].items.map(\.text) == ["Bring gloves", "Water the beds at dawn", "Return tools"])
        #expect(document.lists[1].items.map(\.marker) == ["1.", "2.", "3."])
        #expect(document.lists[2].items.map(\.text) == ["Spades", "Rakes"])
        #expect(document.tables.isEmpty)
        #expect(document.text.hasPrefix("• Bring gloves\n• Water the beds at dawn\n• Return tools\n1. Sign"))
    }

    @Test func detectedDataCarriesTheBoxOfItsWords() throws {
        var image = Self.page()
        let words: [(String, PixelRect)] = [
            ("Mail", PixelRect(x: 100, y: 100, width: 50, height: 20)), ("club@example.org", PixelRect(x: 160, y: 100, width: 200, height: 20)),
            ("by", PixelRect(x: 370, y: 100, width: 25, height: 20)), ("2026-03-14", PixelRect(x: 405, y: 100, width: 120, height: 20)),
        ]
        Self.print(&image, under: [words])
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines([words], size: image.size))
        #expect(document.detectedData.map(\.kind) == [.email, .date])
        #expect(document.detectedData[0].box == PixelRect(x: 160, y: 100, width: 200, height: 20))
        #expect(document.detectedData[1].value == .text("2026-03-14"))
        #expect(document.detectedData[1].range == 25..<35)
    }

    /// Character-sized blocks (10 × 16 pixels, 4 apart) for each word of `letters`, the words
    /// 12 pixels apart, from (x, y); the box of each word.
    static func ink(_ image: inout PixelBuffer<UInt8>, x: Int, y: Int, words letters: [Int]) -> [PixelRect] {
        var boxes: [PixelRect] = []
        var left = x
        for count in letters {
            let start = left
            for _ in 0..<count {
                for row in y..<(y + 16) { for column in left..<(left + 10) { image[column, row, 0] = 40 } }
                left += 14
            }
            boxes.append(PixelRect(x: start, y: y, width: left - 4 - start, height: 16))
            left += 8
        }
        return boxes
    }

    /// The document `analyzer` makes of a blank page printed under `rows` (`print`), read as a
    /// recognizer would give them.
    func printedAndRead(_ rows: [[(String, PixelRect)]]) -> DocumentObservation {
        var image = Self.page()
        Self.print(&image, under: rows)
        return analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
    }

    /// Character-sized blocks (10 pixels wide, 14 apart, 3 pixels in from its top and bottom)
    /// along each word's box: the print under the words a recognizer read.
    static func print(_ image: inout PixelBuffer<UInt8>, under words: [[(String, PixelRect)]]) {
        for (_, box) in words.joined() {
            for left in stride(from: box.x, to: box.x + box.width, by: 14) {
                for y in (box.y + 3)..<(box.y + box.height - 3) {
                    for x in left..<min(left + 10, box.x + box.width) { image[x, y, 0] = 40 }
                }
            }
        }
    }

    @Test func aWordReadWhereThereIsNoInkIsDropped() {
        // Tesseract reads a dash into the blank between two columns of a table row.
        var image = Self.page()
        let boxes = Self.ink(&image, x: 100, y: 100, words: [6, 7]) + Self.ink(&image, x: 400, y: 100, words: [6])
        let dash = PixelRect(x: 330, y: 96, width: 15, height: 24)
        let line = [("Emmett", boxes[0]), ("Warbeck", boxes[1]), ("—", dash), ("Parent", boxes[2])]
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines([line], size: image.size))
        #expect(document.text == "Emmett Warbeck Parent")
        // Over print, the same dash is kept.
        _ = Self.ink(&image, x: 330, y: 100, words: [1])
        let inked = analyzer.assemble(analyzer.prepare(image), observations: Self.lines([line], size: image.size))
        #expect(inked.text == "Emmett Warbeck — Parent")
    }

    @Test func aGridsLinesAreNoInkForAWord() throws {
        var image = Self.page()
        _ = Self.grid(&image, x: 120, y: 150, columns: [0, 220, 480, 700], rows: 4, rowHeight: 60, degrees: 0)
        let page = analyzer.prepare(image)
        let grid = try #require(page.grids.first)
        // A box across the rule between the first two columns of row 1 (x = 340), and nothing else.
        let box = PixelRect(x: 330, y: 230, width: 20, height: 20)
        #expect(page.ink.holdsInk(in: box))
        #expect(!page.ink.holdsInk(in: box, excluding: [Int32(grid.component)]))
    }

    @Test func aNumberReadApartFromItsFullStopIsOneMarker() throws {
        var image = Self.page()
        // "1" and "." read as two words, the stop just after the number; "3." as one.
        let rows: [[(String, PixelRect)]] = [
            [("1", PixelRect(x: 100, y: 100, width: 10, height: 22)), (".", PixelRect(x: 112, y: 114, width: 5, height: 8)),
             ("Sign", PixelRect(x: 130, y: 100, width: 56, height: 22)), ("here", PixelRect(x: 198, y: 100, width: 56, height: 22))],
            [("2", PixelRect(x: 100, y: 136, width: 10, height: 22)), (".", PixelRect(x: 112, y: 150, width: 5, height: 8)),
             ("Pay", PixelRect(x: 130, y: 136, width: 42, height: 22)), ("dues", PixelRect(x: 184, y: 136, width: 56, height: 22))],
            [("3.", PixelRect(x: 100, y: 172, width: 17, height: 22)), ("Collect", PixelRect(x: 130, y: 172, width: 98, height: 22))],
        ]
        Self.print(&image, under: rows)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1 && list.marker == .number)
        #expect(list.items.map(\.marker) == ["1.", "2.", "3."])
        #expect(list.items.map(\.text) == ["Sign here", "Pay dues", "Collect"])
    }

    /// Rows of a marker at x = 100 and its text at x = 130, 36 apart, from y = 100; each
    /// (marker, text) pair in turn.
    static func items(_ items: [(String, String)]) -> [[(String, PixelRect)]] {
        items.enumerated().map { index, item in
            let y = 100 + 36 * index
            return [(item.0, PixelRect(x: 100, y: y, width: 8 * item.0.count + 4, height: 22)),
                    (item.1, PixelRect(x: 130, y: y, width: 14 * item.1.count, height: 22))]
        }
    }

    @Test func anItemWhoseMarkerWasMisreadStaysInItsList() throws {
        // "5" without its stop, "N" for "2.", "c" for "c)", "<2)" for "2)", "y" for "▪": placed as the items'
        // markers and text, each is the next item, its marker the next in the list.
        for (read, markers) in [
            ([("1.", "Sign"), ("N", "Pay"), ("3.", "Collect"), ("4.", "Leave"), ("5", "Return")], ["1.", "2.", "3.", "4.", "5."]),
            ([("a)", "Sign"), ("b)", "Pay"), ("c", "Collect")], ["a)", "b)", "c)"]),
            ([("1)", "Sign"), ("<2)", "Pay"), ("3)", "Collect")], ["1)", "2)", "3)"]),
            ([("▪", "Sign"), ("y", "Pay"), ("▪", "Collect")], ["▪", "▪", "▪"]),
        ] {
            var image = Self.page()
            let rows = Self.items(read)
            Self.print(&image, under: rows)
            let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
            let list = try #require(document.lists.first)
            #expect(document.lists.count == 1)
            #expect(list.items.map(\.marker) == markers)
            #expect(list.items.map(\.text) == read.map(\.1))
        }
    }

    @Test func aSquareBulletSwollenByBlurAndReadAsASymbolIsABullet() throws {
        // Square bullets read as "@", "8" and "@": solid marks 17 pixels square in rows of words
        // 22 high, taller than the three quarters of the row a small bullet stands in, but
        // square and all ink. As tall as the row's words (22), the same marks are letters.
        func document(side: Int, width: Int? = nil, hollow: Bool = false) -> DocumentObservation {
            var rows = Self.items([("@", "Sign"), ("8", "Pay"), ("@", "Collect")])
            var image = Self.page()
            Self.print(&image, under: rows.map { Array($0.dropFirst()) })
            for index in rows.indices {
                let mark = PixelRect(x: 100, y: 100 + 36 * index + (22 - side) / 2, width: width ?? side, height: side)
                for y in mark.y..<mark.maxY {
                    for x in mark.x..<mark.maxX where !hollow || min(x - mark.x, mark.maxX - 1 - x, y - mark.y, mark.maxY - 1 - y) < 3 {
                        image[x, y, 0] = 40
                    }
                }
                rows[index][0].1 = mark
            }
            return analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        }
        let list = try #require(document(side: 17).lists.first)
        #expect(list.marker == .bullet)
        #expect(list.items.map(\.marker) == ["•", "•", "•"])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
        // As tall as the words, a ring of ink 3 wide (a letter's strokes), or half as wide as
        // high (a blurred digit), the marks are no bullets.
        #expect(document(side: 22).lists.isEmpty)
        #expect(document(side: 17, hollow: true).lists.isEmpty)
        #expect(document(side: 17, width: 8).lists.isEmpty)
    }

    @Test func aBulletWhereANumberedListsNextMarkerStandsIsThatMarkerMisread() throws {
        // "2." read as ">": a bullet by its reading, but it stands where the numbers do, its
        // text where theirs starts, so it is the list's second marker. The items stand 70
        // pixels apart (48 between rows of words 22 high), wider than a misread marker's 1.5
        // row heights but within the 2.5 the list's own items may stand apart.
        let rows = [("1.", "Sign"), (">", "Pay"), ("3.", "Collect")].enumerated().map { index, item in
            let y = 100 + 70 * index
            return [(item.0, PixelRect(x: 100, y: y, width: 8 * item.0.count + 4, height: 22)), (item.1, PixelRect(x: 130, y: y, width: 14 * item.1.count, height: 22))]
        }
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["1.", "2.", "3."])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
        // Two bullets after two numbers, placed alike: a list of bullets after the numbered one.
        let two = [("1.", "Install"), ("2.", "Run"), ("•", "Note"), ("•", "Rest")].enumerated().map { index, item in
            let y = 100 + 70 * index
            return [(item.0, PixelRect(x: 100, y: y, width: 8 * item.0.count + 4, height: 22)), (item.1, PixelRect(x: 130, y: y, width: 14 * item.1.count, height: 22))]
        }
        let lists = printedAndRead(two).lists
        #expect(lists.map { $0.items.map(\.marker) } == [["1.", "2."], ["•", "•"]])
    }

    @Test func aMarkersStopReadAgainAfterItIsPartOfTheMarker() throws {
        // The first item read as "a." and "." (the stop twice: the marker's box, then the stop
        // alone, 2 pixels after it, 6 by 8) before its text: the marker is "a.", the text "Sign".
        var rows = Self.items([("a.", "Sign"), ("b.", "Pay"), ("c.", "Collect")])
        rows[0] = [("a.", PixelRect(x: 100, y: 100, width: 12, height: 22)), (".", PixelRect(x: 114, y: 112, width: 6, height: 8)), rows[0][1]]
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["a.", "b.", "c."])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
    }

    @Test func aFullStopLowOnItsRowWhereMarkersStandIsTheNextItemsMarker() throws {
        // Four items, then a row whose "5" was not read: its stop alone (a solid 6 × 8 mark
        // at the foot of the row, between the markers' edge and the text) is the fifth marker,
        // not a bullet starting a list of its own.
        var rows = Self.items([("1.", "Sign"), ("2.", "Pay"), ("3.", "Collect"), ("4.", "Leave")])
        var image = Self.page()
        Self.print(&image, under: rows)
        let stop = PixelRect(x: 112, y: 100 + 36 * 4 + 14, width: 6, height: 8)
        for y in stop.y..<stop.maxY { for x in stop.x..<stop.maxX { image[x, y, 0] = 40 } }
        let text = ("Return", PixelRect(x: 130, y: 100 + 36 * 4, width: 84, height: 22))
        Self.print(&image, under: [[text]])
        rows.append([(".", stop), text])
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["1.", "2.", "3.", "4.", "5."])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect", "Leave", "Return"])
    }

    @Test func aListsFirstItemWhoseMarkerWasMisreadOrDroppedStartsIt() throws {
        // The list reads from "2." or "b)": the line above it is its first item, whether its
        // marker was read as "L_" where the markers stand or not read at all (its text where
        // the items' text starts); its marker is the one before the list's first.
        let lettered = Self.items([("a)", "Sign"), ("b)", "Pay"), ("c)", "Collect")])
        for (rows, markers) in [
            (Self.items([("L_", "Sign"), ("2.", "Pay"), ("3.", "Collect")]), ["1.", "2.", "3."]),
            ([Array(lettered[0].dropFirst())] + lettered.dropFirst(), ["a)", "b)", "c)"]),
        ] {
            let document = printedAndRead(rows)
            let list = try #require(document.lists.first)
            #expect(document.lists.count == 1)
            #expect(list.items.map(\.marker) == markers)
            #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
            #expect(document.paragraphs.isEmpty)
        }
        // A list of bullets takes the line above only when a misread marker ("gs" for "▪") starts it.
        let bullets = Self.items([("gs", "Sign"), ("▪", "Pay"), ("▪", "Collect")])
        for (rows, items) in [(bullets, ["Sign", "Pay", "Collect"]), ([Array(bullets[0].dropFirst())] + bullets.dropFirst(), ["Pay", "Collect"])] {
            var page = Self.page()
            Self.print(&page, under: rows)
            let document = analyzer.assemble(analyzer.prepare(page), observations: Self.lines(rows, size: page.size))
            #expect(document.lists.first?.items.map(\.marker) == items.map { _ in "▪" })
            #expect(document.lists.first?.items.map(\.text) == items)
        }
        // A line of prose above a list from "2.", starting where the markers stand: no item.
        var image = Self.page()
        let rows = [[("Terms", PixelRect(x: 100, y: 64, width: 70, height: 22)), ("apply", PixelRect(x: 182, y: 64, width: 70, height: 22))]]
            + Self.items([("2.", "Pay"), ("3.", "Collect")])
        Self.print(&image, under: rows)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        #expect(document.lists.first?.items.map(\.marker) == ["2.", "3."])
        #expect(document.paragraphs.map(\.text) == ["Terms apply"])
    }

    @Test func itemsWhoseMarkersWereDroppedLieBetweenTheNumbersAroundThem() throws {
        // Items 50 pixels apart (words 22 high): "1." and "2.", then three lines at the items'
        // text edge without markers (the last two 26 apart, one item's two lines), then "5.":
        // items 3 and 4.
        func row(_ y: Int, _ marker: String?, _ text: String) -> [(String, PixelRect)] {
            (marker.map { [($0, PixelRect(x: 100, y: y, width: 20, height: 22))] } ?? []) + [(text, PixelRect(x: 130, y: y, width: 14 * text.count, height: 22))]
        }
        let rows = [row(100, "1.", "Sign"), row(150, "2.", "Pay"), row(200, nil, "Collect"), row(250, nil, "Leave"), row(276, nil, "early"), row(326, "5.", "Return")]
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["1.", "2.", "3.", "4.", "5."])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect", "Leave early", "Return"])
        #expect(document.paragraphs.isEmpty)
        // Fewer lines than the markers skipped: the list ends before them, and they and the
        // lone "6." item stay the paragraph the recognizer gave.
        let short = [row(100, "1.", "Sign"), row(150, "2.", "Pay"), row(200, nil, "Collect"), row(250, "6.", "Return")]
        var page = Self.page()
        Self.print(&page, under: short)
        let apart = analyzer.assemble(analyzer.prepare(page), observations: Self.lines(short, size: page.size))
        #expect(apart.lists.first?.items.map(\.marker) == ["1.", "2."])
        #expect(apart.paragraphs.map(\.text) == ["Collect 6. Return"])
    }

    @Test func aSolidLetterWhereTheItemsTextStartsContinuesTheItem() throws {
        // Item 1's second line starts with "a", printed solid (as a bold letter blurred): by
        // its fill it could be a bullet, but it stands where the item's text starts.
        let rows: [[(String, PixelRect)]] = [
            [("1.", PixelRect(x: 100, y: 100, width: 20, height: 22)), ("Sign", PixelRect(x: 130, y: 100, width: 56, height: 22))],
            [("a", PixelRect(x: 130, y: 142, width: 12, height: 14)), ("copy", PixelRect(x: 150, y: 136, width: 56, height: 22))],
            [("2.", PixelRect(x: 100, y: 172, width: 20, height: 22)), ("Pay", PixelRect(x: 130, y: 172, width: 42, height: 22))],
        ]
        var image = Self.page()
        Self.print(&image, under: rows)
        for y in 142..<156 { for x in 130..<142 { image[x, y, 0] = 40 } }
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["1.", "2."])
        #expect(list.items.map(\.text) == ["Sign a copy", "Pay"])
    }

    @Test func aRowAfterAnItemsShortLastLineIsTheNextItemItsMarkerDropped() throws {
        // Dashed items (words 22 high, 10 apart): the first wraps onto a second line, the
        // second ends short, and the row after it, at the items' text edge, has no marker (a
        // faint dash not read): its first word would have fitted on the line above, so that
        // line ended a paragraph, and the row is the next item. The first item's second line,
        // whose first word would not have fitted, continues it.
        func row(_ y: Int, _ marker: String?, _ text: String) -> [(String, PixelRect)] {
            var x = 130
            var words: [(String, PixelRect)] = []
            for word in text.split(separator: " ").map(String.init) {
                words.append((word, PixelRect(x: x, y: y, width: 14 * word.count, height: 22)))
                x += 14 * word.count + 10
            }
            return (marker.map { [($0, PixelRect(x: 100, y: y + 7, width: 16, height: 8))] } ?? []) + words
        }
        let rows = [
            row(100, "–", "Write a letter to the committee about the annual"), row(130, nil, "meeting soon"),
            row(170, "–", "Pay the fee"), row(200, nil, "Collect your badge"), row(240, "–", "Leave early"),
        ]
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["–", "–", "–", "–"])
        #expect(list.items.map(\.text) == ["Write a letter to the committee about the annual meeting soon", "Pay the fee", "Collect your badge", "Leave early"])
        #expect(document.paragraphs.isEmpty)
        // A row of one word there is a speck read as a letter as often as an item: it stays the item's.
        let speck = [row(100, "–", "Write a letter to the committee about the annual"), row(170, "–", "Pay the fee"), row(200, nil, "A"), row(240, "–", "Leave early")]
        let kept = printedAndRead(speck)
        #expect(kept.lists.first?.items.map(\.text) == ["Write a letter to the committee about the annual", "Pay the fee A", "Leave early"])
    }

    @Test func aMarkersLastPartReadAloneStartsAnItem() throws {
        // "2)" read as ")" alone, 15 pixels right of where markers start: its text starts where
        // the items' text does.
        var rows = Self.items([("1)", "Sign"), ("", "Pay"), ("3)", "Collect")])
        rows[1][0] = (")", PixelRect(x: 115, y: 136, width: 6, height: 22))
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(list.items.map(\.marker) == ["1)", "2)", "3)"])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
    }

    @Test func aMisreadMarkerIsFoundInAListThatDriftsAcrossThePage() throws {
        // A page photographed at an angle: each row's marker and text 15 pixels right of the
        // row above (over half a row's height), the third marker read as "©.".
        let read = [("a.", "Sign"), ("b.", "Pay"), ("©.", "Collect"), ("d.", "Leave")]
        let rows = read.enumerated().map { index, item -> [(String, PixelRect)] in
            let (x, y) = (100 + 15 * index, 100 + 36 * index)
            return [(item.0, PixelRect(x: x, y: y, width: 20, height: 22)), (item.1, PixelRect(x: x + 30, y: y, width: 14 * item.1.count, height: 22))]
        }
        let document = printedAndRead(rows)
        let list = try #require(document.lists.first)
        #expect(document.lists.count == 1)
        #expect(list.items.map(\.marker) == ["a.", "b.", "c.", "d."])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect", "Leave"])
    }

    /// Rows of two words at x = 130 (22 pixels high, 36 apart, from y = 100), printed, with a
    /// mark of ink `width` × `height` pixels ending 12 pixels left of each row's text, centred
    /// on the row, that no word read covers; and, when `before` is set, a character's block of
    /// ink 20 pixels left of each mark.
    static func unreadMarkers(width: Int, height: Int, before: Bool = false) -> (PixelBuffer<UInt8>, [[(String, PixelRect)]]) {
        var image = Self.page()
        let rows = [("Bring", "gloves"), ("Water", "beds"), ("Return", "tools")].enumerated().map { index, words in
            [(words.0, PixelRect(x: 130, y: 100 + 36 * index, width: 14 * words.0.count, height: 22)),
             (words.1, PixelRect(x: 150 + 14 * words.0.count, y: 100 + 36 * index, width: 14 * words.1.count, height: 22))]
        }
        Self.print(&image, under: rows)
        for index in 0..<rows.count {
            let middle = 100 + 36 * index + 11
            for y in (middle - height / 2)..<(middle - height / 2 + height) {
                for x in (118 - width)..<118 { image[x, y, 0] = 40 }
                if before { for x in (98 - width - 10)..<(98 - width) { image[x, y, 0] = 40 } }
            }
        }
        return (image, rows)
    }

    @Test func aListWhoseMarkersTheRecognizerDroppedIsFoundFromTheirInk() throws {
        // Squares of 8 × 8 pixels: bullets; dashes of 12 × 3: dashes; and hairline dashes of
        // 12 × 2 and 12 × 1 (under a tenth of the words' 22 pixels high, but over a third of
        // it wide: a light font's dash).
        // Squares of 18 × 18, nearly the words' height (a large square bullet, grown by a
        // photo's blur): bullets too.
        for (size, marker) in [((8, 8), "•"), ((18, 18), "•"), ((12, 3), "–"), ((12, 2), "–"), ((12, 1), "–")] {
            let (image, rows) = Self.unreadMarkers(width: size.0, height: size.1)
            let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
            let list = try #require(document.lists.first)
            #expect(document.lists.count == 1 && list.marker == .bullet)
            #expect(list.items.map(\.marker) == [marker, marker, marker])
            #expect(list.items.map(\.text) == ["Bring gloves", "Water beds", "Return tools"])
            #expect(document.paragraphs.isEmpty)
        }
    }

    @Test func aBarAlmostAsTallAsTheWordsIsNoMarker() {
        // Bars of 6 × 18 pixels before words 22 high: a table's "1", not a bullet (a square
        // of that height is one).
        let (image, rows) = Self.unreadMarkers(width: 6, height: 18)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        #expect(document.lists.isEmpty)
        #expect(document.paragraphs.map(\.text) == ["Bring gloves Water beds Return tools"])
    }

    @Test func aMarkOfInkWithInkJustLeftOfItIsNoMarker() {
        // The same squares, each with ink 20 pixels to its left: the rest of a word not read.
        let (image, rows) = Self.unreadMarkers(width: 8, height: 8, before: true)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        #expect(document.lists.isEmpty)
        #expect(document.paragraphs.map(\.text) == ["Bring gloves Water beds Return tools"])
    }

    @Test func aShortWordWhereMarkersStandIsNoItemUnlessItsTextIsWhereTheirsIs() throws {
        var image = Self.page()
        // After two items, "In" where their markers stand, its next word at x = 150, not where
        // their text starts (130): a line of prose.
        var rows = Self.items([("1.", "Sign"), ("2.", "Pay")])
        rows.append([("In", PixelRect(x: 100, y: 172, width: 20, height: 22)), ("short", PixelRect(x: 150, y: 172, width: 70, height: 22))])
        Self.print(&image, under: rows)
        let document = analyzer.assemble(analyzer.prepare(image), observations: Self.lines(rows, size: image.size))
        let list = try #require(document.lists.first)
        #expect(list.items.map(\.text) == ["Sign", "Pay"])
        #expect(document.paragraphs.map(\.text) == ["In short"])
        // A word of three letters is a word, even where a marker and its text would stand.
        var word = Self.page()
        var then = Self.items([("1.", "Sign"), ("2.", "Pay")])
        then.append([("The", PixelRect(x: 100, y: 172, width: 24, height: 22)), ("end", PixelRect(x: 130, y: 172, width: 42, height: 22))])
        Self.print(&word, under: then)
        let ended = analyzer.assemble(analyzer.prepare(word), observations: Self.lines(then, size: word.size))
        #expect(ended.lists.first?.items.map(\.text) == ["Sign", "Pay"])
        #expect(ended.paragraphs.map(\.text) == ["The end"])
    }

    @Test func aColumnOfLinesReadAsOneWordIsDropped() {
        var image = Self.page()
        // Four lines of a number and a word; the numbers read down the page as one word.
        let lines = (0..<4).map { Self.ink(&image, x: 100, y: 100 + 36 * $0, words: [1, 6]) }
        let stacked = PixelRect(x: 100, y: 100, width: 10, height: 3 * 36 + 16)
        let observations = Self.lines([[("BWN", stacked)]] + lines.map { [("Lorem", $0[1])] }, size: image.size)
        let page = analyzer.prepare(image)
        #expect(page.ink.isStacked(observations[0].words[0]))
        #expect(analyzer.assemble(page, observations: observations).text == "Lorem Lorem Lorem Lorem")
        // Characters 16 pixels tall: a word 48 tall and 24 wide is one; a letter, or a word as
        // wide as half its height, or under three characters tall, is not.
        func word(_ text: String, _ width: Int, _ height: Int) -> RecognizedWord {
            RecognizedWord(text: RecognizedText(string: text, confidence: 0.9), pixelBox: PixelRect(x: 0, y: 0, width: width, height: height), imageSize: image.size)
        }
        #expect(page.ink.isStacked(word("23", 24, 48)))
        #expect(!page.ink.isStacked(word("A", 10, 124)))
        #expect(!page.ink.isStacked(word("Big", 25, 48)))
        #expect(!page.ink.isStacked(word("two", 10, 47)))
    }

    @Test func linesThePageReadingMissedAreReadAloneCellByCell() {
        var image = Self.page()
        // Read by the page: a line of three words.
        let read = Self.ink(&image, x: 100, y: 100, words: [5, 4, 6])
        // Missed: a table row of two cells far apart, and a line of one long word.
        let left = Self.ink(&image, x: 100, y: 200, words: [6, 3])
        let right = Self.ink(&image, x: 600, y: 200, words: [5])
        let word = Self.ink(&image, x: 300, y: 300, words: [7])
        // Missed but no line: one character alone.
        _ = Self.ink(&image, x: 800, y: 400, words: [1])
        let page = analyzer.prepare(image)
        let observations = Self.lines([read.enumerated().map { ("w\($0.offset)", $0.element) }], size: image.size)
        let lines = page.linesToRead(after: observations)
        #expect(lines.count == 3)
        // Each around its ink, padded by about half a character, top to bottom and left to right.
        for (line, ink) in zip(lines, [left[0].union(left[1]), right[0], word[0]]) {
            #expect(line.x < ink.x && line.x >= ink.x - 14 && line.maxX > ink.maxX && line.maxX <= ink.maxX + 14)
            #expect(line.y < ink.y && line.y >= ink.y - 10 && line.maxY > ink.maxY && line.maxY <= ink.maxY + 10)
        }
        // Read alone, each line is a paragraph; a word the page had already read is not
        // repeated, nor one read with a confidence under `lineWordConfidence` (0.7).
        func words(_ items: [(String, PixelRect)], confidence: Double = 0.9) -> [RecognizedWord] {
            items.map { RecognizedWord(text: RecognizedText(string: $0.0, confidence: confidence), pixelBox: $0.1, imageSize: image.size) }
        }
        let document = analyzer.assemble(
            page, observations: observations,
            lineWords: [
                words([("left", left[0]), ("cell", left[1])]), words([("right", right[0]), ("again", read[1])]),
                words([("alone", word[0])]) + words([("rnmwe", PixelRect(x: 420, y: 300, width: 40, height: 16))], confidence: 0.69),
            ])
        #expect(document.paragraphs.map(\.text) == ["w0 w1 w2", "left cell", "right", "alone"])
        #expect(document.text == "w0 w1 w2\nleft cell\nright\nalone")
    }

    @Test func aListsMarkersThePageMissedAreReadAlone() throws {
        var image = Self.page()
        // Three rows the page read, each after a marker of two pieces ("1)") 12 pixels left of
        // its text; of the first marker the page read only the second piece, as ".".
        var markers: [PixelRect] = []
        var rows: [[(String, PixelRect)]] = []
        for (index, text) in ["Sign", "Pay", "Collect"].enumerated() {
            let y = 100 + 40 * index
            markers += Self.ink(&image, x: 60, y: y, words: [2])
            rows.append([(text, Self.ink(&image, x: 96, y: y, words: [text.count])[0])])
        }
        rows[0].insert((".", PixelRect(x: 74, y: 100, width: 10, height: 16)), at: 0)
        // Rows whose short word unread follows a word read on its row (a column of them) hold no marker.
        let prose = (0..<3).map { Self.ink(&image, x: 400, y: 300 + 40 * $0, words: [5, 2, 4]) }
        let page = analyzer.prepare(image)
        let observations = Self.lines(rows + prose.map { [("words", $0[0]), ("more", $0[2])] }, size: image.size)
        let regions = page.charactersToRead(after: observations)
        #expect(regions.count == 3)
        for (region, marker) in zip(regions, markers) {
            #expect(region.x < marker.x && region.maxX > marker.x + 10 && region.y < marker.y && region.maxY > marker.maxY)
        }
        // Read alone, each is its row's marker; the page's "." under the first gives way.
        let read = zip(["1)", "2)", "3)"], markers).map { RecognizedWord(text: RecognizedText(string: $0, confidence: 0.9), pixelBox: $1, imageSize: image.size) }
        let document = analyzer.assemble(page, observations: observations, cellWords: read)
        let list = try #require(document.lists.first)
        #expect(list.items.map(\.marker) == ["1)", "2)", "3)"])
        #expect(list.items.map(\.text) == ["Sign", "Pay", "Collect"])
        // Two such markers in a column are not enough.
        var two = Self.page()
        var pairs: [[(String, PixelRect)]] = []
        for index in 0..<2 {
            _ = Self.ink(&two, x: 60, y: 100 + 40 * index, words: [2])
            pairs.append([("Sign", Self.ink(&two, x: 96, y: 100 + 40 * index, words: [4])[0])])
        }
        #expect(analyzer.prepare(two).charactersToRead(after: Self.lines(pairs, size: two.size)).isEmpty)
    }

    @Test func loneCharactersInAColumnAreReadAsCells() {
        var image = Self.page()
        // Rows the page read (a name and a phone number each), and before each a row number
        // it missed: one character alone, in a column. Elsewhere a lone mark the page missed.
        var read: [[PixelRect]] = []
        var numbers: [PixelRect] = []
        for row in 0..<4 {
            let y = 100 + 40 * row
            numbers += Self.ink(&image, x: 60, y: y, words: [1])
            read.append(Self.ink(&image, x: 120, y: y, words: [5, 4]) + Self.ink(&image, x: 400, y: y, words: [7]))
        }
        let speck = Self.ink(&image, x: 800, y: 500, words: [1])
        let page = analyzer.prepare(image)
        let observations = Self.lines(read.map { $0.map { ("w", $0) } }, size: image.size)
        // No line: each number is one narrow piece.
        #expect(page.linesToRead(after: observations).isEmpty)
        let characters = page.charactersToRead(after: observations)
        #expect(characters.count == 4)
        // Each around its number, padded by about half a character, top to bottom.
        for (box, number) in zip(characters, numbers) {
            #expect(box.x < number.x && box.x >= number.x - 14 && box.maxX > number.maxX && box.maxX <= number.maxX + 14)
            #expect(box.y < number.y && box.y >= number.y - 10 && box.maxY > number.maxY && box.maxY <= number.maxY + 10)
        }
        #expect(!characters.contains { $0.contains(x: speck[0].centerX, y: speck[0].centerY) })
        // Two in a column are not enough.
        var two = Self.page()
        var pairs: [[PixelRect]] = []
        for row in 0..<2 {
            _ = Self.ink(&two, x: 60, y: 100 + 40 * row, words: [1])
            pairs.append(Self.ink(&two, x: 120, y: 100 + 40 * row, words: [5, 4]))
        }
        #expect(analyzer.prepare(two).charactersToRead(after: Self.lines(pairs.map { $0.map { ("w", $0) } }, size: two.size)).isEmpty)
    }

    @Test func aPageReadWholeHasNoLinesToRead() {
        var image = Self.page()
        let boxes = Self.ink(&image, x: 100, y: 100, words: [5, 4]) + Self.ink(&image, x: 100, y: 160, words: [3, 8])
        let page = analyzer.prepare(image)
        #expect(page.linesToRead(after: Self.lines([Array(boxes.prefix(2)), Array(boxes.suffix(2))].map { $0.map { ("w", $0) } }, size: image.size)).isEmpty)
        // A word whose box left out its last three letters (a line's faint end): its rest is
        // no line of its own, but is read with the word and the row's words before it.
        var cut = boxes
        cut[3].width -= 3 * 14
        let rest = page.linesToRead(after: Self.lines([Array(cut.prefix(2)), Array(cut.suffix(2))].map { $0.map { ("w", $0) } }, size: image.size))
        #expect(rest.count == 1)
        #expect(rest.first.map { $0.x < cut[2].x && $0.maxX > boxes[3].maxX && $0.y > boxes[0].maxY } == true)
        // Three letters a cell's gap (over a character height) after a word read are.
        var row = Self.page()
        let read = Self.ink(&row, x: 100, y: 100, words: [5])
        let unread = Self.ink(&row, x: 200, y: 100, words: [3])
        let lines = analyzer.prepare(row).linesToRead(after: Self.lines([[("w", read[0])]], size: row.size))
        #expect(lines.count == 1 && lines.first.map { $0.x < unread[0].x && $0.maxX > unread[0].maxX && $0.x > read[0].maxX } == true)
    }

    @Test func aRowThePageReadOnlyPartOfIsReadWholeAndTheSurerReadingKept() throws {
        var image = Self.page()
        let first = Self.ink(&image, x: 100, y: 60, words: [5, 3])
        let row = Self.ink(&image, x: 100, y: 100, words: [2, 7, 2, 3])
        let page = analyzer.prepare(image)
        // The page's reading: the first line whole, and of the second only its last word.
        func observation(_ words: [(String, PixelRect)], confidence: Double) -> RecognizedTextObservation {
            let recognized = words.map { RecognizedWord(text: RecognizedText(string: $0.0, confidence: confidence), pixelBox: $0.1, imageSize: image.size) }
            return RecognizedTextObservation(
                candidates: [RecognizedText(string: words.map(\.0).joined(separator: " "), confidence: confidence)],
                pixelBox: words.map(\.1).dropFirst().reduce(words[0].1) { $0.union($1) }, imageSize: image.size, words: recognized, block: 0, paragraph: 0)
        }
        let observations = [observation([("Lines", first[0]), ("are", first[1])], confidence: 0.9), observation([("tke", row[3])], confidence: 0.4)]
        // The unread words run up to the word read (a word space before it, not the rest of
        // a word), and the row is read whole, that word too.
        let lines = page.linesToRead(after: observations)
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.x < row[0].x && line.maxX > row[3].maxX && line.y > first[0].maxY)
        func reading(_ confidence: Double) -> [[RecognizedWord]] {
            [zip(["No", "attempt", "is", "the"], row).map { RecognizedWord(text: RecognizedText(string: $0, confidence: confidence), pixelBox: $1, imageSize: image.size) }]
        }
        // Surer on average than the page: the row's reading replaces the page's word, in its paragraph.
        let whole = analyzer.assemble(page, observations: observations, lineWords: reading(0.5))
        #expect(whole.paragraphs.map(\.text) == ["Lines are No attempt is the"])
        // Less sure: the page's word stays, and of the row's reading only words read at
        // `lineWordConfidence` or more would be added beside it (none here).
        let kept = analyzer.assemble(page, observations: observations, lineWords: reading(0.3))
        #expect(kept.paragraphs.map(\.text) == ["Lines are tke"])
    }

    @Test func aRowReadOnWhereThePageStoppedIsKeptThoughLessSure() throws {
        var image = Self.page()
        let row = Self.ink(&image, x: 100, y: 100, words: [4, 12])
        // The page read the row up to where its print faded, surely: the second word's box
        // leaves out its last four letters.
        var stopped = row
        stopped[1].width -= 4 * 14
        let page = analyzer.prepare(image)
        let observations = Self.lines([[("Mail", stopped[0]), ("info@exam", stopped[1])]], size: image.size)
        let lines = page.linesToRead(after: observations)
        #expect(lines.count == 1)
        func reading(_ words: [String], confidence: Double) -> [[RecognizedWord]] {
            [zip(words, row).map { RecognizedWord(text: RecognizedText(string: $0, confidence: confidence), pixelBox: $1, imageSize: image.size) }]
        }
        // Read alone, the row reads on, less surely than the page (0.9 in `lines`): its reading is kept.
        let readOn = analyzer.assemble(page, observations: observations, lineWords: reading(["Mail", "info@example.com"], confidence: 0.4))
        #expect(readOn.paragraphs.map(\.text) == ["Mail info@example.com"])
        // A reading that differs before where the page stopped is not reading on: the surer page stays.
        let other = analyzer.assemble(page, observations: observations, lineWords: reading(["Mail", "info@oxample.com"], confidence: 0.4))
        #expect(other.paragraphs.map(\.text) == ["Mail info@exam"])
    }

    @Test func theRestOfALineReadAloneJoinsTheLineThePageBrokeOff() {
        // One run of print: letters 10 px wide at a 14 px pitch, 16 px tall; a second run far off.
        var image = Self.page()
        _ = Self.ink(&image, x: 100, y: 100, words: [7])
        _ = Self.ink(&image, x: 400, y: 100, words: [3])
        let page = analyzer.prepare(image)
        let letters = { (first: Int, count: Int, x: Int) in PixelRect(x: x + 14 * first, y: 100, width: 14 * count - 4, height: 16) }
        // The page read the first four letters as a word and the fifth alone, surer (0.9) than
        // the line read alone (0.8): the line's rest does not replace them.
        let observations = Self.lines([[("need", letters(0, 4, 100)), ("s", letters(4, 1, 100))]], size: image.size)
        func assembled(_ alone: [(String, PixelRect)]) -> [String] {
            let words = alone.map { RecognizedWord(text: RecognizedText(string: $0.0, confidence: 0.8), pixelBox: $0.1, imageSize: image.size) }
            let region = alone.map(\.1).dropFirst().reduce(alone[0].1) { $0.union($1) }
            return analyzer.assemble(page, observations: observations, lineWords: [words], lineRegions: [region]).paragraphs.map(\.text)
        }
        // Read alone, the end of the run continues the page's line; the "s" under "set" was the same print.
        #expect(assembled([("set", letters(4, 3, 100))]) == ["need set"])
        // A speck read as one character continues nothing, nor does a line standing apart.
        #expect(assembled([("1", letters(5, 2, 100))]) == ["need s", "1"])
        #expect(assembled([("cat", letters(0, 3, 400))]) == ["need s", "cat"])
        // The rule alone: a word dropped from a line's middle fits the gap it left; one the
        // line's words run across does not.
        let placed = [("need", letters(0, 4, 100)), ("the", letters(5, 3, 100))].map { PlacedWord(text: $0.0, box: $0.1, block: 0, paragraph: 0, line: 0) }
        #expect(DocumentAnalyzer.lineContinued(by: [("to", letters(4, 1, 100))], in: placed)?.text == "need")
        #expect(DocumentAnalyzer.lineContinued(by: [("to", letters(4, 2, 100))], in: placed) == nil)
    }

    @Test func aWordReadUnsurelyBetweenTwoSureWordsOfALineReadAloneIsKept() {
        // A row of four words; the page read only the first ("the", at 0.9). Read alone, the
        // row reads on, its third word at 0.38, under `lineWordConfidence`, between two words
        // read at 0.8 or more a word space away: a word the page dropped, kept. The same word
        // at the row's end, with nothing sure after it, is dropped as a piece of print read at random.
        var image = Self.page()
        let row = Self.ink(&image, x: 100, y: 100, words: [3, 7, 8, 4])
        let page = analyzer.prepare(image)
        let observations = Self.lines([[("the", row[0])]], size: image.size)
        func assembled(_ alone: [(String, Double)]) -> [String] {
            let words = zip(alone, row).map { RecognizedWord(text: RecognizedText(string: $0.0, confidence: $0.1), pixelBox: $1, imageSize: image.size) }
            let region = row.prefix(alone.count).dropFirst().reduce(row[0]) { $0.union($1) }
            return analyzer.assemble(page, observations: observations, lineWords: [words], lineRegions: [region]).paragraphs.map(\.text)
        }
        #expect(assembled([("the", 0.9), ("netlink", 0.8), ("protocol", 0.38), ("does", 0.9)]) == ["the", "netlink protocol does"])
        #expect(assembled([("the", 0.9), ("netlink", 0.8), ("protocol", 0.38)]) == ["the", "netlink"])
        // Flanked by the page's own word ("the", read alone at 0.5) and a sure one: kept too.
        #expect(assembled([("the", 0.5), ("netlink", 0.38), ("protocol", 0.9)]) == ["the", "netlink protocol"])
        // 20 pixels from the word after it, more than the words' height (16): not flanked.
        var apart = Self.page()
        let spread = Self.ink(&apart, x: 100, y: 100, words: [3, 7]) + Self.ink(&apart, x: 264, y: 100, words: [8, 4])
        let spreadPage = analyzer.prepare(apart)
        let alone = zip([("the", 0.9), ("netlink", 0.38), ("protocol", 0.9), ("does", 0.9)], spread).map {
            RecognizedWord(text: RecognizedText(string: $0.0, confidence: $0.1), pixelBox: $1, imageSize: apart.size)
        }
        let region = spread.dropFirst().reduce(spread[0]) { $0.union($1) }
        let document = analyzer.assemble(spreadPage, observations: Self.lines([[("the", spread[0])]], size: apart.size), lineWords: [alone], lineRegions: [region])
        #expect(!document.text.contains("netlink"))
    }

    /// A line in a shadow that deepens towards the page's edge (the light falling to half):
    /// with its paper made white, its paper reads white and its ink as dark along its whole
    /// length; the pixels outside the line stay as they were.
    @Test func aLineInAShadowIsReadWithItsPaperMadeWhite() throws {
        var image = Self.page()
        let words = Self.ink(&image, x: 100, y: 100, words: [5, 4, 6])
        for y in 0..<image.height {
            for x in 0..<400 {
                let light = 0.5 + 0.5 * Double(max(x - 60, 0)) / 340
                image[x, y, 0] = UInt8((Double(image[x, y, 0]) * light).rounded())
            }
        }
        let page = analyzer.prepare(image)
        #expect(page.geometry == nil)
        let region = PixelRect(x: 90, y: 92, width: 420, height: 32)
        let flattened = page.paperFlattened([region])
        var paper: [UInt8] = [], ink: [UInt8] = []
        for y in region.y..<region.maxY {
            for x in region.x..<region.maxX {
                if words.contains(where: { $0.contains(x: x, y: y) }) && page.cleaned[x, y, 0] < 100 { ink.append(flattened[x, y, 0]) }
                else if !words.contains(where: { PixelRect(x: $0.x - 2, y: $0.y - 2, width: $0.width + 4, height: $0.height + 4).contains(x: x, y: y) }) { paper.append(flattened[x, y, 0]) }
            }
        }
        // Before: the shaded paper at the line's start (about 125) is nearer the ink than the paper at its end (235).
        #expect(page.cleaned[95, 95, 0] <= 130 && page.cleaned[500, 95, 0] == 235)
        // After: ink 40 on paper 235 is 43 on 255, wherever the line lies (the paper's level
        // read a little high where the light rises across the window).
        #expect(try #require(paper.min()) >= 240)
        #expect(try #require(ink.min()) >= 38 && ink.max()! <= 48)
        #expect(flattened[50, 300, 0] == page.cleaned[50, 300, 0] && flattened[95, 200, 0] == page.cleaned[95, 200, 0])
    }

    /// The paper's level along a line: the largest value within half a window either side.
    @Test func theSlidingMaximumIsTheLargestWithinHalfAWindow() {
        #expect(PreparedPage.slidingMaximum([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], window: 3) == [3, 4, 4, 5, 9, 9, 9, 6, 6, 5])
        #expect(PreparedPage.slidingMaximum([7, 2, 2, 2, 2, 2, 2, 8], window: 5) == [7, 7, 7, 2, 2, 8, 8, 8])
        #expect(PreparedPage.slidingMaximum([5], window: 9) == [5])
        #expect(PreparedPage.slidingMaximum([], window: 3) == [])
        // Against the definition, on falling, rising and mixed runs of every window from 1 to 12.
        var generator = SeededGenerator(seed: 5)
        for window in 1...12 {
            for values in [Array((0..<40).reversed()), Array(0..<40), (0..<200).map { _ in Int.random(in: 0...20, using: &generator) }] {
                let half = window / 2
                let expected = values.indices.map { values[max(0, $0 - half)...min(values.count - 1, $0 + half)].max()! }
                #expect(PreparedPage.slidingMaximum(values, window: window) == expected, "window \(window)")
            }
        }
    }

    @Test func readingOnNeedsThePagesReadingAsItsStart() {
        #expect(DocumentAnalyzer.readsOn(["hendrix.osee@example.or"], from: ["hendrix.osee@exam"]))
        // The page's last character may be the misread start of what it could not read.
        #expect(DocumentAnalyzer.readsOn(["persia.ganges@example.com"], from: ["persia.ganges@exan"]))
        #expect(DocumentAnalyzer.readsOn(["Call", "555-0123", "today"], from: ["Call", "555-0123"]))
        // One character more is no reading on; nor is a reading that differs earlier, or a short start.
        #expect(!DocumentAnalyzer.readsOn(["example.org"], from: ["example.or"]))
        #expect(!DocumentAnalyzer.readsOn(["info@oxample.com"], from: ["info@exam"]))
        #expect(!DocumentAnalyzer.readsOn(["abcdef"], from: ["abc"]))
        // Nor is a speck beyond the page's reading read as marks.
        #expect(!DocumentAnalyzer.readsOn(["Total", "~~"], from: ["Total"]))
    }
}

/// The barcode reader on the committed codes (`Tests/Fixtures/document/`, made by zint).
@Suite("Barcodes")
struct BarcodeReaderTests {
    @Test(arguments: [
        ("qr", Barcode.Symbology.qr, "https://example.org/signup?id=42"), ("ean13", .ean13, "5901234123457"), ("ean8", .ean8, "96385074"),
        ("upca", .upca, "036000291452"), ("code128", .code128, "IMGQ-2026-0042"), ("code39", .code39, "PART 7731"),
    ])
    func eachSymbologyDecodesToItsPayload(name: String, symbology: Barcode.Symbology, payload: String) throws {
        let image = try ImageDecoder().decode(contentsOf: Fixtures.path("document/\(name).png")).luma.eightBit
        let codes = BarcodeReader().barcodes(in: image)
        #expect(codes.map(\.symbology) == [symbology])
        #expect(codes.map(\.payload) == [payload])
        let box = try #require(codes.first?.box)
        #expect(box.width > 0 && box.height > 0 && box.x + box.width <= image.width && box.y + box.height <= image.height)
    }

    /// A code as a phone photo shows it: each row blurred by a `box`-pixel box (6 by default;
    /// 2-pixel modules, so a narrow bar is a shallow dip beside deep wide ones), its levels
    /// (from 0 to 1) raised to the power `gamma` (above 1, the bars' ink spreads) and squeezed
    /// into `low`–230, on a page of level 230.
    static func photographed(_ name: String, box: Int = 6, low: Double = 100, gamma: Double = 1) throws -> PixelBuffer<UInt8> {
        let code = try ImageDecoder().decode(contentsOf: Fixtures.path("document/\(name).png")).luma.eightBit.packedLuma
        let (width, height) = (code.width + 200, max(300, code.height + 100))
        var samples = [UInt8](repeating: 230, count: width * height)
        for y in 0..<code.height {
            for x in 0..<code.width {
                // The box covers x − box/2 ... x + box − box/2 − 1, the row's ends repeated beyond it.
                var sum = 0
                for k in (x - box / 2)...(x + box - box / 2 - 1) { sum += Int(code.samples[y * code.width + min(max(k, 0), code.width - 1)]) }
                let level = low + pow(Double(sum) / Double(box) / 255, gamma) * (230 - low)
                samples[(y + 50) * width + x + 100] = UInt8(level.rounded())
            }
        }
        return PixelBuffer(width: width, height: height, channels: 1, samples: samples)
    }

    /// Phone photos of `Datasets/structure` (train split) whose EAN or UPC code ZBar misreads on
    /// the upright page, digits of a pair of twins swapped (2 and 8, 1 and 7; the check digit
    /// holds): read again from the code's crop, stretched and darkened alike, the payload is the
    /// printed one, and the code is reported once.
    @Test(arguments: [
        ("s029-form-0", Barcode.Symbology.ean13, "4001286824133", "4001826224133"),
        ("s059-pricelist-0", .upca, "025615847338", "085615847332"),
    ])
    func aMisreadRetailCodeIsReadAgainStretched(photo: String, symbology: Barcode.Symbology, misread: String, printed: String) throws {
        let decoded = try ImageDecoder().decode(contentsOf: Fixtures.repositoryPath("Datasets/structure/phone/\(photo).jpg"))
        let page = PageGeometry.upright(decoded.luma.eightBit.packedLuma).page
        let first = page.samples.withUnsafeBufferPointer { BarcodeReader.scan($0, width: page.width, height: page.height, density: 2) }
        #expect(first.map(\.payload).contains(misread))
        let codes = BarcodeReader().barcodes(in: page)
        #expect(codes.map(\.symbology) == [symbology])
        #expect(codes.map(\.payload) == [printed])
    }

    /// A 4-pixel box, levels to the power 1.4 in 200–230: ZBar reads this EAN-13 with a 2 read
    /// as an 8 and a 7 as a 1; stretched, its crop reads right, but stretched and darkened it
    /// reads as the first reading did: the two do not agree, and the first reading stands.
    @Test func aRereadingTheOtherDoesNotConfirmLeavesTheFirstReading() throws {
        let image = try Self.photographed("ean13", box: 4, low: 200, gamma: 1.4)
        let first = image.samples.withUnsafeBufferPointer { BarcodeReader.scan($0, width: image.width, height: image.height, density: 2) }
        #expect(first.map(\.payload) == ["5901834123451"])
        let box = try #require(first.first?.box)
        let region = PixelRect(x: box.x - box.width, y: box.y - box.height, width: 3 * box.width, height: 3 * box.height).clipped(to: image.size)
        let stretched = BarcodeReader.stretched(image.cropped(to: region).samples)
        let rereadings = [stretched, stretched.map { BarcodeReader.darkened[Int($0)] }].map { pixels in
            pixels.withUnsafeBufferPointer { BarcodeReader.scan($0, width: region.width, height: region.height, density: 1) }.map(\.payload)
        }
        #expect(rereadings == [["5901234123457"], ["5901834123451"]])
        #expect(BarcodeReader().barcodes(in: image).map(\.payload) == ["5901834123451"])
    }

    @Test func theStretchPutsTheFifthAndNinetyFifthPercentilesAtBlackAndWhite() {
        // Levels 100 to 199, one pixel each: 105 is the first with more than 5% at or below it,
        // 195 with more than 95%.
        let stretched = BarcodeReader.stretched((0..<100).map { UInt8($0 + 100) })
        #expect(stretched[5] == 0 && stretched[95] == 255)
        #expect(stretched[50] == 127)  // (150 − 105) · 255 / 90, rounded down
        #expect(stretched[0] == 0 && stretched[99] == 255)
        #expect(BarcodeReader.stretched([]).isEmpty)
        #expect(BarcodeReader.stretched([7, 7, 7]) == [0, 0, 0])
    }

    @Test(arguments: [("code128", Barcode.Symbology.code128, "IMGQ-2026-0042"), ("upca", .upca, "036000291452"), ("ean8", .ean8, "96385074")])
    func aCodeZBarMissesIsReadInTheSecondLook(name: String, symbology: Barcode.Symbology, payload: String) throws {
        let image = try Self.photographed(name)
        // ZBar alone, on the whole image, reads nothing.
        #expect(image.samples.withUnsafeBufferPointer { BarcodeReader.scan($0, width: image.width, height: image.height, density: 2) }.isEmpty)
        let regions = image.samples.withUnsafeBufferPointer { BarcodeReader.barRegions($0, width: image.width, height: image.height) }
        let region = try #require(regions.first)
        // The fixture's code lies inside its 20-pixel margin.
        #expect(region.contains(x: 100 + 40, y: 50 + 40))
        let codes = BarcodeReader().barcodes(in: image)
        #expect(codes.map(\.symbology) == [symbology])
        #expect(codes.map(\.payload) == [payload])
        // The box is in the image's pixels, on the code.
        let box = try #require(codes.first?.box)
        #expect(box.x >= 100 && box.y >= 50 && box.x + box.width <= image.width - 100)
    }

    @Test func aRuledTableIsNoBarRegion() {
        // A grid of rules 40 pixels apart: every block under a rule has its gradient one way.
        var page = DocumentAnalyzerTests.page()
        for k in 0...8 {
            DocumentAnalyzerTests.line(&page, 100, 100 + Double(k) * 40, 900, 100 + Double(k) * 40)
            DocumentAnalyzerTests.line(&page, 100 + Double(k) * 100, 100, 100 + Double(k) * 100, 420)
        }
        #expect(page.samples.withUnsafeBufferPointer { BarcodeReader.barRegions($0, width: page.width, height: page.height) }.isEmpty)
    }

    @Test func aBlankPageHasNone() {
        #expect(BarcodeReader().barcodes(in: DocumentAnalyzerTests.page()).isEmpty)
    }

    @Test func aBarcodeIsPaintedOutBeforeRecognition() throws {
        let image = try ImageDecoder().decode(contentsOf: Fixtures.path("document/ean13.png")).luma.eightBit
        let page = DocumentAnalyzer().prepare(image)
        #expect(page.barcodes.count == 1)
        // The bars and the digits under them are gone: the page is one level of paper.
        #expect(Set(page.cleaned.samples).count == 1)
    }
}
