import ImageKernels
import ImagingCore
import TextRecognition

/// Turns a page and what a recognizer read on it into a `DocumentObservation`, in two steps
/// around the recognition:
///
/// 1. `prepare` finds the barcodes and the ruled tables in the pixels, and paints over the
///    ruling lines and barcodes with the paper's brightness, so the recognizer reads the
///    cells' text as text instead of dropping boxed grids, and reads no bars as letters.
/// 2. After the page is recognized (and `cellsToRead`, `charactersToRead` and `linesToRead`
///    read one by one where the page's reading left a cell with ink in it empty, a column of
///    lone characters or a line unread),
///    `assemble` places each word in its cell, list item or paragraph, finds tables without
///    rules from the alignment of words, and detects data in the text.
///
/// ```swift
/// let analyzer = DocumentAnalyzer()
/// let page = analyzer.prepare(luma)
/// let lines = try await recognizer.recognize(page.cleaned, options: options)
/// let document = analyzer.assemble(page, observations: lines)
/// ```
public struct DocumentAnalyzer: Sendable {
    public var barcodeReader: BarcodeReader
    public var dataDetector: DataDetector
    /// A gap between words wider than this many word heights separates two cells of a row.
    public var cellGap: Double
    /// A gap between words narrower than this many of the page's word spaces (the median gap
    /// between the words of its rows of four words or more, in word heights) never separates
    /// two cells, whatever `cellGap` says: on a phone photo rectified at an angle, or in print
    /// set wide, the space between the words of a date or a name can reach a word height.
    /// Chosen on `Datasets/structure`'s train phone photos among 1.5, 2 and 2.5.
    public var cellGapInWordSpaces: Double
    /// A word of a line read alone (`PreparedPage.linesToRead`) is kept when the recognizer's
    /// confidence in it is at least this. Such a line can be a few broken pieces of faint
    /// print, which read as letters at random: on the train split of `Datasets/structure`'s
    /// phone photos, 2 of the 27 words read below 0.7 were in the page, 204 of the 215 at 0.8 or more.
    public var lineWordConfidence: Double
    /// A page of whose characters at least this share lie wholly above its Otsu threshold is
    /// read with its faint print deepened (`faintPrintLevels`); more than 1 never. Chosen on
    /// `Datasets/structure`'s train phone photos among 0, 2%, 5%, 10%, 25% and 30%.
    public var faintShare: Double
    /// How thick a piece of ink may be, on average, for a character's height, to be painted
    /// out as a ruling line (`PageInk.isRule`): `documentRuleThickness` for a page read as a
    /// document, `textRuleThickness` for a page prepared for its text alone.
    public var ruleThickness: Double

    /// The rule thickness of a page read as a document: blur thickens a photographed table's
    /// rules, and a rule left on the page is read as letters beside its cells' text (at 0.4
    /// instead, the train phone photos of `Datasets/structure` and the sets of seeds 4242,
    /// 5151 and 6161 found 21 fewer of their 2 522 data).
    public static let documentRuleThickness = 0.6

    /// The rule thickness of a page prepared for its text alone (`GatedTextRecognizer.preparation`).
    /// A blurred or downscaled page runs a long word's letters together into one piece half a
    /// character high or more (on `Datasets/documents`' train pages, 90% of the pieces taken
    /// for rules at 0.6 were 0.48 thick or more), while a rule is a stroke: the long rules of
    /// `Datasets/structure`'s phone photos are at most 0.36 thick, its clean renders' 0.25. At
    /// 0.6 those pages lost words to the painting (mean word F1 on the train split 0.787 →
    /// 0.754); at 0.4 they read as they are, and the phone photos' text as at 0.6 (train
    /// photos of four structure sets within 0.003). The margin is thin: a photo blurred more
    /// than those keeps rules thicker than 0.4 on the page, where they are read as letters.
    public static let textRuleThickness = 0.4

    /// The analyzer that prepares a page for its text alone (`GatedTextRecognizer.preparation`):
    /// the defaults, with `textRuleThickness`.
    public static var textPreparation: DocumentAnalyzer { DocumentAnalyzer(ruleThickness: textRuleThickness) }

    public init(
        barcodeReader: BarcodeReader = BarcodeReader(), dataDetector: DataDetector = DataDetector(), cellGap: Double = 0.75,
        lineWordConfidence: Double = 0.7, faintShare: Double = 0.05, cellGapInWordSpaces: Double = 2,
        ruleThickness: Double = DocumentAnalyzer.documentRuleThickness
    ) {
        self.ruleThickness = ruleThickness
        self.cellGapInWordSpaces = cellGapInWordSpaces
        self.faintShare = faintShare
        self.barcodeReader = barcodeReader
        self.dataDetector = dataDetector
        self.cellGap = cellGap
        self.lineWordConfidence = lineWordConfidence
    }

    /// The first step: barcodes, grids and rules found; the pixels to recognize.
    public func prepare(_ photo: PixelBuffer<UInt8>) -> PreparedPage {
        // A page photographed at an angle is first seen straight on: from its edges when it
        // stands out from what surrounds it (and its lines are no more slanted for it), else
        // from the slant of its lines of text.
        let photo = photo.packedLuma
        // (A page found by its edges is not levelled again by its lines: what slant is left
        // after its rectification is more shear and perspective than a turn: levelling it as a
        // turn read 444 cells right instead of 473 on `Datasets/structure`'s train photos.)
        let (geometry, image) = PageGeometry.upright(photo)
        let barcodes = barcodeReader.barcodes(in: image)
        // A barcode's box grown by a tenth of its size (ZBar's points lie on the bars it
        // scanned); a 1-D code's further down and to the sides, where its digits are printed.
        let barcodeRegions = barcodes.map { code -> PixelRect in
            let linear = code.symbology != .qr
            let marginX = max(4, code.box.width * (linear ? 15 : 10) / 100), marginY = max(4, code.box.height / 10)
            let below = linear ? max(marginY, code.box.height * 35 / 100) : marginY
            return PixelRect(x: code.box.x - marginX, y: code.box.y - marginY, width: code.box.width + 2 * marginX, height: code.box.height + marginY + below)
                .clipped(to: image.size)
        }
        var (ink, grids, erase, cleaned) = Self.paintOut(image, barcodeRegions: barcodeRegions, ruleThickness: ruleThickness)
        // Light print on a dark fill (a table's header row printed white on a dark band) is
        // turned dark on light, and the ink and grids are found again: painted out with the
        // grid it joins, the band would take its print with it.
        var page = image
        var fills = Self.reversedFills(image, ink: ink)
        if !fills.isEmpty {
            // A code ZBar could not read is dark with light gaps too: regions of bars are no fill.
            let bars = image.withUnsafeBufferPointer { BarcodeReader.barRegions($0, width: image.width, height: image.height) }
            fills.removeAll { fill in bars.contains { 2 * $0.overlap(fill.box) >= fill.box.width * fill.box.height } }
        }
        if !fills.isEmpty {
            Self.reverse(fills, in: &page, edge: 2 * ink.factor)
            (ink, grids, erase, cleaned) = Self.paintOut(page, barcodeRegions: barcodeRegions, ruleThickness: ruleThickness)
        }
        // A page whose faint print would be lost is deepened, and its ink, grids and rules are
        // found again in the deepened page: faint ruling lines and markers come out too. Rules
        // are measured there against the page's own character height (`PageInk.ruleScale`):
        // deepening runs small print together, and its long words would pass for rules.
        let deepening = Self.faintPrintLevels(cleaned, ink: ink, erased: erase, share: faintShare)
        if let deepening {
            var deeper = page
            deeper.withUnsafeMutableBufferPointer { pixels in
                for index in pixels.indices { pixels[index] = deepening[Int(pixels[index])] }
            }
            (ink, grids, erase, cleaned) = Self.paintOut(deeper, barcodeRegions: barcodeRegions, characterHeightAtMost: ink.characterHeight, ruleThickness: ruleThickness)
        }
        return PreparedPage(
            size: image.size, geometry: geometry, cleaned: cleaned, faintPrintDeepened: deepening != nil, barcodes: barcodes,
            barcodeRegions: barcodeRegions, ink: ink, grids: grids, cellGap: cellGap)
    }

    /// A region filled dark with light print in it: its box in full-resolution pixels, the
    /// fill's level and the paper's.
    struct Fill: Equatable {
        var box: PixelRect
        var fill: Int
        var paper: Int
    }

