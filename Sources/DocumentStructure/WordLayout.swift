import Foundation
import ImagingCore

/// A recognized word placed on the page, with the recognizer's grouping.
struct PlacedWord {
    var text: String
    var box: PixelRect
    /// The recognizer's block and paragraph, and the observation (line) it came from.
    var block: Int
    var paragraph: Int
    var line: Int
}

/// A visual row: words side by side, chained left to right by vertical overlap, so a row
/// survives a few degrees of tilt. Split at wide gaps into segments (the cells of a table row).
struct WordRow {
    var words: [PlacedWord]
    var segments: [[PlacedWord]]
    /// The median height of the row's words.
    var height: Double
    var box: PixelRect

    /// Left to right words, split where the gap exceeds `gapFactor` × the median word height.
    init(_ words: [PlacedWord], gapFactor: Double) {
        self.words = words.sorted { $0.box.x < $1.box.x }
        let heights = self.words.map(\.box.height).sorted()
        height = Double(heights[heights.count / 2])
        box = PixelRect.enclosing(self.words.map(\.box))!
        var segments: [[PlacedWord]] = []
        for word in self.words {
            if let last = segments.last?.last, Double(word.box.x - last.box.maxX) <= gapFactor * height {
                segments[segments.count - 1].append(word)
            } else {
                segments.append([word])
            }
        }
        self.segments = segments
    }

    /// A segment's text and box.
    static func text(_ segment: [PlacedWord]) -> String { segment.map(\.text).joined(separator: " ") }
    static func box(_ segment: [PlacedWord]) -> PixelRect { PixelRect.enclosing(segment.map(\.box))! }

    /// The gap, in word heights, that separates two cells of a row among `words`: `cellGap`,
    /// or `wordSpaces` times the median gap between the words of rows of four words or more
    /// (chained at `cellGap`), whichever is wider.
    static func cellGapFactor(_ words: [PlacedWord], cellGap: Double, wordSpaces: Double) -> Double {
        var gaps: [Double] = []
        for row in rows(words, gapFactor: cellGap) where row.words.count >= 4 {
            for (left, right) in zip(row.words, row.words.dropFirst()) { gaps.append(Double(right.box.x - left.box.maxX) / row.height) }
        }
        guard !gaps.isEmpty else { return cellGap }
        gaps.sort()
        return max(cellGap, wordSpaces * gaps[gaps.count / 2])
    }

    /// The rows of a page's words. Each word's successor is the nearest word to its right that
    /// overlaps it vertically by half the smaller height, seen along the page's tilt; where two
    /// words claim the same successor the nearer keeps it. The tilt is that of the rows chained
    /// level first (`AlignedTables.skewAngle`): on a page turned two degrees, the two cells of
    /// a table row 300 pixels apart are 10 pixels apart in height, half a line of small print.
    static func rows(_ words: [PlacedWord], gapFactor: Double) -> [WordRow] {
        let level = rows(words, gapFactor: gapFactor, slope: 0)
        let slope = tan(AlignedTables.skewAngle(level))
        return slope == 0 ? level : rows(words, gapFactor: gapFactor, slope: slope)
    }

    /// The rows, with a word's vertical overlap measured after moving its right neighbour by
    /// `slope` × their horizontal distance.
    static func rows(_ words: [PlacedWord], gapFactor: Double, slope: Double) -> [WordRow] {
        guard !words.isEmpty else { return [] }
        let order = words.indices.sorted { words[$0].box.x < words[$1].box.x }
        var successor = [Int?](repeating: nil, count: words.count)
        var predecessorGap = [Int](repeating: Int.max, count: words.count)
        var predecessor = [Int?](repeating: nil, count: words.count)
        for (rank, i) in order.enumerated() {
            let a = words[i].box
            var best: (index: Int, gap: Int)?
            for j in order[(rank + 1)...] {
                guard words[j].box.x >= a.x + a.width / 2 else { continue }
                let gap = words[j].box.x - a.maxX
                if let best, gap > best.gap { break }
                var b = words[j].box
                b.y -= Int((Double(b.centerX - a.centerX) * slope).rounded())
                guard a.sharesRow(with: b) else { continue }
                // A much taller or shorter neighbour is another line's word crossing this one,
                // unless the smaller sits within the larger's height (a bullet, a dash, a comma).
                let (small, large) = a.height <= b.height ? (a, b) : (b, a)
                guard Double(large.height) <= 2.2 * Double(small.height) || (small.y >= large.y && small.maxY <= large.maxY) else { continue }
                if best == nil || gap < best!.gap { best = (j, gap) }
            }
            if let best, best.gap < predecessorGap[best.index] {
                if let previous = predecessor[best.index] { successor[previous] = nil }
                successor[i] = best.index
                predecessor[best.index] = i
                predecessorGap[best.index] = best.gap
            }
        }
        var rows: [WordRow] = []
        for start in words.indices where predecessor[start] == nil {
            var chain: [PlacedWord] = []
            var next: Int? = start
            while let index = next {
                chain.append(words[index])
                next = successor[index]
            }
            rows.append(WordRow(chain, gapFactor: gapFactor))
        }
        return rows.sorted { $0.box.y != $1.box.y ? $0.box.y < $1.box.y : $0.box.x < $1.box.x }
    }
}

/// Lists: rows that start with a marker (bullet, number, letter), with the rows indented
/// under them as the rest of their item.
enum ListFinder {
    static let bulletCharacters: Set<Character> = ["•", "·", "∙", "●", "○", "◦", "▪", "■", "□", "▫", "‣", "⁃", "*", "-", "–", "—", "»", "›", ">", "+", "~"]

    /// The marker kind of a row's first word, given how much of its box is ink.
    static func marker(_ word: PlacedWord, rowHeight: Double, fill: Double) -> DocumentList.MarkerKind? {
        let text = word.text
        // A number's full stop is often read as a comma.
        if text.wholeMatch(of: /\(?\d{1,2}[.,)]/) != nil { return .number }
        if text.wholeMatch(of: /\(?[a-zA-Z][.)]/) != nil { return .letter }
        guard text.count <= 2 else { return nil }
        if text.allSatisfy({ bulletCharacters.contains($0) }) { return .bullet }
        // A bullet read as a letter ("e", "o"): small, and solid, which letters are not.
        let (height, width) = (Double(word.box.height), Double(word.box.width))
        let small = height <= 0.75 * rowHeight && width <= 1.3 * rowHeight
        if small && fill >= 0.55 { return .bullet }
        // A square bullet that blur has swollen ("@", "8", "gs" for "▪"): nearly as tall as
        // the row's capitals, but square and almost all ink, which no letter or digit is
        // (blurred capitals and digits fill under 0.7 of their box; "1" and "I" are narrow).
        let square = width >= 0.75 * height && width <= 1.3 * height
        return square && height <= 0.85 * rowHeight && fill >= 0.7 ? .bullet : nil
    }

