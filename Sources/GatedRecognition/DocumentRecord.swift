import DocumentStructure
import ImagingCore
import JSONSupport

extension RecognitionOutcome {
    /// The `ocr --format document` record of this input: path, size, gate, the document
    /// (null when the gate rejected the page) and the time each step took; or path and error.
    public var documentJSON: JSONValue {
        switch result {
        case .failed:
            return json
        case .recognized(let recognition):
            return .object(pathMembers + [
                ("width", .int(recognition.imageSize.width)), ("height", .int(recognition.imageSize.height)),
                ("gate", recognition.image.decision.record),
                ("document", recognition.document.map(Self.json) ?? .null),
                ("timing", Self.json(recognition.timing)),
            ])
        }
    }

    static func json(_ document: DocumentObservation) -> JSONValue {
        .object([
            ("text", .string(document.text)),
            ("paragraphs", .array(document.paragraphs.map { .object([("text", .string($0.text)), ("box", json($0.box))]) })),
            ("lists", .array(document.lists.map(json))),
            ("tables", .array(document.tables.map(json))),
            ("barcodes", .array(document.barcodes.map { .object([("symbology", .string($0.symbology.rawValue)), ("payload", .string($0.payload)), ("box", json($0.box))]) })),
            ("detectedData", .array(document.detectedData.map(json))),
        ])
    }

    static func json(_ list: DocumentList) -> JSONValue {
        let items: [JSONValue] = list.items.map { .object([("marker", .string($0.marker)), ("text", .string($0.text)), ("box", json($0.box))]) }
        return .object([("box", json(list.box)), ("marker", .string(list.marker.rawValue)), ("items", .array(items))])
    }

    static func json(_ table: Table) -> JSONValue {
        let cells: [JSONValue] = table.cells.map { cell in
            .object([
                ("row", .int(cell.row)), ("column", .int(cell.column)), ("rowSpan", .int(cell.rowSpan)), ("columnSpan", .int(cell.columnSpan)),
                ("text", .string(cell.text)), ("box", json(cell.box)),
            ])
        }
        return .object([
            ("box", json(table.box)), ("rows", .int(table.rows)), ("columns", .int(table.columns)), ("ruling", .string(table.ruling.rawValue)),
            ("cells", .array(cells)),
        ])
    }

    static func json(_ datum: DetectedData) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("kind", .string(datum.kind.rawValue)), ("text", .string(datum.text)),
            ("range", .object([("start", .int(datum.range.lowerBound)), ("length", .int(datum.range.count))])),
        ]
        switch datum.value {
        case .text(let text): members.append(("value", .string(text)))
        case .money(let amount, let currency): members.append(("value", .object([("amount", .string(amount)), ("currency", .string(currency))])))
        case .measurement(let value, let unit): members.append(("value", .object([("value", .double(value)), ("unit", .string(unit))])))
        case nil: members.append(("value", .null))
        }
        if let box = datum.box { members.append(("box", json(box))) }
        return .object(members)
    }
}

extension RecognitionOutcome {
    /// The `ocr --format markdown` output of this input: a heading with the path (and page),
    /// then the document, or a quoted line saying why there is none.
    public var markdown: String {
        let title = "# " + DocumentObservation.escaped(shownPath) + (page.map { " (page \($0)\(pageCount.map { " of \($0)" } ?? ""))" } ?? "")
        switch result {
        case .failed(let error):
            return "\(title)\n\n> error \(error.code): \(DocumentObservation.escaped(error.message))\n\n"
        case .recognized(let recognition):
            let failures = recognition.decision.failures.map(\.message).joined(separator: "; ")
            guard let document = recognition.document else { return "\(title)\n\n> rejected: \(DocumentObservation.escaped(failures))\n\n" }
            let rejected = recognition.decision.pass ? "" : "> rejected: \(DocumentObservation.escaped(failures)); read with --force\n\n"
            return "\(title)\n\n\(rejected)\(document.markdown)\n\n"
        }
    }
}

extension DocumentObservation {
    /// The document as Markdown: paragraphs as paragraphs, lists as lists (bullets as `-`,
    /// numbers kept; a lettered item written `a.`, which Markdown shows as text), tables as pipe tables with the first row as the header (a spanning
    /// cell's text in its first column), barcodes as a list of their payloads.
    public var markdown: String {
        var blocks: [(y: Int, x: Int, text: String)] = []
        for paragraph in paragraphs { blocks.append((paragraph.box.y, paragraph.box.x, Self.escaped(paragraph.text))) }
        for list in lists {
            let lines = list.items.map { item -> String in
                let marker = list.marker == .bullet ? "-" : item.marker.filter { $0.isLetter || $0.isNumber } + "."
                return "\(marker) \(Self.escaped(item.text))"
            }
            blocks.append((list.box.y, list.box.x, lines.joined(separator: "\n")))
        }
        for table in tables {
            let grid = table.grid.map { $0.map { Self.escaped($0).replacing("|", with: "\\|") } }
            guard let header = grid.first else { continue }
            var lines = ["| " + header.joined(separator: " | ") + " |", "|" + Array(repeating: " --- |", count: table.columns).joined()]
            lines += grid.dropFirst().map { "| " + $0.joined(separator: " | ") + " |" }
            blocks.append((table.box.y, table.box.x, lines.joined(separator: "\n")))
        }
        for code in barcodes { blocks.append((code.box.y, code.box.x, "`\(code.symbology.rawValue)`: \(Self.escaped(code.payload))")) }
        return blocks.sorted { ($0.y, $0.x) < ($1.y, $1.x) }.map(\.text).joined(separator: "\n\n")
    }

    /// Text with Markdown's own characters escaped, so it reads as written: the inline marks,
    /// `&` (an entity's start), and what would make the block something else at its start (a
    /// list marker, a heading underline, an indented code block).
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text.drop(while: \.isWhitespace) {
            if "\\`*_[]<>#&".contains(character) { out.append("\\") }
            out.append(character == "\n" ? " " : character)
        }
        // "- x", "+ x", "= x" start a list or underline a heading; "12. x" and "12) x" a list.
        if let first = out.first, "-+=".contains(first), out.dropFirst().first.map(\.isWhitespace) ?? true {
            out.insert("\\", at: out.startIndex)
        } else if let mark = out.firstIndex(where: { !($0.isASCII && $0.isNumber) }), mark != out.startIndex, ".)".contains(out[mark]),
            out[out.index(after: mark)...].first.map(\.isWhitespace) ?? true
        {
            out.insert("\\", at: mark)
        }
        return out
    }
}