    /// The regions of `image` filled dark that hold light print. A fill is a piece of solid ink
    /// (ink pixels whose neighbours within `PageInk`'s working pixels, a square of
    /// `fillReach` each way, are all ink) at least `fillWidth` character heights wide and
    /// `fillHeight` high, as dark as at most `fillDarkness` of the paper's level (the page's 90th
    /// percentile; a shaded table header a tenth darker than its paper is no fill), holding at
    /// least `fillCharacters` light pieces the size of characters: the print. A dark picture
    /// holds none; a thick rule is too thin. A fill is printed on the page: it lies a character
    /// height or more inside the frame, at most `fillTallest` character heights tall, with
    /// paper around it (`fillRing`); the ground around a sheet is none of these.
    static func reversedFills(_ image: PixelBuffer<UInt8>, ink: PageInk) -> [Fill] {
        let character = ink.characterHeight
        guard character >= 5, ink.width > 0, ink.height > 0 else { return [] }
        let large = ink.components.filter {
            Double($0.width) >= fillWidth * character && Double($0.height) >= fillHeight * character
                && Double($0.area) >= fillWidth * fillHeight * character * character / 2
        }
        guard !large.isEmpty else { return [] }
        // The paper's level, counted when a piece first needs it.
        var paperLevel: Int?
        let plane = ink.workingLuma
        var fills: [Fill] = []
        let (reach, margin) = (fillReach, Int(character.rounded(.up)))
        for component in large {
            let box = component.box
            let (solid, pieces) = solidInk(in: box, of: ink)
            for piece in pieces where Double(piece.width + 2 * reach) >= fillWidth * character && Double(piece.height + 2 * reach) >= fillHeight * character {
                let region = PixelRect(
                    x: box.x + piece.minX - reach, y: box.y + piece.minY - reach, width: piece.width + 2 * reach, height: piece.height + 2 * reach)
                // A fill is printed on the page: one reaching the frame's edge is the ground
                // around the sheet, or its shadow.
                guard region.x >= margin, region.y >= margin, region.x + region.width <= ink.width - margin,
                    region.y + region.height <= ink.height - margin, Double(region.height) <= fillTallest * character
                else { continue }
                if paperLevel == nil { paperLevel = Histogram(image).percentile(0.9) }
                let paper = paperLevel!
                // The fill's level: the median of its solid pixels.
                var levels = [Int](repeating: 0, count: 256)
                for y in piece.minY...piece.maxY {
                    for x in piece.minX...piece.maxX where solid[y * box.width + x] {
                        levels[Int(plane[box.x + x, box.y + y])] += 1
                    }
                }
                let fill = Histogram(counts: levels).percentile(0.5)
                guard Double(fill) <= fillDarkness * Double(paper),
                    holdsLightPrint(region, fill: fill, paper: paper, plane: plane, character: character, margin: margin)
                else { continue }
                fills.append(Fill(box: ink.fullResolution(region, within: image.size), fill: fill, paper: paper))
            }
        }
        return fills
    }

    /// The solid ink of `box` in the working page: each pixel whether the square `fillReach`
    /// each way around it is all ink (any component's: the print's neighbours count), by a
    /// summed-area table of the box's ink, and the solid pixels' 8-connected pieces, in the
    /// box's coordinates.
    static func solidInk(in box: PixelRect, of ink: PageInk) -> (solid: [Bool], pieces: [ConnectedComponents.Component]) {
        let (bw, bh, width) = (box.width, box.height, ink.width)
        let table = SummedAreaTable(width: bw, height: bh) { x, y in ink.labels[(box.y + y) * width + box.x + x] != 0 ? 1 : 0 }
        let reach = fillReach, full = (2 * reach + 1) * (2 * reach + 1)
        var solid = [Bool](repeating: false, count: bw * bh)
        if bw > 2 * reach, bh > 2 * reach {
            for y in reach..<(bh - reach) {
                for x in reach..<(bw - reach) {
                    solid[y * bw + x] = table.sum(x0: x - reach, y0: y - reach, x1: x + reach + 1, y1: y + reach + 1) == full
                }
            }
        }
        return (solid, ConnectedComponents.label(solid, width: bw, height: bh).1)
    }

    /// Whether a dark region of the working page at level `fill` is printed on paper and
    /// holds print: the ring `margin` pixels wide around it is paper (`fillRing` of it lighter
    /// than halfway from the fill to the paper), and inside it lie at least `fillCharacters`
    /// light pieces the size of characters, none touching its edge.
    static func holdsLightPrint(_ region: PixelRect, fill: Int, paper: Int, plane: PixelBuffer<UInt8>, character: Double, margin: Int) -> Bool {
        let middle = (fill + paper) / 2
        var (ring, lightRing) = (0, 0)
        for y in (region.y - margin)..<(region.y + region.height + margin) {
            for x in (region.x - margin)..<(region.x + region.width + margin)
            where y < region.y || y >= region.y + region.height || x < region.x || x >= region.x + region.width {
                ring += 1
                if Int(plane[x, y]) > middle { lightRing += 1 }
            }
        }
        guard Double(lightRing) >= fillRing * Double(ring) else { return false }
        var light = [Bool](repeating: false, count: region.width * region.height)
        for y in 0..<region.height {
            for x in 0..<region.width where Int(plane[region.x + x, region.y + y]) > middle {
                light[y * region.width + x] = true
            }
        }
        let (_, marks) = ConnectedComponents.label(light, width: region.width, height: region.height)
        let print = marks.filter {
            $0.minX > 0 && $0.minY > 0 && $0.maxX < region.width - 1 && $0.maxY < region.height - 1
                && Double($0.height) >= 0.4 * character && Double($0.height) <= 1.5 * character
        }
        return print.count >= fillCharacters
    }

    /// A working pixel is solid ink when the square this many pixels around it is all ink.
    static let fillReach = 2
    /// A fill is at least this many character heights wide and this many high, and at most
    /// `fillTallest` high (a band or a banner, not the ground around a sheet).
    static let fillWidth = 3.0
    static let fillHeight = 1.0
    static let fillTallest = 6.0
    /// Its level is at most this share of the paper's.
    static let fillDarkness = 0.6
    /// This share of a ring a character height wide around it is paper.
    static let fillRing = 0.75
    /// It holds at least this many light pieces the size of characters.
    static let fillCharacters = 3

    /// Each fill's levels reflected between the fill and the paper (the fill becomes paper and
    /// light print dark), and its box outlined at the fill's level `edge` pixels wide: the
    /// band's edges are the rules a table's grid is found by.
    static func reverse(_ fills: [Fill], in page: inout PixelBuffer<UInt8>, edge: Int) {
        let (width, height) = (page.width, page.height)
        page.withUnsafeMutableBufferPointer { pixels in
            for fill in fills {
                let box = fill.box.clipped(to: ImageSize(width: width, height: height))
                guard box.width > 0, box.height > 0 else { continue }
                // A table's column rules meet the band from below (or above): where a thin dark
                // run crosses the rows just outside it, dark in each of them (a rule, not a
                // letter's stroke), the rule goes on through the band.
                let middle = (fill.fill + fill.paper) / 2
                var through = [Bool](repeating: false, count: box.width)
                for (first, step) in [(box.y + box.height + edge, 1), (box.y - 1 - edge, -1)] {
                    let rows = (0..<(3 * edge)).map { first + step * $0 }
                    guard rows.allSatisfy({ $0 >= 0 && $0 < height }) else { continue }
                    func isDark(_ x: Int) -> Bool { rows.allSatisfy { Int(pixels[$0 * width + box.x + x]) < middle } }
                    var x = 0
                    while x < box.width {
                        guard isDark(x) else {
                            x += 1
                            continue
                        }
                        let start = x
                        while x < box.width, isDark(x) { x += 1 }
                        if x - start <= 3 * edge, start > 0, x < box.width { for k in start..<x { through[k] = true } }
                    }
                }
                for y in box.y..<(box.y + box.height) {
                    for x in box.x..<(box.x + box.width) {
                        let onEdge = x - box.x < edge || y - box.y < edge || box.x + box.width - 1 - x < edge || box.y + box.height - 1 - y < edge
                        let value = Int(pixels[y * width + x])
                        pixels[y * width + x] = UInt8(onEdge || through[x - box.x] ? fill.fill : max(0, min(255, fill.fill + fill.paper - value)))
                    }
                }
            }
        }
    }