    /// The marker after `marker` in a list of numbers or letters, in its form ("4." → "5.",
    /// "(c)" → "(d)"); the same bullet; nil when `marker` is not of `kind`.
    static func nextMarker(after marker: String, kind: DocumentList.MarkerKind) -> String? {
        switch kind {
        case .bullet:
            return marker
        case .number:
            guard let match = marker.wholeMatch(of: /(\(?)(\d{1,2})([.,)])/), let number = Int(match.2) else { return nil }
            return "\(match.1)\(number + 1)\(match.3)"
        case .letter:
            guard let match = marker.wholeMatch(of: /(\(?)([a-yA-Y])([.)])/), let scalar = match.2.unicodeScalars.first,
                let next = Unicode.Scalar(scalar.value + 1)
            else { return nil }
            return "\(match.1)\(Character(next))\(match.3)"
        }
    }

    /// Whether a word may be a marker misread: one or two characters ("N" for "2.", "cy"
    /// for "6)"), or up to four with one that is no letter ("<3)" for "5)"); a word of
    /// three letters or more is a word.
    static func mayBeMarker(_ text: String) -> Bool {
        text.count <= 2 || (text.count <= 4 && text.contains { !$0.isLetter })
    }

    /// The marker before `marker` in a list of numbers or letters ("2." → "1.", "(b)" →
    /// "(a)"); nil for a bullet and for a first number or letter.
    static func previousMarker(before marker: String, kind: DocumentList.MarkerKind) -> String? {
        switch kind {
        case .bullet:
            return nil
        case .number:
            guard let match = marker.wholeMatch(of: /(\(?)(\d{1,2})([.,)])/), let number = Int(match.2), number >= 2 else { return nil }
            return "\(match.1)\(number - 1)\(match.3)"
        case .letter:
            guard let match = marker.wholeMatch(of: /(\(?)([b-zB-Z])([.)])/), let scalar = match.2.unicodeScalars.first,
                let previous = Unicode.Scalar(scalar.value - 1)
            else { return nil }
            return "\(match.1)\(Character(previous))\(match.3)"
        }
    }

    struct Found {
        var list: DocumentList
        /// Each item's words, without its marker.
        var itemWords: [[PlacedWord]]
        /// The rows it took.
        var rows: Set<Int>
    }

    /// Where an item starts: its row, its marker's kind, the marker (as read, or as the list
    /// gives it), how many of the row's words the marker is, and where the item's text starts.
    typealias ItemStart = (row: Int, kind: DocumentList.MarkerKind, marker: PlacedWord, markerWords: Int, textLeft: Int)

