import ImagingCore

/// A page read as a document, modelled on Vision's `DocumentObservation`: its text, and the
/// paragraphs, lists, tables, barcodes and detected data found in it. Every box is in the
/// full-resolution, oriented pixels of the page, top-left origin.
public struct DocumentObservation: Sendable, Equatable {
    /// The page's text in reading order: paragraphs, list items and table rows (cells joined
    /// by tabs), one per line; the ranges of `detectedData` index into it.
    public var text: String
    public var paragraphs: [Paragraph]
    public var lists: [DocumentList]
    public var tables: [Table]
    public var barcodes: [Barcode]
    public var detectedData: [DetectedData]

    public init(
        text: String = "", paragraphs: [Paragraph] = [], lists: [DocumentList] = [], tables: [Table] = [], barcodes: [Barcode] = [],
        detectedData: [DetectedData] = []
    ) {
        self.text = text
        self.paragraphs = paragraphs
        self.lists = lists
        self.tables = tables
        self.barcodes = barcodes
        self.detectedData = detectedData
    }

    /// A run of lines the recognizer grouped as one paragraph, outside tables and lists.
    public struct Paragraph: Sendable, Equatable {
        public var text: String
        public var box: PixelRect
        public init(text: String, box: PixelRect) {
            self.text = text
            self.box = box
        }
    }
}

/// A list: items that each start with a marker, one above the next.
public struct DocumentList: Sendable, Equatable {
    /// What marks the items.
    public enum MarkerKind: String, Sendable, CaseIterable {
        case bullet, number, letter
    }

    public struct Item: Sendable, Equatable {
        /// The marker as read ("•", "1.", "b)"), or the one its list implies where it was
        /// misread ("5." after "4.").
        public var marker: String
        /// The item's text without its marker; a wrapped item's lines joined by a space.
        public var text: String
        public var box: PixelRect
        public init(marker: String, text: String, box: PixelRect) {
            self.marker = marker
            self.text = text
            self.box = box
        }
    }

    public var marker: MarkerKind
    public var items: [Item]
    public var box: PixelRect
    public init(marker: MarkerKind, items: [Item], box: PixelRect) {
        self.marker = marker
        self.items = items
        self.box = box
    }
}

/// A table: rows × columns of cells, some spanning several.
public struct Table: Sendable, Equatable {
    /// How the table was found.
    public enum Ruling: String, Sendable {
        /// A grid of ruling lines enclosing every cell.
        case grid
        /// Words aligned in columns (with or without horizontal rules).
        case alignment
    }

    public struct Cell: Sendable, Equatable {
        /// The first row and column the cell covers, from 0.
        public var row: Int
        public var column: Int
        public var rowSpan: Int
        public var columnSpan: Int
        public var text: String
        public var box: PixelRect
        public init(row: Int, column: Int, rowSpan: Int = 1, columnSpan: Int = 1, text: String, box: PixelRect) {
            self.row = row
            self.column = column
            self.rowSpan = rowSpan
            self.columnSpan = columnSpan
            self.text = text
            self.box = box
        }
    }

    public var rows: Int
    public var columns: Int
    /// Row by row, left to right.
    public var cells: [Cell]
    public var box: PixelRect
    public var ruling: Ruling

    public init(rows: Int, columns: Int, cells: [Cell], box: PixelRect, ruling: Ruling) {
        self.rows = rows
        self.columns = columns
        self.cells = cells.sorted { ($0.row, $0.column) < ($1.row, $1.column) }
        self.box = box
        self.ruling = ruling
    }

    /// The cells' text as a rows × columns grid; a spanning cell's text sits in its first
    /// row and column and the other places it covers are empty.
    public var grid: [[String]] {
        var grid = Array(repeating: Array(repeating: "", count: columns), count: rows)
        for cell in cells where cell.row < rows && cell.column < columns { grid[cell.row][cell.column] = cell.text }
        return grid
    }
}

/// A barcode or 2-D code and what it holds.
public struct Barcode: Sendable, Equatable {
    public enum Symbology: String, Sendable, CaseIterable {
        case qr, ean13, ean8, upca, upce, code128, code39, code93, i25, codabar
    }

    public var symbology: Symbology
    /// The decoded bytes as text (UTF-8; ZBar's guess for QR codes in other encodings).
    public var payload: String
    public var box: PixelRect
    public init(symbology: Symbology, payload: String, box: PixelRect) {
        self.symbology = symbology
        self.payload = payload
        self.box = box
    }
}

/// A piece of text recognised as data: an email address, a date, an amount of money.
public struct DetectedData: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case email, url, phone, date, money, measurement, postalAddress, flightNumber, trackingNumber
    }

    /// The parsed value, where there is one.
    public enum Value: Sendable, Equatable {
        /// A normalised string: the E.164 number, the ISO 8601 date, the address as read,
        /// the URL with its scheme, the flight designator and number without spaces.
        case text(String)
        /// An amount as a decimal string (never a binary fraction) and an ISO 4217 code.
        case money(amount: String, currency: String)
        case measurement(value: Double, unit: String)
    }

    public var kind: Kind
    /// The matched text, as it stands in the text searched.
    public var text: String
    /// Where it stands: offsets in Unicode scalars (code points) of the text searched.
    public var range: Range<Int>
    public var value: Value?
    /// The words it was read from, when it came from a page.
    public var box: PixelRect?

    public init(kind: Kind, text: String, range: Range<Int>, value: Value?, box: PixelRect? = nil) {
        self.kind = kind
        self.text = text
        self.range = range
        self.value = value
        self.box = box
    }
}

extension DocumentObservation {
    /// The same document with every box moved by `move` (from the upright page to the photo).
    func mapped(by move: (PixelRect) -> PixelRect) -> DocumentObservation {
        var document = self
        for index in document.paragraphs.indices { document.paragraphs[index].box = move(document.paragraphs[index].box) }
        for index in document.lists.indices {
            document.lists[index].box = move(document.lists[index].box)
            for item in document.lists[index].items.indices { document.lists[index].items[item].box = move(document.lists[index].items[item].box) }
        }
        for index in document.tables.indices {
            document.tables[index].box = move(document.tables[index].box)
            for cell in document.tables[index].cells.indices { document.tables[index].cells[cell].box = move(document.tables[index].cells[cell].box) }
        }
        for index in document.barcodes.indices { document.barcodes[index].box = move(document.barcodes[index].box) }
        for index in document.detectedData.indices { document.detectedData[index].box = document.detectedData[index].box.map(move) }
        return document
    }
}

extension PixelRect {
    /// The smallest rectangle holding both.
    public func union(_ other: PixelRect) -> PixelRect {
        if width == 0 && height == 0 { return other }
        if other.width == 0 && other.height == 0 { return self }
        let left = Swift.min(x, other.x), top = Swift.min(y, other.y)
        let right = Swift.max(x + width, other.x + other.width), bottom = Swift.max(y + height, other.y + other.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The rectangle of several, or nil for none.
    static func enclosing<S: Sequence>(_ rects: S) -> PixelRect? where S.Element == PixelRect {
        rects.reduce(nil as PixelRect?) { partial, rect in partial.map { $0.union(rect) } ?? rect }
    }

    var centerX: Int { x + width / 2 }
    var centerY: Int { y + height / 2 }
    var maxX: Int { x + width }
    var maxY: Int { y + height }
}