    /// The page's ink and grids, which components are painted out (the grids and every other
    /// ruling line), and the page with them and the barcodes' regions painted with the paper's
    /// own brightness.
    static func paintOut(
        _ image: PixelBuffer<UInt8>, barcodeRegions: [PixelRect], characterHeightAtMost: Double? = nil, ruleThickness: Double
    ) -> (PageInk, [GridTable], [Bool], PixelBuffer<UInt8>) {
        let ink = PageInk(image, excluding: barcodeRegions, characterHeightAtMost: characterHeightAtMost, ruleThickness: ruleThickness)
        let grids = GridTable.find(in: ink)
        let gridComponents = Set(grids.map(\.component))
        var erase = [Bool](repeating: false, count: ink.components.count + 1)
        for index in ink.components.indices where gridComponents.contains(index + 1) || ink.isRule(index) {
            erase[index + 1] = true
        }
        var cleaned = image
        let factor = ink.factor
        cleaned.withUnsafeMutableBufferPointer { out in
            // A working pixel of a line, and its eight neighbours (the line's blurred edges), become paper.
            ink.labels.withUnsafeBufferPointer { labels in
                for wy in 0..<ink.height {
                    for wx in 0..<ink.width {
                        let label = labels[wy * ink.width + wx]
                        guard label != 0, erase[Int(label)] else { continue }
                        let paper = ink.paper[wy * ink.width + wx]
                        for y in max(0, (wy - 1) * factor)..<min(image.height, (wy + 2) * factor) {
                            for x in max(0, (wx - 1) * factor)..<min(image.width, (wx + 2) * factor) { out[y * image.width + x] = paper }
                        }
                    }
                }
            }
            for region in barcodeRegions {
                let paper = ink.paper[min(ink.height - 1, region.y / factor) * ink.width + min(ink.width - 1, region.x / factor)]
                for y in region.y..<(region.y + region.height) {
                    for x in region.x..<(region.x + region.width) { out[y * image.width + x] = paper }
                }
            }
        }
        return (ink, grids, erase, cleaned)
    }

    /// Tesseract finds a page's lines in a binary image made with one Otsu threshold, which
    /// falls between the paper and its darkest print: on a page printed partly in faint grey
    /// (or washed out under glare) beside dark headings, the faint lines lie above it, are
    /// never found, and so are never read. When at least `share` of the page's characters
    /// (`PageInk`'s pieces 5 pixels to a twentieth of the page high, at most three times as wide,
    /// less the rules and grids painted out) have their darkest pixel above that threshold, the
    /// page's levels are stretched so that the median darkest level of those characters becomes
    /// black and the paper (the page's 90th percentile) white: Otsu's threshold then falls
    /// between faint print and paper. Returns that stretch as a table of levels, or nil to leave the page be.
    static func faintPrintLevels(_ page: PixelBuffer<UInt8>, ink: PageInk, erased: [Bool], share: Double) -> [UInt8]? {
        guard share <= 1, page.width > 0, page.height > 0 else { return nil }
        let (width, height, factor) = (page.width, page.height, ink.factor)
        let histogram = Histogram(page)
        let threshold = histogram.otsuThreshold
        // Each character's darkest level (at the working scale, the mean of a block of the page):
        // a character whose darkest pixel lies above the threshold is lost in the binary image.
        var darkest = [Int](repeating: 256, count: ink.components.count + 1)
        page.withUnsafeBufferPointer { pixels in
            ink.labels.withUnsafeBufferPointer { labels in
                for wy in 0..<ink.height {
                    for wx in 0..<ink.width {
                        let label = Int(labels[wy * ink.width + wx])
                        guard label != 0, !erased[label] else { continue }
                        var (sum, count) = (0, 0)
                        for y in (wy * factor)..<min(height, (wy + 1) * factor) {
                            for x in (wx * factor)..<min(width, (wx + 1) * factor) { sum += Int(pixels[y * width + x]); count += 1 }
                        }
                        if count > 0 { darkest[label] = min(darkest[label], sum / count) }
                    }
                }
            }
        }
        var characters = 0
        var lostLevels = [Int](repeating: 0, count: 256)
        for (index, component) in ink.components.enumerated() where !erased[index + 1] && darkest[index + 1] < 256
            && component.height >= 5 && component.height <= max(6, ink.height / 20) && component.width <= 3 * component.height {
            characters += 1
            if darkest[index + 1] > threshold { lostLevels[darkest[index + 1]] += 1 }
        }
        let lost = lostLevels.reduce(0, +)
        guard characters > 0, lost > 0, Double(lost) >= share * Double(characters) else { return nil }
        let paper = histogram.percentile(0.9)
        let black = min(Histogram(counts: lostLevels).percentile(0.5), paper - 20)
        guard black > 0 else { return nil }
        let table = (0..<256).map { value in
            UInt8(max(0, min(255, ((value - black) * 255 + (paper - black) / 2) / (paper - black))))
        }
        return table
    }