    static func lists(in rows: [WordRow], fill: (PixelRect) -> Double) -> [Found] {
        // Item starts.
        var starts: [ItemStart] = []
        for (index, row) in rows.enumerated() where row.words.count >= 2 {
            var first = row.words[0]
            var firstText = 1
            // A number or letter and its full stop or bracket read as two words ("2" "."), the
            // stop just after it: one marker.
            // (A marker read whole with its stop read again after it, "a." ".", is one too.)
            if row.words.count >= 3, first.text.wholeMatch(of: /\(?(\d{1,2}|[a-zA-Z])[.,)]?/) != nil, [".", ",", ")"].contains(row.words[1].text),
                Double(row.words[1].box.x - first.box.maxX) <= 0.5 * row.height
            {
                let stopped = first.text.last.map { [".", ",", ")"].contains($0) } ?? false
                first = PlacedWord(
                    text: stopped ? first.text : first.text + row.words[1].text, box: first.box.union(row.words[1].box), block: first.block,
                    paragraph: first.paragraph, line: first.line)
                firstText = 2
            }
            // A lone full stop or comma low beside the text after it (its middle a quarter of
            // the row's height or more below the word's) is the stop of a marker whose number
            // was not read ("." for "5."), not a bullet: `misreadStart` places it. A middle dot
            // stands level with the word's middle.
            if [".", ","].contains(first.text), Double(first.box.centerY - row.words[firstText].box.centerY) >= 0.25 * row.height { continue }
            guard let kind = marker(first, rowHeight: row.height, fill: fill(first.box)) else { continue }
            // The marker stands apart from the text after it.
            guard Double(row.words[firstText].box.x - first.box.maxX) >= 0.15 * row.height else { continue }
            starts.append((index, kind, first, firstText, row.words[firstText].box.x))
        }
        var found: [Found] = []
        var current: (kind: DocumentList.MarkerKind, items: [DocumentList.Item], words: [[PlacedWord]], rows: Set<Int>, markerX: Int, textLeft: Int, lastBottom: Int)?
        func close() {
            if let list = current, list.items.count >= 2 {
                let box = PixelRect.enclosing(list.items.map(\.box))!
                found.append(Found(list: DocumentList(marker: list.kind, items: list.items, box: box), itemWords: list.words, rows: list.rows))
            }
            current = nil
        }
        let startRows = Dictionary(starts.map { ($0.row, $0) }, uniquingKeysWith: { a, _ in a })
        // A row just below a list's item whose first word, a misread marker (`mayBeMarker`), stands
        // where the last item's marker stands (within a row's height: a page photographed at an
        // angle drifts across the frame) and whose text starts as far from it as that item's
        // text from its marker is the next item, its marker misread ("5" for "5.", "N" for
        // "2.", a letter for a bullet, "©." for "c."), unless the row is a table's.
        // A marker's last part read alone (")" of "2)") stands right of where markers start:
        // such a row's text starts where the items' text does, and the word before it lies
        // between the markers' left edge and that text.
        func placedAsItem(_ row: WordRow, markerX: Int, textLeft: Int) -> Bool {
            // A row of three cells or more is a table's (its first column numbered).
            guard row.segments.count <= 2, row.words.count >= 2, Self.mayBeMarker(row.words[0].text) else { return false }
            let (marker, text) = (row.words[0].box, row.words[1].box)
            return (abs(Double(marker.x - markerX)) <= row.height
                && abs(Double((text.x - marker.x) - (textLeft - markerX))) <= 0.5 * row.height)
                || (Double(marker.x) >= Double(markerX) - row.height && marker.maxX <= textLeft
                    && abs(Double(text.x - textLeft)) <= 0.5 * row.height)
        }
        // A row whose words start at the items' text edge (nearer it than the markers' edge),
        // not a table's: an item's line whose marker is not there.
        func atTextEdge(_ row: WordRow, markerX: Int, textLeft: Int, height: Double) -> Bool {
            row.segments.count <= 2 && abs(Double(row.box.x - textLeft)) <= 1.2 * height && abs(row.box.x - textLeft) < abs(row.box.x - markerX)
        }
        func misreadStart(_ index: Int) -> ItemStart? {
            // A bullet where a list of numbers or letters expects its next marker is that marker
            // misread (">" for "2."), unless the next item started below it is a bullet too (a
            // list of bullets after the numbers); a row read with a number or letter is not.
            guard let list = current, startRows[index].map({ $0.kind == .bullet && list.kind != .bullet }) ?? true else { return nil }
            let readAsBullet = startRows[index] != nil
            if readAsBullet, let next = startRows.keys.filter({ $0 > index }).min(), startRows[next]!.kind == .bullet { return nil }
            let row = rows[index]
            // A marker read as one stands apart from the item before it as the list's items do.
            let spacing = readAsBullet ? 2.5 : 1.5
            guard Double(row.box.y - list.lastBottom) <= spacing * row.height, placedAsItem(row, markerX: list.markerX, textLeft: list.textLeft) else { return nil }
            let marker = row.words[0]
            let text = Self.nextMarker(after: list.items.last!.marker, kind: list.kind) ?? marker.text
            return (index, list.kind, PlacedWord(text: text, box: marker.box, block: marker.block, paragraph: marker.paragraph, line: marker.line), 1, row.words[1].box.x)
        }
        // Items whose markers were all dropped: a list of numbers or letters resumes k markers
        // on (k ≥ 2: "3." then "6.") where its markers stand, after rows that all start at its
        // items' text edge, each within the items' spacing of the next: those rows are the
        // k − 1 items between, split at the k − 2 widest gaps between them.
        func skippedItems(before start: ItemStart) -> [(marker: String, rows: [Int])]? {
            guard let list = current, list.kind == start.kind, list.kind != .bullet, let lastRow = list.rows.max() else { return nil }
            let height = rows[start.row].height
            guard abs(Double(start.marker.box.x - list.markerX)) <= 1.5 * height else { return nil }
            var markers: [String] = []
            var marker = list.items.last!.marker
            while markers.count < 8, let next = Self.nextMarker(after: marker, kind: list.kind), next != start.marker.text {
                markers.append(next)
                marker = next
            }
            let between = Array((lastRow + 1)..<start.row)
            guard !markers.isEmpty, Self.nextMarker(after: marker, kind: list.kind) == start.marker.text, between.count >= markers.count else { return nil }
            var tops = [list.lastBottom] + between.map { rows[$0].box.maxY }
            tops.removeLast()
            let gaps = zip(between, tops).map { rows[$0.0].box.y - $0.1 }
            guard between.allSatisfy({ startRows[$0] == nil && atTextEdge(rows[$0], markerX: list.markerX, textLeft: list.textLeft, height: height) }), gaps.allSatisfy({ Double($0) <= 2.5 * height }), Double(rows[start.row].box.y - rows[between.last!].box.maxY) <= 2.5 * height
            else { return nil }
            // Item boundaries: before the first row, and at the widest gaps between the others.
            let splits = Set(between.indices.dropFirst().sorted { gaps[$0] > gaps[$1] }.prefix(markers.count - 1))
            var items: [(marker: String, rows: [Int])] = []
            for (position, row) in between.enumerated() {
                if position == 0 || splits.contains(position) { items.append((markers[items.count], [row])) } else { items[items.count - 1].rows.append(row) }
            }
            return items
        }
        // The right edge of the prose around a row that starts at a list's text or marker edge:
        // the furthest any such row of one segment within ten rows of it reaches.
        func rightMargin(around index: Int, markerX: Int, textLeft: Int, height: Double) -> Int {
            rows[max(0, index - 10)..<min(rows.count, index + 11)].filter { row in
                row.segments.count == 1
                    && (abs(Double(row.box.x - textLeft)) <= 1.2 * height || abs(Double(row.box.x - markerX)) <= 1.2 * height)
            }.map(\.box.maxX).max() ?? 0
        }
        // Items whose markers the recognizer dropped, found from where their lines break.
        var impliedStarts: [Int: ItemStart] = [:]
        var index = 0
        while index < rows.count {
            let read = startRows[index].map { $0.kind == .bullet ? misreadStart(index) ?? $0 : $0 }
            guard let start = read ?? impliedStarts[index] ?? misreadStart(index) else {
                index += 1
                continue
            }
            let row = rows[index]
            // The item's further lines: rows just below, starting near its text's left edge, not themselves items.
            var itemRows = [index]
            var words = Array(row.words.dropFirst(start.markerWords))
            // Whether the item follows another of its list.
            let follows = current.map { list in
                list.kind == start.kind && abs(Double(start.marker.box.x - list.markerX)) <= 1.5 * row.height
                    && Double(row.box.y - list.lastBottom) <= 2.5 * row.height
            } ?? false
            var bottom = row.box.maxY
            var next = index + 1
            // A letter taken for a bullet by its fill ("a", "o") where the item's text starts is
            // the first word of the item's next line.
            func continuesText(_ candidate: Int) -> Bool {
                guard let other = startRows[candidate], other.kind == .bullet, !other.marker.text.allSatisfy(bulletCharacters.contains) else { return false }
                return abs(Double(other.marker.box.x - start.textLeft)) <= 0.5 * row.height
            }
            while next < rows.count, startRows[next] == nil || continuesText(next) {
                let candidate = rows[next]
                if placedAsItem(candidate, markerX: start.marker.box.x, textLeft: start.textLeft) { break }
                guard Double(candidate.box.y - bottom) <= 0.9 * row.height,
                    abs(Double(candidate.box.x - start.textLeft)) <= 1.2 * row.height
                else { break }
                // A line breaks early only where a paragraph ends: when the next row's first
                // word would have fitted on the item's last line (a word space and a row's
                // height to spare before the prose's right edge), that row starts the next
                // item of a list of two items or more, its marker not read (a faint dash),
                // when it holds two words or more (not a speck read as a letter).
                if follows, candidate.words.count >= 2,
                    Double(rows[itemRows.last!].box.maxX) + 1.3 * row.height + Double(candidate.words[0].box.width)
                        < Double(rightMargin(around: next, markerX: start.marker.box.x, textLeft: start.textLeft, height: row.height))
                {
                    let marker = Self.nextMarker(after: start.marker.text, kind: start.kind) ?? start.marker.text
                    let box = PixelRect(x: start.marker.box.x, y: candidate.box.y, width: start.marker.box.width, height: candidate.box.height)
                    impliedStarts[next] = (next, start.kind, PlacedWord(text: marker, box: box, block: candidate.words[0].block, paragraph: candidate.words[0].paragraph, line: candidate.words[0].line), 0, start.textLeft)
                    break
                }
                words += candidate.words
                itemRows.append(next)
                bottom = candidate.box.maxY
                next += 1
            }
            let box = PixelRect.enclosing(words.map(\.box) + [start.marker.box])!
            // A bullet known by its shape (read as "e" or "@") is written as one.
            let markerText = start.kind == .bullet && !start.marker.text.allSatisfy(bulletCharacters.contains) ? "•" : start.marker.text
            let item = DocumentList.Item(marker: markerText, text: words.map(\.text).joined(separator: " "), box: box)
            if let skipped = follows ? [] : skippedItems(before: start) {
                for missing in skipped {
                    let words = missing.rows.flatMap { rows[$0].words }
                    current!.items.append(DocumentList.Item(marker: missing.marker, text: words.map(\.text).joined(separator: " "), box: PixelRect.enclosing(words.map(\.box))!))
                    current!.words.append(words)
                    current!.rows.formUnion(missing.rows)
                }
                current!.items.append(item)
                current!.words.append(words)
                current!.rows.formUnion(itemRows)
                current!.lastBottom = bottom
                current!.textLeft = start.textLeft
                current!.markerX = start.marker.box.x
            } else {
                close()
                current = (start.kind, [item], [words], Set(itemRows), start.marker.box.x, start.textLeft, bottom)
            }
            index = next
        }
        close()
        // A list of numbers or letters that starts after its first ("2." with no "1.") lost
        // its first item's marker: the lines just above it that start at its items' text
        // edge are that item, whether the marker was misread (`mayBeMarker`, where the
        // markers stand: "L_" or "|." for "1.") or dropped. A list of bullets takes such lines
        // only when they begin with a misread marker ("gs" for "▪"): nothing says an item is missing.
        var taken = found.reduce(into: Set<Int>()) { $0.formUnion($1.rows) }
        for k in found.indices {
            let list = found[k].list
            guard let first = found[k].rows.min(), let textLeft = found[k].itemWords.first?.first?.box.x,
                let marker = list.marker == .bullet ? list.items[0].marker : Self.previousMarker(before: list.items[0].marker, kind: list.marker)
            else { continue }
            let markerX = list.items[0].box.x, height = rows[first].height
            var itemRows: [Int] = [], markerWords = 0
            var above = first - 1, top = rows[first].box.y
            while above >= 0, !taken.contains(above) {
                let row = rows[above]
                // The line just above the list within its items' spacing; the item's further lines within a line's.
                guard Double(top - row.box.maxY) <= (itemRows.isEmpty ? 1.5 : 0.9) * height else { break }
                if placedAsItem(row, markerX: markerX, textLeft: textLeft) {
                    itemRows.insert(above, at: 0)
                    markerWords = 1
                    break
                }
                guard atTextEdge(row, markerX: markerX, textLeft: textLeft, height: height) else { break }
                itemRows.insert(above, at: 0)
                top = row.box.y
                above -= 1
            }
            guard !itemRows.isEmpty, list.marker != .bullet || markerWords == 1 else { continue }
            let words = Array(itemRows.flatMap { rows[$0].words }.dropFirst(markerWords))
            guard !words.isEmpty else { continue }
            let markerBox = markerWords == 1 ? [rows[itemRows[0]].words[0].box] : []
            let item = DocumentList.Item(marker: marker, text: words.map(\.text).joined(separator: " "), box: PixelRect.enclosing(words.map(\.box) + markerBox)!)
            found[k].list.items.insert(item, at: 0)
            found[k].list.box = found[k].list.box.union(item.box)
            found[k].itemWords.insert(words, at: 0)
            found[k].rows.formUnion(itemRows)
            taken.formUnion(itemRows)
        }
        return found
    }
}