    /// The second step: the document from the page's recognized lines, any words read from
    /// single cells (`PreparedPage.cellsToRead`) and those of each line read alone
    /// (`PreparedPage.linesToRead`, in its order), read from `PreparedPage.cleaned` (the lines
    /// from `PreparedPage.paperFlattened`, as `GatedTextRecognizer` reads them); its
    /// boxes are in the photo's full-resolution pixels. `lineRegions` are the regions
    /// `linesToRead` gave, when the caller has them; otherwise they are found again.
    public func assemble(
        _ page: PreparedPage, observations: [RecognizedTextObservation], cellWords: [RecognizedWord] = [], lineWords: [[RecognizedWord]] = [],
        lineRegions: [PixelRect]? = nil
    ) -> DocumentObservation {
        var words: [PlacedWord] = []
        // A word read where the page holds no ink but the grids and rules painted out is no
        // word: Tesseract reads a dash into the blank between two columns of a table, or where
        // a ruling line was. Nor is a column of lines read as one word.
        let grids = Set(page.grids.map { Int32($0.component) })
        func isRead(_ word: RecognizedWord) -> Bool { page.isWord(word) && page.ink.holdsInk(in: word.pixelBox, excluding: grids) }
        var confidences: [Double] = []
        for (line, observation) in observations.enumerated() {
            for word in observation.words where isRead(word) {
                words.append(PlacedWord(text: word.text.string, box: word.pixelBox, block: observation.block, paragraph: observation.paragraph, line: line))
                confidences.append(word.text.confidence)
            }
        }
        // A row read whole (`linesToRead` takes in the words the page's reading gave it) replaces
        // the page's words in it when the recognizer is on average as sure of its own reading.
        let regions = lineWords.isEmpty ? [] : lineRegions ?? page.linesToRead(after: observations)
        // Each row read whole keeps the place (block, paragraph, line) of the first word it replaced.
        var rowsReadWhole: [Int: PlacedWord] = [:]
        if regions.count == lineWords.count {
            var replaced = Set<Int>()
            for (index, (region, line)) in zip(regions, lineWords).enumerated() {
                let alone = line.filter(isRead)
                let inside = words.indices.filter { !replaced.contains($0) && region.contains(x: words[$0].box.centerX, y: words[$0].box.centerY) }
                guard !alone.isEmpty, !inside.isEmpty else { continue }
                let aloneMean = alone.map(\.text.confidence).reduce(0, +) / Double(alone.count)
                let pageMean = inside.map { confidences[$0] }.reduce(0, +) / Double(inside.count)
                if aloneMean >= pageMean || Self.readsOn(alone.map(\.text.string), from: inside.map { words[$0].text }) {
                    replaced.formUnion(inside)
                    rowsReadWhole[index] = inside.map { words[$0] }.min { ($0.box.x, $0.box.y) < ($1.box.x, $1.box.y) }
                }
            }
            words = words.indices.filter { !replaced.contains($0) }.map { words[$0] }
        }
        // A word read alone outside the grids (a list's marker the page's reading took only
        // the full stop of) replaces the words of the page's reading under it.
        let aloneOutsideGrids = cellWords.filter { word in
            isRead(word) && !page.grids.contains { $0.box.contains(x: word.pixelBox.centerX / page.ink.factor, y: word.pixelBox.centerY / page.ink.factor) }
        }
        words.removeAll { word in aloneOutsideGrids.contains { $0.pixelBox.contains(x: word.box.centerX, y: word.box.centerY) } }
        for word in cellWords where isRead(word) {
            words.append(PlacedWord(text: word.text.string, box: word.pixelBox, block: -1, paragraph: -1, line: -1))
        }
        // A line read alone is a paragraph of its own (block -2, -3, …) unless it continues a line
        // of the page's reading (`lineContinued`); a word of it that the page's reading already
        // has, that lies in a grid, or that was read with little confidence (unless between two
        // words of it read surely) is dropped.
        let pageWords = words
        for (index, line) in lineWords.enumerated() {
            var place = rowsReadWhole[index]
            let read = line.map(isRead)
            let onPage = line.map { word in pageWords.contains(where: { $0.box.contains(x: word.pixelBox.centerX, y: word.pixelBox.centerY) }) }
            // A word read surely, or one the page's reading has: either way, print of the line.
            let sure = line.indices.map { read[$0] && (onPage[$0] || line[$0].text.confidence >= lineWordConfidence) }
            // A word read with little confidence between two such words on its row, at most the
            // height of their print from each, is a word of the line the page's reading dropped
            // ("the netlink protocol does", "protocol" read at 0.38), not a broken piece of print
            // read as letters.
            func flanked(_ i: Int) -> Bool {
                guard i > 0, i + 1 < line.count, sure[i - 1], sure[i + 1] else { return false }
                let (before, word, after) = (line[i - 1].pixelBox, line[i].pixelBox, line[i + 1].pixelBox)
                let height = Double(max(before.height, after.height))
                let gaps = [Double(word.x - before.maxX), Double(after.x - word.maxX)]
                return word.sharesRow(with: before) && word.sharesRow(with: after) && gaps.allSatisfy { $0 >= -0.25 * height && $0 <= height }
            }
            let kept = line.indices.filter { i in
                let (cx, cy) = (line[i].pixelBox.centerX, line[i].pixelBox.centerY)
                return read[i] && (place != nil || line[i].text.confidence >= lineWordConfidence || flanked(i))
                    && !onPage[i]
                    && !page.grids.contains(where: { $0.box.contains(x: cx / page.ink.factor, y: cy / page.ink.factor) })
            }.map { line[$0] }
            if place == nil, let continued = Self.lineContinued(by: kept.map { ($0.text.string, $0.pixelBox) }, in: words) {
                // The end of a line the page's reading broke off ("need d to s" and "set the"
                // read alone), or a word it dropped, belongs to that line; the page's words
                // under its words (the "s") were the same print read in part.
                place = continued
                words.removeAll { word in
                    word.block == continued.block && word.line == continued.line && kept.contains { Self.readAgain(word.box, under: $0.pixelBox) }
                }
            }
            for word in kept {
                words.append(
                    PlacedWord(
                        text: word.text.string, box: word.pixelBox, block: place?.block ?? -2 - index, paragraph: place?.paragraph ?? 0,
                        line: place?.line ?? -2 - index))
            }
        }
        // Nothing read inside a barcode is text.
        words.removeAll { word in page.barcodeRegions.contains { $0.contains(x: word.box.centerX, y: word.box.centerY) } }

        // Grid cells take the words whose centres fall in them.
        var elements: [Element] = []
        var free: [PlacedWord] = []
        var cellWordsByTable = page.grids.map { Array(repeating: [PlacedWord](), count: $0.cells.count) }
        // Each word's grid cell ([table, cell]) by its centre; a cell read on its own takes its
        // words from that reading only.
        let places = words.map { word -> [Int]? in
            let wx = word.box.centerX / page.ink.factor, wy = word.box.centerY / page.ink.factor
            return page.grids.enumerated().lazy.compactMap { index, grid in grid.cell(atX: wx, y: wy).map { [index, $0] } }.first
        }
        let readAlone = Set(zip(words, places).compactMap { word, place in word.line == -1 ? place : nil })
        for (word, place) in zip(words, places) {
            guard let place else {
                free.append(word)
                continue
            }
            if word.line != -1, readAlone.contains(place) { continue }
            cellWordsByTable[place[0]][place[1]].append(word)
        }
        for (index, grid) in page.grids.enumerated() {
            var cells: [Table.Cell] = []
            for (number, cell) in grid.cells.enumerated() {
                let box = page.ink.fullResolution(cell.box, within: page.size)
                let text = WordRow.rows(cellWordsByTable[index][number], gapFactor: .infinity).map { WordRow.text($0.words) }.joined(separator: " ")
                cells.append(Table.Cell(row: cell.row, column: cell.column, rowSpan: cell.rowSpan, columnSpan: cell.columnSpan, text: text, box: box))
            }
            let table = Table(rows: grid.rows, columns: grid.columns, cells: cells, box: page.ink.fullResolution(grid.box, within: page.size), ruling: .grid)
            elements.append(Self.columnsAgreed(table, Self.tableWords(table, cellWordsByTable[index], grid: grid)))
        }

        // Lists, then tables without a grid, from the rows of the remaining words; the rest is paragraphs.
        // A list's markers the recognizer dropped (a dash, a small square) are found in the ink
        // left of the rows' first words; those that start a list's items are kept as its markers.
        let fill = { (box: PixelRect) in page.ink.inkFraction(in: box) }
        let inkMarkers = page.ink.unreadMarkers(before: free, excluding: page.grids.map(\.box))
        let markerKeys = Set(inkMarkers.map(WordKey.init))
        let gapFactor = WordRow.cellGapFactor(free, cellGap: cellGap, wordSpaces: cellGapInWordSpaces)
        let rowsWithMarkers = WordRow.rows(free + inkMarkers, gapFactor: gapFactor)
        free += ListFinder.lists(in: rowsWithMarkers, fill: fill).flatMap { found in
            found.rows.compactMap { row in rowsWithMarkers[row].words.first.flatMap { markerKeys.contains(WordKey($0)) ? $0 : nil } }
        }
        let rows = WordRow.rows(free, gapFactor: gapFactor)
        let lists = ListFinder.lists(in: rows, fill: fill)
        var taken = Set<Int>()
        for found in lists {
            taken.formUnion(found.rows)
            elements.append(.list(found.list, found.itemWords))
        }
        let rules = zip(page.ink.components, page.ink.rules).filter { $1 && $0.width >= 4 * $0.height }.map {
            page.ink.fullResolution($0.0.box, within: page.size)
        }
        for found in AlignedTables.tables(in: rows, skipping: taken, rules: rules, cellGap: cellGap) {
            taken.formUnion(found.rows)
            elements.append(Self.columnsAgreed(found.table, found.cellWords))
        }
        let takenWords = Set(taken.flatMap { rows[$0].words.map { WordKey($0) } })
        let rest = free.filter { !takenWords.contains(WordKey($0)) }
        var paragraphs: [(key: [Int], words: [PlacedWord])] = []
        for word in rest {
            let key = [word.block, word.paragraph]
            if let index = paragraphs.firstIndex(where: { $0.key == key }) { paragraphs[index].words.append(word) } else { paragraphs.append((key, [word])) }
        }
        for paragraph in paragraphs {
            // Lines in order, words left to right within each.
            let lines = Dictionary(grouping: paragraph.words, by: \.line).sorted { $0.key < $1.key }.map { $0.value.sorted { $0.box.x < $1.box.x } }
            let ordered = lines.flatMap { $0 }
            let text = lines.map { $0.map(\.text).joined(separator: " ") }.joined(separator: " ")
            elements.append(.paragraph(DocumentObservation.Paragraph(text: text, box: PixelRect.enclosing(ordered.map(\.box))!), ordered))
        }
        let document = compose(elements, barcodes: page.barcodes)
        return page.geometry.map { document.mapped(by: $0.sourceRect) } ?? document
    }

    // MARK: - Text and detected data

    enum Element {
        case paragraph(DocumentObservation.Paragraph, [PlacedWord])
        case list(DocumentList, [[PlacedWord]])
        /// The table and each cell's words.
        case table(Table, [[PlacedWord]])

        var box: PixelRect {
            switch self {
            case .paragraph(let paragraph, _): paragraph.box
            case .list(let list, _): list.box
            case .table(let table, _): table.box
            }
        }
    }

    /// The page's word whose line a line read alone continues (its words' texts and boxes):
    /// the page's word nearest on the left of the alone line's first word, sharing its row and
    /// ending at most half that word's height before it starts, or running into it. Tesseract
    /// breaks a line off where its print runs together or fades, or drops a word from its
    /// middle, and the unread print is read alone. The line's other words must leave the alone
    /// line's place free (each lies before or after it, give or take half a height, or is the
    /// same print read in part: half its width or more under an alone word), and the alone line
    /// must hold two letters or digits (a speck read as `1` continues nothing); else nil.
    static func lineContinued(by alone: [(text: String, box: PixelRect)], in pageWords: [PlacedWord]) -> PlacedWord? {
        guard alone.map(\.text).joined().filter({ $0.isLetter || $0.isNumber }).count >= 2,
            let first = alone.map(\.box).min(by: { $0.x < $1.x }), let last = alone.map(\.box).max(by: { $0.maxX < $1.maxX })
        else { return nil }
        guard let word = pageWords.filter({ word in
            word.line >= 0 && word.box.x < first.x && word.box.sharesRow(with: first)
                && 2 * (first.x - word.box.maxX) <= first.height
        }).max(by: { $0.box.maxX < $1.box.maxX }) else { return nil }
        let slack = first.height / 2
        let free = pageWords.allSatisfy { other in
            other.block != word.block || other.line != word.line || other.box.maxX <= first.x + slack || other.box.x >= last.maxX - slack
                || alone.contains { readAgain(other.box, under: $0.box) }
        }
        return free ? word : nil
    }

    /// Whether half a page word's width or more lies under a word read alone: the same print.
    static func readAgain(_ word: PixelRect, under alone: PixelRect) -> Bool {
        2 * Swift.max(0, Swift.min(alone.maxX, word.maxX) - Swift.max(alone.x, word.x)) >= word.width
    }

    /// Whether a row read alone reads on where the page's reading of it stopped: the page's
    /// words (four characters or more), all but their last character, start the row's own
    /// reading, which holds two letters or digits or more beyond the page's (not a speck read
    /// as `~`). Tesseract reads a line whose print fades towards its end (a
    /// light's falloff, glare) up to where the print fades and is sure of what it read there;
    /// read alone, it reads the faint end too, less surely ("hendrix.osee@exam" and
    /// "hendrix.osee@example.or").
    static func readsOn(_ alone: [String], from page: [String]) -> Bool {
        let aloneText = alone.joined(separator: " "), pageText = page.joined(separator: " ")
        guard pageText.count >= 4, aloneText.hasPrefix(pageText.dropLast()) else { return false }
        return aloneText.dropFirst(pageText.count).filter { $0.isLetter || $0.isNumber }.count >= 2
    }

    /// A table and its cells' words as its columns read them: without the stray stops after
    /// row numbers (`numbersWithoutStrayStops`), each unit the one its column gives (`unitsAgreed`),
    /// no cell starting with a rule's stub (`withoutRuleStubs`).
    static func columnsAgreed(_ table: Table, _ cellWords: [[PlacedWord]]) -> Element {
        let (stubless, words) = withoutRuleStubs(table, cellWords)
        return unitsAgreed(numbersWithoutStrayStops(stubless, words))
    }

    /// A table and its cells' words without the dash, tilde or underscore glued to the start
    /// of a cell's first word ("—€9,18", "~—-21 December 1997", "_Date of birth"): the end of
    /// a rule painted out up to the cell's edge, or of a form's underline, read as a character.
    /// A hyphen alone stays (a minus sign), a tilde alone too ("~5 kg": about five), and so does
    /// a dash standing alone (an empty cell's mark).
    static func withoutRuleStubs(_ table: Table, _ cellWords: [[PlacedWord]]) -> (Table, [[PlacedWord]]) {
        var (table, cellWords) = (table, cellWords)
        for cell in table.cells.indices {
            guard let first = cellWords[cell].first,
                let stub = first.text.prefixMatch(of: /(?:[—_]|~(?=[-—_~]))[-—_~:;.,'"‘’]*(?=[^\s\-—_~])/)
            else { continue }
            // The first word kept is the cell's first in reading order only when the text starts with it.
            guard table.cells[cell].text.hasPrefix(stub.output) else { continue }
            let length = stub.output.count
            cellWords[cell][0].text.removeFirst(length)
            table.cells[cell].text.removeFirst(length)
        }
        return (table, cellWords)
    }

    /// A table and its cells' words, with the stray stop after a lone number taken off in a
    /// column of lone numbers that mostly have none: a recognizer reads a speck beside a row
    /// number as a full stop or a comma ("3." among "1", "2" and "4").
    static func numbersWithoutStrayStops(_ table: Table, _ cellWords: [[PlacedWord]]) -> Element {
        var (table, cellWords) = (table, cellWords)
        for column in 0..<table.columns {
            let cells = table.cells.indices.filter { table.cells[$0].column == column && table.cells[$0].columnSpan == 1 }
            let bare = cells.filter { table.cells[$0].text.wholeMatch(of: /\d{1,3}/) != nil }
            let stopped = cells.filter { table.cells[$0].text.wholeMatch(of: /\d{1,3}[.,:]/) != nil && cellWords[$0].count == 1 }
            guard bare.count >= 2, bare.count > stopped.count else { continue }
            for cell in stopped {
                table.cells[cell].text.removeLast()
                cellWords[cell][0].text.removeLast()
            }
        }
        return .table(table, cellWords)
    }

    /// A table whose cells of a number and a unit take the unit most of their column gives,
    /// where the recognizer read one of its letters as a letter that looks alike ("200 mi"
    /// among "190 ml" and "550 ml": an l read as an i; "4 kq" among "kg"). A column with three
    /// such cells or more, more than half of them in one unit, says which unit it holds.
    static func unitsAgreed(_ element: Element) -> Element {
        guard case .table(var table, var cellWords) = element else { return element }
        for column in 0..<table.columns {
            var measured: [(cell: Int, unit: String)] = []
            for cell in table.cells.indices where table.cells[cell].column == column && table.cells[cell].columnSpan == 1 {
                if let match = table.cells[cell].text.wholeMatch(of: /\d[\d.,]*\s?(\p{L}{1,4})/) { measured.append((cell, String(match.1))) }
            }
            guard measured.count >= 3 else { continue }
            let counts = Dictionary(measured.map { ($0.unit, 1) }, uniquingKeysWith: +)
            guard let (unit, count) = counts.max(by: { $0.value < $1.value }), 2 * count > measured.count else { continue }
            for (cell, read) in measured where read != unit && lookAlike(read, unit) {
                guard var last = cellWords[cell].last, last.text.hasSuffix(read) else { continue }
                last.text = String(last.text.dropLast(read.count)) + unit
                cellWords[cell][cellWords[cell].count - 1] = last
                table.cells[cell].text = String(table.cells[cell].text.dropLast(read.count)) + unit
            }
        }
        return .table(table, cellWords)
    }

    /// Whether two words of as many letters differ only in letters a recognizer takes for each
    /// other: l, i, 1 and I; g and q; o, O and 0; c and e.
    static func lookAlike(_ a: String, _ b: String) -> Bool {
        let classes: [Set<Character>] = [["l", "i", "1", "I", "|"], ["g", "q"], ["o", "O", "0"], ["c", "e"]]
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in x == y || classes.contains { $0.contains(x) && $0.contains(y) } }
    }

    static func tableWords(_ table: Table, _ words: [[PlacedWord]], grid: GridTable) -> [[PlacedWord]] {
        // Cells were sorted by row and column; the words follow the same order.
        let order = grid.cells.indices.sorted { (grid.cells[$0].row, grid.cells[$0].column) < (grid.cells[$1].row, grid.cells[$1].column) }
        return order.map { words[$0] }
    }

    /// The document's text (elements top to bottom: paragraphs, list items as "marker text",
    /// table rows with cells separated by tabs, one per line) and the data found in it, each
    /// with the box of the words it came from.
    func compose(_ elements: [Element], barcodes: [Barcode]) -> DocumentObservation {
        let ordered = elements.sorted { $0.box.y != $1.box.y ? $0.box.y < $1.box.y : $0.box.x < $1.box.x }
        var text = ""
        var scalarCount = 0
        var pieces: [(range: Range<Int>, box: PixelRect)] = []
        func append(_ string: String, box: PixelRect? = nil) {
            let count = string.unicodeScalars.count
            if let box { pieces.append((scalarCount..<(scalarCount + count), box)) }
            text += string
            scalarCount += count
        }
        func appendWords(_ words: [PlacedWord]) {
            for (index, word) in words.enumerated() {
                if index > 0 { append(" ") }
                append(word.text, box: word.box)
            }
        }
        var document = DocumentObservation(barcodes: barcodes)
        for element in ordered {
            if !text.isEmpty { append("\n") }
            switch element {
            case .paragraph(let paragraph, let words):
                document.paragraphs.append(paragraph)
                appendWords(words)
            case .list(let list, let itemWords):
                document.lists.append(list)
                for (index, item) in list.items.enumerated() {
                    if index > 0 { append("\n") }
                    append(item.marker + " ")
                    appendWords(itemWords[index])
                }
            case .table(let table, let cellWords):
                document.tables.append(table)
                // A tab between every two columns, so the columns line up where a place is empty.
                for row in 0..<table.rows {
                    if row > 0 { append("\n") }
                    for column in 0..<table.columns {
                        if column > 0 { append("\t") }
                        guard let cell = table.cells.firstIndex(where: { $0.row == row && $0.column == column }) else { continue }
                        let words = cellWords[cell]
                        let lines = WordRow.rows(words, gapFactor: .infinity)
                        for (lineIndex, line) in lines.enumerated() {
                            if lineIndex > 0 { append(" ") }
                            appendWords(line.words)
                        }
                    }
                }
            }
        }
        document.text = text
        document.detectedData = dataDetector.detect(in: text).map { datum in
            var datum = datum
            datum.box = PixelRect.enclosing(pieces.filter { $0.range.overlaps(datum.range) }.map(\.box))
            return datum
        }
        return document
    }
}

/// A page after `DocumentAnalyzer.prepare`.
public struct PreparedPage: Sendable {
    /// The size of `cleaned`.
    public var size: ImageSize
    /// Where the page lies in a photo taken at an angle; nil when it was used as it is.
    public var geometry: PageGeometry?
    /// The pixels to recognize: the page (seen straight on) with its ruling lines and
    /// barcodes painted over.
    public var cleaned: PixelBuffer<UInt8>
    /// Whether `cleaned`'s faint print was deepened (`DocumentAnalyzer.faintPrintLevels`).
    public var faintPrintDeepened: Bool
    public var barcodes: [Barcode]
    var barcodeRegions: [PixelRect]
    var ink: PageInk
    var grids: [GridTable]
    /// The analyzer's `cellGap`: a row read whole (`linesToRead`) is one cell's width of words.
    var cellGap: Double