/// Tables without a grid: rows of several segments whose gaps line up in columns.
enum AlignedTables {
    struct Found {
        var table: Table
        /// Each cell's words, in the order of the table's cells.
        var cellWords: [[PlacedWord]]
        var rows: Set<Int>
    }

    /// Most words in a table cell; prose set in two columns has longer runs.
    static let maximumMedianWordsPerCell = 4

    /// - Parameters:
    ///   - rules: the page's horizontal ruling lines (painted out before reading), which keep
    ///     the rows they separate apart (`cells`).
    ///   - cellGap: the narrowest gap between two cells, in word heights, in most rows that
    ///     have words on both sides of a column's edge (`table(rows:along:rules:cellGap:)`).
    static func tables(in rows: [WordRow], skipping taken: Set<Int>, rules: [PixelRect] = [], cellGap: Double = 0.75) -> [Found] {
        let skew = skewAngle(rows)
        let (c, s) = (cos(skew), sin(skew))
        func along(_ x: Int, _ y: Int) -> Double { Double(x) * c + Double(y) * s }

        var found: [Found] = []
        var index = 0
        while index < rows.count {
            // A run of rows of two or more segments, with single-segment rows allowed between them.
            guard !taken.contains(index), isTableRow(rows[index]) else {
                index += 1
                continue
            }
            var members = [index]
            var last = index
            var next = index + 1
            while next < rows.count, !taken.contains(next) {
                // The gap from the last row of several cells, or from a single segment within a
                // word's height under it and under one of its cells (that cell's second line; a
                // heading or a form's line between two tables stands farther off or reaches
                // across).
                let single = members.last!
                let wrapped = single != last && Double(rows[single].box.y - rows[last].box.maxY) <= rows[last].height
                    && underOneCell(rows[single].box, of: rows[last])
                let above = wrapped ? single : last
                let gap = Double(rows[next].box.y - rows[above].box.maxY)
                guard gap <= 2.5 * rows[above].height else { break }
                if isTableRow(rows[next]) {
                    // Rows whose cells do not line up with the last ones start another table (a
                    // form's label–value lines above a table).
                    guard aligned(rows[last], rows[next], along: along) else { break }
                    members.append(next)
                    last = next
                } else {
                    // A single segment continues only if a multi-segment row follows closely.
                    guard let after = (next + 1..<min(rows.count, next + 3)).first(where: { isTableRow(rows[$0]) && !taken.contains($0) }),
                        Double(rows[after].box.y - rows[next].box.maxY) <= 2.5 * rows[next].height
                    else { break }
                    members.append(next)
                }
                next += 1
            }
            index = last + 1
            // Single-segment rows after the last table row are not the table's; nor are rows of
            // six words or more at its top or bottom (prose beside it).
            members.removeAll { $0 > last }
            while let first = members.first, prose(rows[first]) { members.removeFirst() }
            while let final = members.last, prose(rows[final]) { members.removeLast() }
            let multi = members.filter { isTableRow(rows[$0]) }
            guard multi.count >= 2 else { continue }
            let segmentLengths = multi.flatMap { rows[$0].segments.map(\.count) }.sorted()
            guard segmentLengths[segmentLengths.count / 2] <= maximumMedianWordsPerCell else { continue }
            guard var (table, cellWords) = table(rows: members.map { rows[$0] }, along: along, rules: rules, cellGap: cellGap) else { continue }
            // One or two header rows just above whose cells did not line up with the run's (a
            // heading centred over two columns, "Contact" over "Email" and "Phone", and the
            // headings under it) are its header when the table's rules box them: one above the
            // first, one between the last and the run, each across half the run's width or more
            // (a form's underlines run under its values only). Their cells take the run's
            // columns.
            var headerCount = 0
            let runBox = PixelRect.enclosing(members.map { rows[$0].box })!
            func acrossTheRun(_ rule: PixelRect) -> Bool { 2 * (min(rule.maxX, runBox.maxX) - max(rule.x, runBox.x)) >= runBox.width }
            for count in [2, 1] where members[0] >= count {
                let header = Array((members[0] - count)..<members[0])
                let headerRows = header.map { rows[$0] }
                let top = headerRows[0].box, height = headerRows[0].height
                guard header.allSatisfy({ index in !taken.contains(index) && !found.contains { $0.rows.contains(index) } }),
                    headerRows.allSatisfy({ isTableRow($0) && !prose($0) }),
                    zip(header, header.dropFirst() + [members[0]]).allSatisfy({ Double(rows[$1].box.y - rows[$0].box.maxY) <= 2.5 * rows[$0].height }),
                    rules.contains(where: { acrossTheRun($0) && Self.separates($0, headerRows[count - 1].box, rows[members[0]].box) }),
                    rules.contains(where: { rule in
                        acrossTheRun(rule) && 2 * rule.y + rule.height < 2 * top.y + top.height && Double(top.y - rule.maxY) <= 1.5 * height
                            && rule.x < top.maxX && rule.maxX > top.x
                    }),
                    let (headed, headedWords) = Self.table(
                        rows: members.map { rows[$0] }, header: headerRows, along: along, rules: rules, cellGap: cellGap),
                    headed.rows == table.rows + count, headed.columns == table.columns
                else { continue }
                (table, cellWords) = (headed, headedWords)
                members.insert(contentsOf: header, at: 0)
                headerCount = count
                break
            }
            // A row just below whose cells did not line up with the last row's, but whose
            // words fall in two of the table's columns or more, the last column among them, is
            // its last row (a total: a label spanning the first columns, set right). It stands
            // within a word's height of the last row, or no farther than the table's rows stand
            // from each other.
            let below = members.last! + 1
            let rowGap = zip(members, members.dropFirst()).map { Double(rows[$1].box.y - rows[$0].box.maxY) }.max() ?? 0
            if below < rows.count, !taken.contains(below), !prose(rows[below]),
                Double(rows[below].box.y - rows[members.last!].box.maxY) <= max(rows[members.last!].height, rowGap),
                let (longer, longerWords) = Self.table(
                    rows: (members.dropFirst(headerCount) + [below]).map { rows[$0] }, header: members.prefix(headerCount).map { rows[$0] },
                    along: along, rules: rules, cellGap: cellGap),
                longer.rows == table.rows + 1, longer.columns == table.columns
            {
                let lastRow = longer.cells.filter { $0.row == longer.rows - 1 }
                if lastRow.count >= 2, lastRow.contains(where: { $0.column + $0.columnSpan == longer.columns }) {
                    (table, cellWords) = (longer, longerWords)
                    members.append(below)
                    index = max(index, below + 1)
                }
            }
            // A table straight under the last one, with as many columns, is the same table when
            // its rows and the last one's make one table of all their rows and those columns:
            // specks read as marks between two rows (one or two rows, none wider or taller
            // than the rows are high) broke the run. It stands as near as the run's rows do.
            // (A speck above a table's last row or below its first leaves a run of one row,
            // which is no table: it stays out.)
            let top = members[0], height = rows[members[0]].height
            if headerCount == 0, let previous = found.last, let previousLast = previous.rows.max(), previous.table.columns == table.columns,
                (2...3).contains(top - previousLast), Double(rows[top].box.y - rows[previousLast].box.maxY) <= 2.5 * height,
                ((previousLast + 1)..<top).allSatisfy({ !taken.contains($0) && Double(rows[$0].box.width) <= height && Double(rows[$0].box.height) <= height }),
                let (whole, wholeWords) = Self.table(
                    rows: (previous.rows.sorted() + members).map { rows[$0] }, along: along, rules: rules, cellGap: cellGap),
                whole.rows == previous.table.rows + table.rows, whole.columns == table.columns
            {
                found[found.count - 1] = Found(table: whole, cellWords: wholeWords, rows: previous.rows.union(members))
                continue
            }
            found.append(Found(table: table, cellWords: cellWords, rows: Set(members)))
        }
        return found
    }