    /// The number of ruled tables found.
    public var gridCount: Int { grids.count }

    /// `cleaned` with the paper of each of `regions` (full-resolution boxes, such as
    /// `linesToRead` gives) made white: every pixel divided by the paper's level around it.
    /// The paper's level is read per column of the region, as its brightest pixel, then the
    /// brightest within `paperWindow` character heights along the line, averaged over as
    /// many. A photo's light falls off across a page (a shadow at its edge, glare); read
    /// alone, a line's region is binarized with one threshold, and where its paper is darker
    /// than the rest the threshold takes paper for ink.
    public func paperFlattened(_ regions: [PixelRect]) -> PixelBuffer<UInt8> {
        var page = cleaned
        guard page.channels == 1 else { return page }
        let window = max(3, Int((Self.paperWindow * ink.characterHeight * Double(ink.factor)).rounded()))
        let stride = page.rowStride
        for region in regions {
            // Two pixels beyond the region: the recognizer rounds a region of interest outward.
            let box = PixelRect(x: region.x - 2, y: region.y - 2, width: region.width + 4, height: region.height + 4).clipped(to: page.size)
            guard box.width >= 2, box.height >= 2 else { continue }
            var top = [Int](repeating: 0, count: box.width)
            cleaned.withUnsafeBufferPointer { pixels in
                for y in box.y..<box.maxY {
                    let row = y * stride + box.x
                    for x in 0..<box.width { top[x] = max(top[x], Int(pixels[row + x])) }
                }
            }
            let paper = Self.slidingMean(Self.slidingMaximum(top, window: window), window: window)
            cleaned.withUnsafeBufferPointer { pixels in
                page.withUnsafeMutableBufferPointer { out in
                    for y in box.y..<box.maxY {
                        let row = y * stride + box.x
                        for x in 0..<box.width {
                            out[row + x] = UInt8(min(255, (255 * Double(pixels[row + x]) / max(paper[x], 16)).rounded()))
                        }
                    }
                }
            }
        }
        return page
    }

    /// The window of `paperFlattened`, in character heights.
    static let paperWindow = 1.5

    /// The largest of `values` within half a window either side of each, in one pass: a
    /// queue of the indices whose values may still be a maximum, their values falling.
    static func slidingMaximum(_ values: [Int], window: Int) -> [Int] {
        let half = window / 2
        var result = [Int](repeating: 0, count: values.count)
        var queue: [Int] = [], head = 0
        var next = 0
        for index in values.indices {
            // Take in every value up to half a window ahead; drop those half a window behind.
            while next < values.count, next <= index + half {
                while queue.count > head, values[queue[queue.count - 1]] <= values[next] { queue.removeLast() }
                queue.append(next)
                next += 1
            }
            while queue[head] < index - half { head += 1 }
            result[index] = values[queue[head]]
        }
        return result
    }

    /// The mean of `values` within half a window either side of each.
    static func slidingMean(_ values: [Int], window: Int) -> [Double] {
        let half = window / 2
        let sums = SummedAreaTable(values, width: values.count, height: 1)
        return values.indices.map { index in
            let low = max(0, index - half), high = min(values.count, index + half + 1)
            return Double(sums.sum(x0: low, y0: 0, x1: high, y1: 1)) / Double(high - low)
        }
    }

    /// Lines read from `cleaned`, their boxes moved to the photo's pixels.
    public func sourceObservations(_ observations: [RecognizedTextObservation]) -> [RecognizedTextObservation] {
        guard let geometry else { return observations }
        return observations.map { line in
            let words = line.words.map { word in
                RecognizedWord(text: word.text, pixelBox: geometry.sourceRect(word.pixelBox), imageSize: geometry.sourceSize, language: word.language)
            }
            return RecognizedTextObservation(
                candidates: line.candidates, pixelBox: geometry.sourceRect(line.pixelBox), imageSize: geometry.sourceSize, words: words,
                block: line.block, paragraph: line.paragraph)
        }
    }

    /// Whether a recognized word counts as one: it has text and is not a column of lines read
    /// as one word (`PageInk.isStacked`).
    func isWord(_ word: RecognizedWord) -> Bool { !word.text.string.allSatisfy(\.isWhitespace) && !ink.isStacked(word) }

    /// The grid cells (full-resolution boxes) whose text the page's reading missed, whole or
    /// in part: cells holding a piece of ink the size of a character that no word of
    /// `observations` covers. Tesseract's layout analysis drops words in boxes; read alone,
    /// a cell's words come back. `assemble` takes such a cell's words from its own reading.
    public func cellsToRead(after observations: [RecognizedTextObservation]) -> [PixelRect] {
        var wordBoxes: [[Int]: [PixelRect]] = [:]
        for observation in observations {
            for word in observation.words where isWord(word) {
                let wx = word.pixelBox.centerX / ink.factor, wy = word.pixelBox.centerY / ink.factor
                for (index, grid) in grids.enumerated() {
                    if let cell = grid.cell(atX: wx, y: wy) { wordBoxes[[index, cell], default: []].append(word.pixelBox) }
                }
            }
        }
        var rects: [PixelRect] = []
        for (index, grid) in grids.enumerated() {
            for (number, cell) in grid.cells.enumerated() {
                let covered = wordBoxes[[index, number]] ?? []
                guard ink.hasUnreadText(in: cell.box, excluding: grid.component, words: covered) else { continue }
                rects.append(ink.fullResolution(cell.box, within: size))
            }
        }
        return rects
    }

    /// Most lines `linesToRead` gives for one page: each is a recognizer call, and a page
    /// with more unread lines than this is mostly not text (a photograph, a noisy scan).
    public static let maximumLinesToRead = 48

    /// The ink the page's reading left unread, at working scale: runs of ink pieces the
    /// height of characters, outside the grids, under no word read, joined side by side, each
    /// with its box and its number of pieces; the words' boxes; the characters' height.
    /// `charactersToRead` and `linesToRead` choose among the runs.
    public struct UnreadInk: Sendable {
        var runs: [(box: PixelRect, count: Int)]
        var words: [PixelRect]
        var character: Double
    }

    /// The unread ink after `observations`; nil when the page has no characters.
    public func unreadInk(after observations: [RecognizedTextObservation]) -> UnreadInk? {
        let character = ink.characterHeight
        guard character >= 3 else { return nil }
        let wordBoxes = observations.flatMap { line in
            line.words.filter(isWord).map(\.pixelBox)
        }
        let gridBoxes = grids.map(\.box)
        var pieces: [PageInk.Component] = []
        for (index, component) in ink.components.enumerated() {
            let height = Double(component.height)
            guard height >= 0.5 * character, height <= 2 * character, Double(component.width) <= 20 * character,
                !ink.isRule(index)
            else { continue }
            let cx = (component.minX + component.maxX + 1) / 2, cy = (component.minY + component.maxY + 1) / 2
            guard !gridBoxes.contains(where: { $0.contains(x: cx, y: cy) }),
                !wordBoxes.contains(where: { $0.contains(x: cx * ink.factor, y: cy * ink.factor) })
            else { continue }
            pieces.append(component)
        }
        pieces.sort { $0.minX < $1.minX }
        // Pieces join when the gap between them is under twice the character height and their
        // middles are within half a character height (a line tilted a few degrees still joins).
        var sets = DisjointSets(count: pieces.count)
        for i in pieces.indices {
            let middle = Double(pieces[i].minY + pieces[i].maxY) / 2
            var j = i + 1
            while j < pieces.count, Double(pieces[j].minX - pieces[i].maxX) <= 2 * character {
                if abs(Double(pieces[j].minY + pieces[j].maxY) / 2 - middle) <= 0.5 * character { sets.union(i, j) }
                j += 1
            }
        }
        var lines: [Int: (box: PixelRect, count: Int)] = [:]
        for index in pieces.indices {
            let box = pieces[index].box, root = sets.root(index)
            if let line = lines[root] {
                lines[root] = (PixelRect.enclosing([line.box, box])!, line.count + 1)
            } else {
                lines[root] = (box, 1)
            }
        }
        let words = wordBoxes.map { PixelRect(x: $0.x / ink.factor, y: $0.y / ink.factor, width: $0.width / ink.factor, height: $0.height / ink.factor) }
        return UnreadInk(runs: Array(lines.values), words: words, character: character)
    }

    /// A run's region to read alone (full resolution): padded by about half a character
    /// across and a third above and below, within the page.
    func regionToRead(_ box: PixelRect, character: Double) -> PixelRect {
        let padX = Int((0.6 * character).rounded(.up)), padY = Int((0.35 * character).rounded(.up))
        let padded = PixelRect(x: box.x - padX, y: box.y - padY, width: box.width + 2 * padX, height: box.height + 2 * padY)
        return ink.fullResolution(padded.clipped(to: ImageSize(width: ink.width, height: ink.height)), within: size)
    }

    /// Whether a run is the rest of a word read: it ends within a character height of the
    /// word, on the same line (a word's box that left out its last letters).
    static func continuesAWord(_ box: PixelRect, words: [PixelRect], character: Double) -> Bool {
        words.contains { word in word.sharesRow(with: box) && Double(max(word.x - box.maxX, box.x - word.maxX)) < character }
    }

    /// Lone characters and list markers the page's reading missed that stand in a column
    /// (full-resolution boxes, top to bottom). A lone character: a run of one narrow piece
    /// (`linesToRead` reads none: alone it may be a speck) with two more such runs whose
    /// middles lie within a character height of its own across the page; a table's row numbers
    /// or quantities: Tesseract's layout analysis drops a lone digit, and a block's reading
    /// (`RecognitionOptions.RegionContent.block`) reads it. A marker: a run of at most three
    /// pieces, at most 1.5 characters wide, that starts its line (no word read and no other
    /// run within 2 characters left of it) just before a word read (0.15 to 3 characters
    /// apart), with two more such runs whose left or right edges lie within a character of its
    /// own; Tesseract's page reading drops a list's "1)" and "2." set apart from the text,
    /// and `linesToRead` takes them for the ends of the words beside them.
    public func charactersToRead(after observations: [RecognizedTextObservation]) -> [PixelRect] {
        charactersToRead(in: unreadInk(after: observations))
    }

    /// `charactersToRead(after:)` from the unread ink, found already.
    public func charactersToRead(in unread: UnreadInk?) -> [PixelRect] {
        guard let (runs, words, character) = unread.map({ ($0.runs, $0.words, $0.character) }) else { return [] }
        let lone = runs.indices.filter {
            runs[$0].count == 1 && Double(runs[$0].box.width) < 1.2 * character && !Self.continuesAWord(runs[$0].box, words: words, character: character)
        }
        let markers = runs.indices.filter { index in
            let box = runs[index].box
            guard runs[index].count <= 3, Double(box.width) <= 1.5 * character,
                words.contains(where: { $0.sharesRow(with: box) && Double($0.x - box.maxX) >= 0.15 * character && Double($0.x - box.maxX) <= 3 * character })
            else { return false }
            func isBefore(_ other: PixelRect) -> Bool { other.sharesRow(with: box) && other.maxX <= box.x + 1 && Double(box.x - other.maxX) <= 2 * character }
            return !words.contains(where: isBefore) && !runs.indices.contains { $0 != index && isBefore(runs[$0].box) }
        }
        let loneColumn = lone.filter { run in
            lone.filter { abs(Double(runs[$0].box.centerX - runs[run].box.centerX)) <= character }.count >= 3
        }
        let markerColumn = markers.filter { run in
            let box = runs[run].box
            return markers.filter {
                abs(Double(runs[$0].box.x - box.x)) <= character || abs(Double(runs[$0].box.maxX - box.maxX)) <= character
            }.count >= 3
        }
        return Set(loneColumn + markerColumn).map { runs[$0].box }.sorted { ($0.y, $0.x) < ($1.y, $1.x) }.prefix(Self.maximumLinesToRead).map {
            regionToRead($0, character: character)
        }
    }

    /// Lines of text outside the grids that the page's reading missed (full-resolution
    /// boxes, top to bottom): runs of ink pieces the height of characters, side by side, none
    /// of them under a word of `observations`. Tesseract's layout analysis drops a table's
    /// rows between rules, and lines on a page photographed at an angle; read alone, they
    /// come back. A run ends at a gap of twice the character height, so a table row's cells
    /// are read one by one. A run takes in the words the page's reading gave its row, as far
    /// as a cell's gap: `assemble` keeps the row's own reading in place of those words when the
    /// recognizer is surer of it, and otherwise takes the line's new words as a paragraph of
    /// its own.
    public func linesToRead(after observations: [RecognizedTextObservation]) -> [PixelRect] {
        linesToRead(in: unreadInk(after: observations))
    }