    /// Whether `box` lies under one cell of `row`: left of its second cell, or starting no more
    /// than a word's height left of a later cell and ending before the cell after it.
    static func underOneCell(_ box: PixelRect, of row: WordRow) -> Bool {
        let cells = row.segments.map(WordRow.box)
        if box.maxX <= cells[1].x { return true }
        return cells.indices.dropFirst().contains { k in
            Double(box.x) >= Double(cells[k].x) - row.height && (k + 1 == cells.count || box.maxX <= cells[k + 1].x)
        }
    }

    /// A row of two or more cells, but not a form's label and value ("Name:  Anna Berg").
    static func isTableRow(_ row: WordRow) -> Bool {
        guard row.segments.count >= 2 else { return false }
        return !(row.segments.count == 2 && row.segments[0].last?.text.hasSuffix(":") == true)
    }

    /// Whether two rows' cells line up: a cell after the first of one row starts or ends
    /// within a word height of where a cell of the other does.
    static func aligned(_ a: WordRow, _ b: WordRow, along: (Int, Int) -> Double) -> Bool {
        let tolerance = max(a.height, b.height)
        func edges(_ row: WordRow) -> [(Double, Double)] {
            row.segments.map { segment in
                let box = WordRow.box(segment)
                return (along(box.x, box.y + box.height / 2), along(box.maxX, box.y + box.height / 2))
            }
        }
        let (edgesA, edgesB) = (edges(a), edges(b))
        var matches = 0
        for (left, right) in edgesB.dropFirst() where edgesA.dropFirst().contains(where: { abs($0.0 - left) <= tolerance || abs($0.1 - right) <= tolerance }) {
            matches += 1
        }
        return matches >= 2 || (matches >= 1 && abs(edgesA.count - edgesB.count) <= 1)
    }