    /// `linesToRead(after:)` from the unread ink, found already.
    public func linesToRead(in unread: UnreadInk?) -> [PixelRect] {
        guard let (runs, words, character) = unread.map({ ($0.runs, $0.words, $0.character) }) else { return [] }
        let gridBoxes = grids.map(\.box)
        // A line is two pieces or more (a word, a number), or one piece as wide as two
        // characters. The rest of a word read (a word's box that left out its last letters
        // where the print fades) is read with that word when it stands within a cell's gap of
        // it, as it mostly does: `wholeRow` takes the word in, so the region is not the fragment
        // alone ("ple.com" of an email address), and `assemble` keeps the row's reading where
        // it reads on from the page's (`DocumentAnalyzer.readsOn`).
        let kept = runs.filter {
            ($0.count >= 2 && Double($0.box.width) >= 1.2 * character) || Double($0.box.width) >= 2 * character
        }
        // Over the limit, the lines of most pieces are read (the higher first among equals).
        let chosen = kept.sorted { ($0.count, -$0.box.y, -$0.box.x) > ($1.count, -$1.box.y, -$1.box.x) }.prefix(Self.maximumLinesToRead)
        // A line the page's reading took part of is read whole: the run takes in the words
        // read beside it on its row, outside the grids, as far as a gap that would separate
        // two cells of a table row (`cellGap` character heights), so that `assemble` can
        // choose between the two readings of the row.
        let besideGrids = words.filter { word in !gridBoxes.contains { $0.contains(x: word.centerX, y: word.centerY) } }
        func wholeRow(_ run: PixelRect) -> PixelRect {
            let onRow = besideGrids.filter { $0.sharesRow(with: run) }
            var row = run
            var grew = true
            while grew {
                grew = false
                for word in onRow where !row.contains(x: word.centerX, y: word.centerY) {
                    guard Double(max(word.x - row.maxX, row.x - word.maxX)) <= cellGap * character else { continue }
                    row = row.union(word)
                    grew = true
                }
            }
            return row
        }
        return chosen.map { line in
            let row = wholeRow(line.box)
            return regionToRead(PixelRect(x: row.x, y: line.box.y, width: row.width, height: line.box.height), character: character)
        }.sorted { $0.y != $1.y ? $0.y < $1.y : $0.x < $1.x }
    }
}

/// A word's identity for set membership: its box and text.
struct WordKey: Hashable {
    var x: Int, y: Int, width: Int, height: Int, text: String
    init(_ word: PlacedWord) {
        (x, y, width, height, text) = (word.box.x, word.box.y, word.box.width, word.box.height, word.text)
    }
}

extension PageInk {
    /// List markers the recognizer did not read: for each word that starts a visual line, an
    /// unread piece of ink just left of it (its gap 0.15 to 3 of the word's height, its middle
    /// within the word's height), solid (at least half of its box is ink), smaller than a
    /// capital (at most 0.75 of the word's height high, 0.9 when it is no taller than twice
    /// its width: a large square bullet that a photo's blur grew, where a bar that tall is a
    /// "1"; and at most 1.3 wide), at least a tenth high or,
    /// twice as wide as high, a third of the word's height wide (a light font's hairline dash),
    /// with no word within 4 of the word's heights left of it (a list's marker starts its line;
    /// a column beside it is further away), and no ink within 2 heights left of it nor between
    /// it and the word; a marker word "–" when it is twice as wide as high (a dash), else "•".
    /// Outside `excluded` (working-scale boxes: the grids).
    func unreadMarkers(before words: [PlacedWord], excluding excluded: [PixelRect]) -> [PlacedWord] {
        var markers: [PlacedWord] = []
        for (index, component) in components.enumerated() where !isRule(index) {
            let box = fullResolution(component.box, within: ImageSize(width: width * factor, height: height * factor))
            let (cx, cy) = (component.box.centerX, component.box.centerY)
            guard !excluded.contains(where: { $0.contains(x: cx, y: cy) }), Double(component.area) >= 0.5 * Double(component.width * component.height),
                !words.contains(where: { $0.box.contains(x: box.centerX, y: box.centerY) })
            else { continue }
            // The words whose band holds the piece's middle; the nearest to its right starts the line.
            let band = words.filter { box.centerY >= $0.box.y && box.centerY < $0.box.maxY }
            guard let next = band.filter({ $0.box.x >= box.maxX }).min(by: { $0.box.x < $1.box.x }) else { continue }
            let height = Double(next.box.height), gap = Double(next.box.x - box.maxX)
            guard gap >= 0.15 * height, gap <= 3 * height,
                Double(box.height) <= (box.height <= 2 * box.width ? 0.9 : 0.75) * height,
                Double(box.height) >= 0.1 * height || (box.width >= 2 * box.height && Double(box.width) >= 0.3 * height),
                Double(box.width) <= 1.3 * height,
                !band.contains(where: { $0.box.maxX <= box.x && Double(box.x - $0.box.maxX) <= 4 * height })
            else { continue }
            // A marker stands alone: a piece with other ink just left of it, or between it and
            // the word, is part of words the recognizer did not read (the "-" of "555-0128").
            // (Specks under a third of the word's height, the photo's noise, do not count.)
            let reach = Int(2 * height) / factor, wordStart = next.box.x / factor, speck = Double(height) / 3 / Double(factor)
            guard !components.contains(where: { other in
                other != component && Double(other.height) >= speck && other.maxY >= component.minY - reach / 4 && other.minY <= component.maxY + reach / 4
                    && ((other.maxX < component.minX && component.minX - other.maxX <= reach)
                        || (other.minX > component.maxX && other.maxX < wordStart))
            }) else { continue }
            let text = box.width >= 2 * box.height ? "–" : "•"
            markers.append(PlacedWord(text: text, box: box, block: next.block, paragraph: next.paragraph, line: next.line))
        }
        return markers
    }

    /// Whether a word is a column of lines read as one word: two characters or more, its
    /// box at least three characters tall and twice as tall as wide. Tesseract reads a list's
    /// numbers or a table's first column, set apart from the text beside them, as one word down
    /// the page ("BWN" for 1, 2, 3 and 4); the ink under it is read again as lines.
    func isStacked(_ word: RecognizedWord) -> Bool {
        let character = max(characterHeight, 4) * Double(factor), box = word.pixelBox
        return word.text.string.count >= 2 && Double(box.height) >= 3 * character && box.height >= 2 * box.width
    }

    /// Whether a full-resolution box holds ink that is neither a ruling line nor one of the
    /// `excluded` components (grids).
    func holdsInk(in box: PixelRect, excluding excluded: Set<Int32> = []) -> Bool {
        guard let (xs, ys) = workingRange(of: box) else { return false }
        for y in ys {
            for x in xs {
                let label = labels[y * width + x]
                if label != 0 && !excluded.contains(label) && !isRule(Int(label) - 1) { return true }
            }
        }
        return false
    }

    /// The fraction of a full-resolution box that is ink.
    func inkFraction(in box: PixelRect) -> Double {
        guard let (xs, ys) = workingRange(of: box) else { return 0 }
        var count = 0
        for y in ys { for x in xs where labels[y * width + x] != 0 { count += 1 } }
        return Double(count) / Double(xs.count * ys.count)
    }

    /// The working pixels under a full-resolution box (at least one along each axis where the
    /// box lies on the page), or nil where it lies off it.
    func workingRange(of box: PixelRect) -> (Range<Int>, Range<Int>)? {
        let x0 = max(0, box.x / factor), y0 = max(0, box.y / factor)
        let x1 = min(width, max(x0 + 1, (box.x + box.width) / factor)), y1 = min(height, max(y0 + 1, (box.y + box.height) / factor))
        guard x0 < x1, y0 < y1 else { return nil }
        return (x0..<x1, y0..<y1)
    }

    /// Whether a working-scale box holds a component (other than `excluded`, not a rule) big
    /// enough to be a character whose centre lies in none of `words` (full-resolution boxes).
    func hasUnreadText(in box: PixelRect, excluding excluded: Int, words: [PixelRect]) -> Bool {
        var seen = Set<Int32>()
        for y in box.y..<(box.y + box.height) {
            for x in box.x..<(box.x + box.width) {
                let label = labels[y * width + x]
                guard label != 0, label != Int32(excluded), seen.insert(label).inserted else { continue }
                let component = components[Int(label) - 1]
                guard Double(component.height) >= 0.4 * max(characterHeight, 5), !isRule(Int(label) - 1) else { continue }
                let cx = (component.minX + component.maxX + 1) * factor / 2, cy = (component.minY + component.maxY + 1) * factor / 2
                if !words.contains(where: { $0.contains(x: cx, y: cy) }) { return true }
            }
        }
        return false
    }
}

extension PixelRect {
    func contains(x px: Int, y py: Int) -> Bool { px >= x && py >= y && px < x + width && py < y + height }

    /// Whether two boxes stand on one row: they overlap vertically by half the lower one's height.
    func sharesRow(with other: PixelRect) -> Bool {
        Double(Swift.min(maxY, other.maxY) - Swift.max(y, other.y)) >= 0.5 * Double(Swift.min(height, other.height))
    }

    /// The area two boxes share.
    func overlap(_ other: PixelRect) -> Int {
        Swift.max(0, Swift.min(maxX, other.maxX) - Swift.max(x, other.x)) * Swift.max(0, Swift.min(maxY, other.maxY) - Swift.max(y, other.y))
    }

    func clipped(to size: ImageSize) -> PixelRect {
        let x0 = Swift.max(0, x), y0 = Swift.max(0, y)
        let x1 = Swift.min(size.width, x + width), y1 = Swift.min(size.height, y + height)
        return PixelRect(x: x0, y: y0, width: Swift.max(0, x1 - x0), height: Swift.max(0, y1 - y0))
    }
}