    /// A row holding a run of six words or more: prose, not a table's row.
    static func prose(_ row: WordRow) -> Bool { row.segments.contains { $0.count >= 6 } }

    /// The narrowest space between words, in word heights: a space is about a quarter of the
    /// type's size, half a lower-case letter's height; the gaps between a word's letters are a
    /// fraction of that.
    static let wordSpace = 0.4

    /// Columns from where words are not: positions along the rows that the words of at most
    /// one in seven of the rows cover, a word space wide or more (`wordSpace`
    /// word heights), each placed in the middle of its widest stretch that the fewest rows
    /// cover, where most of the rows that have words on both sides leave at least
    /// `cellGap` between them. A heading can all but touch the next one ("Unit price
    /// Amount") where the numbers under them stand well apart; the digit groups of phone
    /// numbers in one format line up from row to row, a word space apart. Two
    /// neighbouring columns that no row fills both of are one column whose cells are aligned
    /// differently (a left-aligned heading over right-aligned numbers).
    ///
    /// `header` rows stand above `rows` and take their cells from the columns the other rows
    /// make, without moving them: a heading centred over two columns ("Contact" over
    /// "Email" and "Phone") spans them.
    static func table(
        rows: [WordRow], header: [WordRow] = [], along: (Int, Int) -> Double, rules: [PixelRect] = [], cellGap: Double = 0.75
    ) -> (Table, [[PlacedWord]])? {
        let rows = foldingMarks(rows)
        let multiRows = rows.filter { $0.segments.count >= 2 }
        guard rows.count >= 2, multiRows.count >= 2 else { return nil }
        let height = rows.map(\.height).sorted()[rows.count / 2]
        func extent(_ box: PixelRect) -> (Double, Double) {
            (along(box.x, box.y + box.height / 2), along(box.maxX, box.y + box.height / 2))
        }
        let extents = multiRows.map { $0.words.map { extent($0.box) } }
        guard let low = extents.flatMap({ $0.map(\.0) }).min(), let high = extents.flatMap({ $0.map(\.1) }).max(), high > low else { return nil }
        let bins = Int(high - low) + 1
        var coverage = [Int](repeating: 0, count: bins)
        for row in extents {
            var covered = [Bool](repeating: false, count: bins)
            for (a, b) in row {
                for bin in max(0, Int(a - low))...min(bins - 1, max(0, Int(b - low))) { covered[bin] = true }
            }
            for bin in 0..<bins where covered[bin] { coverage[bin] += 1 }
        }
        let allowed = multiRows.count / 7
        var separators: [Double] = []
        var runStart: Int?
        for bin in 0..<bins {
            if coverage[bin] <= allowed {
                if runStart == nil { runStart = bin }
            } else if let start = runStart {
                if Double(bin - start) >= wordSpace * height {
                    // The edge lies in the middle of the widest stretch of the run that the
                    // fewest rows cover: a long cell reaching into the gap keeps its last words.
                    let least = coverage[start..<bin].min()!
                    var (best, stretch) = ((start, start), nil as Int?)
                    for position in start...bin {
                        if position < bin, coverage[position] == least {
                            if stretch == nil { stretch = position }
                        } else if let first = stretch {
                            if position - first > best.1 - best.0 { best = (first, position) }
                            stretch = nil
                        }
                    }
                    separators.append(low + Double(best.0 + best.1) / 2)
                }
                runStart = nil
            }
        }
        separators.removeAll { position in
            // Each row's gap across the position, where it has words on both sides.
            var gaps: [Double] = []
            for row in extents {
                guard let before = row.lazy.map(\.1).filter({ $0 <= position }).max(), let after = row.lazy.map(\.0).filter({ $0 >= position }).min()
                else { continue }
                gaps.append(after - before)
            }
            guard !gaps.isEmpty else { return false }
            gaps.sort()
            return gaps[gaps.count / 2] < cellGap * height
        }
        // A separator that every row with a word just right of it (before the next separator)
        // leaves less than `cellGap` across is a space between the words of one column's
        // cells, which other rows leave wide because their cells there are shorter or empty
        // ("Cadmus Perspex" under "Haeckel" and its wrapped surname).
        separators = separators.indices.filter { index in
            let position = separators[index]
            let next = index + 1 < separators.count ? separators[index + 1] : .infinity
            var filling = 0, narrow = 0
            for row in extents {
                guard let after = row.lazy.map(\.0).filter({ $0 >= position && $0 < next }).min() else { continue }
                filling += 1
                if let before = row.lazy.map(\.1).filter({ $0 <= position }).max(), after - before < cellGap * height { narrow += 1 }
            }
            return filling == 0 || narrow < filling
        }.map { separators[$0] }
        while true {
            guard !separators.isEmpty else { return nil }
            let grid = cells(rows: header + rows, separators: separators, height: height, along: along, rules: rules, headerRows: header.count)
            // A separator no row has cells on both sides of goes.
            let columns = separators.count + 1
            guard let lonely = (0..<(columns - 1)).first(where: { column in
                !grid.contains { row in
                    row.contains { $0?.first == column || ($0.map { $0.first < column && $0.first + $0.span - 1 >= column } ?? false) }
                        && row.contains { $0?.first == column + 1 }
                }
            }) else {
                // A column that one row below the first alone fills, in a table of three rows
                // or more, is a gap between two words of that row's cell: it joins the column
                // on its left. (A heading alone over a column is a column whose cells were not
                // read.)
                if grid.count >= 3, let lone = (1..<columns).first(where: { column in
                    let filling = grid.indices.filter { r in
                        grid[r].contains { $0.map { $0.first <= column && column <= $0.first + $0.span - 1 } ?? false }
                    }
                    return filling.count == 1 && filling[0] > 0
                }) {
                    separators.remove(at: lone - 1)
                    continue
                }
                return table(grid, columns: columns)
            }
            separators.remove(at: lonely)
        }
    }

    /// The rows with each row that holds no letter or digit (an `@`, a dash, a stray mark)
    /// joined to the row whose middle is nearest its own. A recognizer can read a glyph that
    /// reaches below the line (the `@` of an address) as a line of its own; alone it is no
    /// row of the table, and beside its row's words it is read in its place.
    static func foldingMarks(_ rows: [WordRow]) -> [WordRow] {
        func holdsText(_ row: WordRow) -> Bool { row.words.contains { $0.text.contains { $0.isLetter || $0.isNumber } } }
        guard rows.contains(where: holdsText), rows.contains(where: { !holdsText($0) }) else { return rows }
        func middle(_ box: PixelRect) -> Int { 2 * box.y + box.height }
        var folded = rows
        for row in rows where !holdsText(row) {
            let nearest = rows.indices.filter { holdsText(rows[$0]) }.min { abs(middle(rows[$0].box) - middle(row.box)) < abs(middle(rows[$1].box) - middle(row.box)) }!
            // Each mark goes into the segment (cell) of that row nearest it along the row.
            for mark in row.words {
                func distance(_ segment: [PlacedWord]) -> Int {
                    let box = WordRow.box(segment)
                    return max(0, box.x - mark.box.maxX, mark.box.x - box.maxX)
                }
                let segment = folded[nearest].segments.indices.min { distance(folded[nearest].segments[$0]) < distance(folded[nearest].segments[$1]) }!
                folded[nearest].segments[segment] = (folded[nearest].segments[segment] + [mark]).sorted { $0.box.x < $1.box.x }
                folded[nearest].words = (folded[nearest].words + [mark]).sorted { $0.box.x < $1.box.x }
                folded[nearest].box = folded[nearest].box.union(mark.box)
            }
        }
        return folded.filter(holdsText)
    }

    typealias Slot = (first: Int, span: Int, text: String, box: PixelRect, words: [PlacedWord])

    /// Each row's cells between the separators: words grouped by the column they start in; a
    /// word reaching across a separator makes its cell span. A row just under the last, with
    /// its first column empty, is the next line of the last row's cells, unless one of `rules`
    /// runs between them (a header's rule above the first row, whose number was not read); a
    /// row of one cell with its first column empty is too, at any distance, in a table whose
    /// rules part its body rows. So is a row with only its first column filled under a row of
    /// several cells (a long first cell wrapped), when it is as close, when its first cell
    /// stands nearer the line above than those of any two rows of several cells stand, or, in
    /// a table whose rules part its body rows, when no rule runs between them. The first
    /// `headerRows` rows are the header: the rules between them and the body part no body rows.
    static func cells(
        rows: [WordRow], separators: [Double], height: Double, along: (Int, Int) -> Double, rules: [PixelRect] = [], headerRows: Int = 0
    ) -> [[Slot?]] {
        let columns = separators.count + 1
        func column(_ position: Double) -> Int { separators.filter { $0 < position }.count }
        var grid: [[Slot?]] = []
        var rowTops: [Int] = []
        let pitches = zip(rows, rows.dropFirst()).map { Double($1.box.y - $0.box.y) }.sorted()
        let pitch = pitches.isEmpty ? 2 * height : pitches[pitches.count / 2]
        // Whether rules part body rows (not only the header from the first row).
        let body = max(1, headerRows)
        let rowsRuled = zip(rows.dropFirst(body), rows.dropFirst(body + 1)).contains { above, below in rules.contains { Self.separates($0, above.box, below.box) } }
        // Twice the distance between the middles of a row's first cell and of the first cell of
        // the line above it. Two lines of one cell are set at the font's leading; two rows add
        // the cells' padding.
        func firstCellsApart(_ above: WordRow, _ below: WordRow) -> Int {
            let a = WordRow.box(above.segments[0]), b = WordRow.box(below.segments[0])
            return 2 * b.y + b.height - 2 * a.y - a.height
        }
        let rowsApart = zip(rows, rows.dropFirst()).filter { $0.segments.count >= 2 && $1.segments.count >= 2 }.map(firstCellsApart)
        let leastApart = rowsApart.count >= 2 ? rowsApart.min() : nil
        var previous: WordRow?
        for row in rows {
            defer { previous = row }
            var slots = [Slot?](repeating: nil, count: columns)
            for word in row.words {
                let box = word.box
                let first = column(along(box.x, box.y + box.height / 2)), last = column(along(box.maxX, box.y + box.height / 2))
                if let existing = slots[first] {
                    slots[first] = (first, max(existing.span, last - first + 1), existing.text + " " + word.text, existing.box.union(box), existing.words + [word])
                } else if let owner = slots[..<first].lastIndex(where: { $0.map { $0.first + $0.span - 1 >= first } ?? false }), let existing = slots[owner] {
                    // Inside a cell that already spans this column.
                    slots[owner] = (
                        existing.first, max(existing.span, last - existing.first + 1), existing.text + " " + word.text, existing.box.union(box), existing.words + [word]
                    )
                } else {
                    slots[first] = (first, last - first + 1, word.text, box, [word])
                }
            }
            let ruled = previous.map { above in rules.contains { Self.separates($0, above.box, row.box) } } ?? false
            let close = rowTops.last.map { Double(row.box.y - $0) < 0.75 * pitch } ?? false
            // A first cell's text wrapped onto a line of its own: only the first column filled,
            // under a row of several cells, close under it, nearer it than any two rows of
            // cells, or with no rule between them where rules part the table's rows.
            let nearer = leastApart.flatMap { least in previous.map { firstCellsApart($0, row) < least } } ?? false
            let wrapped = slots[0] != nil && slots.dropFirst().allSatisfy { $0 == nil } && (grid.last?.compactMap { $0 }.count ?? 0) >= 2
                && (close || rowsRuled || nearer)
            // A line with its first column empty is the next line of the last row's cells when
            // it stands close under it, or, holding one cell, where rules part the table's rows
            // and none runs between them (a total's label and amount make a row of their own,
            // though a rule above it be lost).
            let oneCell = slots.compactMap { $0 }.count == 1
            if !grid.isEmpty, !ruled, (slots[0] == nil && (close || (rowsRuled && oneCell))) || wrapped {
                for (index, slot) in slots.enumerated() {
                    guard let slot else { continue }
                    if let existing = grid[grid.count - 1][index] {
                        // Words of the same line as a cell of one line (a short word the row
                        // chaining left out, such as the "of" of "Date of birth") go in their place
                        // along it; a next line's words after the last line's.
                        let (above, below) = (existing.box, slot.box)
                        let overlap = min(above.maxY, below.maxY) - max(above.y, below.y)
                        let oneLine = 2 * above.height <= 3 * (existing.words.map(\.box.height).max() ?? 0)
                        var words = existing.words + slot.words
                        if oneLine, 2 * overlap >= min(above.height, below.height) {
                            words.sort { along($0.box.x, $0.box.y + $0.box.height / 2) < along($1.box.x, $1.box.y + $1.box.height / 2) }
                        }
                        grid[grid.count - 1][index] = (
                            existing.first, existing.span, words.map(\.text).joined(separator: " "), existing.box.union(slot.box), words
                        )
                    } else {
                        grid[grid.count - 1][index] = slot
                    }
                }
                continue
            }
            grid.append(slots)
            rowTops.append(row.box.y)
        }
        return grid
    }

    /// Whether `rule` runs between two rows: its middle below the middle of `above` and over
    /// the middle of `below`, and across some of `below`.
    static func separates(_ rule: PixelRect, _ above: PixelRect, _ below: PixelRect) -> Bool {
        let middle = 2 * rule.y + rule.height
        return middle > 2 * above.y + above.height && middle < 2 * below.y + below.height && rule.x < below.maxX && rule.maxX > below.x
    }

    /// The table of the grid's slots, and each cell's words. Each cell's box is its place in
    /// the table, as a ruled cell's is: the table's rows and columns tile the box around its
    /// words, split midway between the words of neighbouring rows (their cells' median top and
    /// bottom: a word read across rows stretches no row) and of neighbouring columns.
    static func table(_ grid: [[Slot?]], columns: Int) -> (Table, [[PlacedWord]])? {
        guard grid.count >= 2, grid.count * columns >= 6 else { return nil }
        let slots = grid.enumerated().flatMap { r, row in row.compactMap { $0.map { (row: r, slot: $0) } } }
        guard let box = PixelRect.enclosing(slots.map(\.slot.box)) else { return nil }
        // Each row's and each column's words' extent (a spanning cell's words count for none of
        // its columns), then the bounds midway between neighbours.
        func bounds(_ extents: [(Int, Int)?], low: Int, high: Int) -> [(Int, Int)] {
            var edges = [low]
            for index in 1..<extents.count {
                let before = extents[..<index].compactMap { $0 }.last, after = extents[index...].compactMap { $0 }.first
                edges.append(before.flatMap { b in after.map { (b.1 + $0.0) / 2 } } ?? edges[index - 1])
            }
            edges.append(high)
            return (0..<extents.count).map { (edges[$0], max(edges[$0], edges[$0 + 1])) }
        }
        let rowExtents: [(Int, Int)?] = grid.map { row in
            let boxes = row.compactMap { $0?.box }
            guard !boxes.isEmpty else { return nil }
            let (tops, bottoms) = (boxes.map(\.y).sorted(), boxes.map(\.maxY).sorted())
            return (tops[tops.count / 2], bottoms[bottoms.count / 2])
        }
        let columnExtents: [(Int, Int)?] = (0..<columns).map { column in
            let boxes = slots.filter { $0.slot.first == column && $0.slot.span == 1 }.map(\.slot.box)
            return boxes.isEmpty ? nil : (boxes.map(\.x).min()!, boxes.map(\.maxX).max()!)
        }
        let rowBounds = bounds(rowExtents, low: box.y, high: box.maxY)
        let columnBounds = bounds(columnExtents, low: box.x, high: box.maxX)
        let cells = slots.map { r, slot in
            let span = min(slot.span, columns - slot.first)
            let (left, right) = (columnBounds[slot.first].0, columnBounds[slot.first + span - 1].1)
            let place = PixelRect(x: left, y: rowBounds[r].0, width: right - left, height: rowBounds[r].1 - rowBounds[r].0)
            return Table.Cell(row: r, column: slot.first, rowSpan: 1, columnSpan: span, text: slot.text, box: place)
        }
        return (Table(rows: grid.count, columns: columns, cells: cells, box: box, ruling: .alignment), slots.map(\.slot.words))
    }

    /// The page's tilt: the median slope of rows of several words (radians).
    static func skewAngle(_ rows: [WordRow]) -> Double {
        var slopes: [Double] = []
        for row in rows where row.words.count >= 3 {
            let first = row.words.first!.box, last = row.words.last!.box
            let dx = Double(last.centerX - first.centerX)
            guard dx > 0 else { continue }
            slopes.append(atan2(Double(last.centerY - first.centerY), dx))
        }
        guard !slopes.isEmpty else { return 0 }
        slopes.sort()
        return slopes[slopes.count / 2]
    }
}
