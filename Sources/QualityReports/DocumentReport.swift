import DocumentStructure
import Foundation
import ImagingCore
import TextRecognition

/// `ocr --report DIR`: one HTML page for a batch showing each image with what was read on it
/// drawn as boxes, as the Vision and Cloud Vision sample apps draw them: paragraphs, lines,
/// tables and their cells, lists and their items, barcodes and detected data, each kind in
/// its own colour and each shown or hidden from the legend. A click on a box shows its kind
/// and what was read there; the page's text stands beside the image. Rejected and failed
/// inputs show why.
///
/// Images are JPEG files in `DIR/images/` (long side `imageLongSide`), referenced relatively,
/// so a batch of thousands keeps a page of text; the boxes are SVG in the image's own pixels.
package struct DocumentReport {
    /// One input (one page of a file of several).
    package struct Entry {
        package enum Status: String {
            case passed, rejected, failed
        }

        package var path: String
        package var page: Int?
        package var status: Status
        /// Why it was rejected or failed, in words.
        package var reasons: [String]
        package var imageSize: ImageSize?
        package var document: DocumentObservation?
        package var lines: [RecognizedTextObservation]

        package init(
            path: String, page: Int?, status: Status, reasons: [String], imageSize: ImageSize?, document: DocumentObservation?,
            lines: [RecognizedTextObservation]
        ) {
            (self.path, self.page, self.status, self.reasons) = (path, page, status, reasons)
            (self.imageSize, self.document, self.lines) = (imageSize, document, lines)
        }
    }

    package struct Failure: Error {
        package var message: String
    }

    /// Long side of the images shown, in pixels.
    package static let imageLongSide = 1400
    package static let imageFolder = "images"

    package let directory: String
    private var cards: [String] = []

    /// Creates the directory and its images folder.
    /// - Throws: `Failure` naming the directory when it cannot be created.
    package init(directory: String) throws(Failure) {
        do {
            try FileAccess.createDirectories(directory + "/" + Self.imageFolder)
        } catch {
            throw Failure(message: "cannot create the report directory \(directory): \(error.reason)")
        }
        self.directory = directory
    }

    /// Adds the next input, in input order, with its image (the decoded luma) when there is one.
    /// - Throws: `Failure` when the image cannot be written.
    package mutating func add(_ entry: Entry, luma: PixelBuffer<UInt8>?) throws(Failure) {
        let index = cards.count
        var image: String?
        if let luma, let jpeg = Thumbnail.jpeg(luma: luma, rgb: nil, longSide: Self.imageLongSide) {
            let name = Self.imageFolder + "/" + String(format: "%06d.jpg", index)
            do {
                try FileAccess.writeAll(jpeg, to: directory + "/" + name)
            } catch {
                throw Failure(message: "cannot write \(directory)/\(name): \(error.reason)")
            }
            image = name
        }
        cards.append(Self.card(entry, index: index, image: image))
    }

    /// Writes `index.html`.
    /// - Throws: `Failure` when it cannot be written.
    package func finish(command: String) throws(Failure) {
        do {
            try FileAccess.replace(directory + "/index.html", with: Array(html(command: command).utf8))
        } catch {
            throw Failure(message: "cannot write \(directory)/index.html: \(error.reason)")
        }
    }

    /// The kinds of box, their colours and their names in the legend.
    static let kinds: [(kind: String, colour: String, name: String)] = [
        ("line", "#9aa3ad", "lines"), ("paragraph", "#1f6fb2", "paragraphs"), ("table", "#137333", "tables"), ("cell", "#34a853", "table cells"),
        ("list", "#b06000", "lists"), ("item", "#f29900", "list items"), ("barcode", "#8e24aa", "barcodes"), ("datum", "#d93025", "detected data"),
    ]

    func html(command: String) -> String {
        let legend = Self.kinds.map { kind in
            "<label><input type=\"checkbox\" data-kind=\"\(kind.kind)\" checked><span class=\"swatch\" style=\"background:\(kind.colour)\"></span>\(kind.name)</label>"
        }.joined(separator: "\n")
        let styles = Self.kinds.map { ".box.\($0.kind){stroke:\($0.colour)}" }.joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>imgquality ocr report</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#202124;background:#f8f9fa}
            h1{font-size:20px;margin:0 0 4px}
            .command{font-family:monospace;color:#5f6368;margin-bottom:8px}
            .legend{position:sticky;top:0;background:#f8f9fa;padding:6px 0;z-index:2}
            .legend label{margin-right:14px;white-space:nowrap}
            .swatch{display:inline-block;width:12px;height:12px;margin:0 4px;vertical-align:-1px;border-radius:2px}
            .card{background:#fff;border:1px solid #dadce0;border-radius:8px;margin:14px 0;padding:12px}
            .card h2{font-size:15px;margin:0 0 8px;word-break:break-all}
            .status{font-weight:600;margin-left:6px}.passed{color:#137333}.rejected{color:#b06000}.failed{color:#d93025}
            .body{display:flex;gap:16px;align-items:flex-start}
            .view{position:relative;flex:0 1 auto;max-width:62%}
            .view img{display:block;max-width:100%;height:auto}
            .view svg{position:absolute;left:0;top:0;width:100%;height:100%}
            .box{fill:transparent;stroke-width:3;vector-effect:non-scaling-stroke;cursor:pointer}
            .box.line{stroke-width:1}
            .box.selected{fill:rgba(255,214,0,.35);stroke-width:4}
            \(styles)
            .side{flex:1 1 0;min-width:260px}
            .detail{border:1px solid #dadce0;border-radius:6px;padding:8px;margin-bottom:8px;min-height:3em;background:#fffbe6}
            .detail .kind{font-weight:600}
            pre.text{white-space:pre-wrap;font:13px/1.4 ui-monospace,monospace;margin:0;max-height:600px;overflow:auto}
            .reasons{color:#b06000}
            .hidden-line .box.line,.hidden-paragraph .box.paragraph,.hidden-table .box.table,.hidden-cell .box.cell,.hidden-list .box.list,
            .hidden-item .box.item,.hidden-barcode .box.barcode,.hidden-datum .box.datum{display:none}
            </style></head><body>
            <h1>imgquality ocr report</h1>
            <div class="command">\(htmlEscaped(command))</div>
            <div class="legend">\(legend)</div>
            \(cards.joined(separator: "\n"))
            <script>
            function select(box){
              document.querySelectorAll('.box.selected').forEach(b=>b.classList.remove('selected'));
              box.classList.add('selected');
              const detail=box.closest('.card').querySelector('.detail');
              detail.innerHTML='';
              const kind=document.createElement('div');kind.className='kind';kind.textContent=box.dataset.label;
              const text=document.createElement('div');text.textContent=box.dataset.text||'(nothing read)';
              detail.append(kind,text);
            }
            document.querySelectorAll('.box').forEach(b=>b.addEventListener('click',e=>{e.stopPropagation();select(b);}));
            document.querySelectorAll('.legend input').forEach(c=>c.addEventListener('change',()=>{
              document.body.classList.toggle('hidden-'+c.dataset.kind,!c.checked);}));
            // #select=ID selects a box on load, as a click does (a link to one box).
            const wanted=new URLSearchParams(location.hash.slice(1)).get('select');
            if(wanted){const box=document.getElementById(wanted);if(box)select(box);}
            </script>
            </body></html>

            """
    }

    /// One input's card: heading, image with its boxes, and the text beside it.
    static func card(_ entry: Entry, index: Int, image: String?) -> String {
        let title = htmlEscaped(FileSystemPath.display(entry.path)) + (entry.page.map { " (page \($0))" } ?? "")
        var side = "<div class=\"detail\">Click a box to see what was read there.</div>"
        if !entry.reasons.isEmpty {
            side += "<p class=\"reasons\">\(entry.status == .failed ? "failed" : "rejected"): \(htmlEscaped(entry.reasons.joined(separator: "; ")))</p>"
        }
        if let document = entry.document { side += "<pre class=\"text\">\(htmlEscaped(document.text))</pre>" }
        var view = ""
        if let image, let size = entry.imageSize {
            var boxes: [String] = []
            func add(_ kind: String, _ id: String, _ rect: PixelRect, label: String, text: String) {
                boxes.append(
                    "<rect class=\"box \(kind)\" id=\"b\(index)-\(id)\" x=\"\(rect.x)\" y=\"\(rect.y)\" width=\"\(rect.width)\" height=\"\(rect.height)\" data-label=\"\(htmlEscaped(label))\" data-text=\"\(htmlEscaped(text))\"></rect>"
                )
            }
            for (number, line) in entry.lines.enumerated() { add("line", "line-\(number)", line.pixelBox, label: "line", text: line.text) }
            if let document = entry.document {
                for (number, paragraph) in document.paragraphs.enumerated() {
                    add("paragraph", "paragraph-\(number)", paragraph.box, label: "paragraph", text: paragraph.text)
                }
                for (number, table) in document.tables.enumerated() {
                    add("table", "table-\(number)", table.box, label: "table: \(table.rows) rows × \(table.columns) columns (\(table.ruling.rawValue))",
                        text: table.grid.map { $0.joined(separator: " | ") }.joined(separator: "\n"))
                    for cell in table.cells {
                        let span = cell.rowSpan > 1 || cell.columnSpan > 1 ? ", spanning \(cell.rowSpan) × \(cell.columnSpan)" : ""
                        add("cell", "cell-\(number)-\(cell.row)-\(cell.column)", cell.box, label: "cell: row \(cell.row), column \(cell.column)\(span)", text: cell.text)
                    }
                }
                for (number, list) in document.lists.enumerated() {
                    add("list", "list-\(number)", list.box, label: "list (\(list.marker.rawValue))", text: list.items.map { "\($0.marker) \($0.text)" }.joined(separator: "\n"))
                    for (item, entry) in list.items.enumerated() {
                        add("item", "item-\(number)-\(item)", entry.box, label: "list item \(entry.marker)", text: entry.text)
                    }
                }
                for (number, code) in document.barcodes.enumerated() {
                    add("barcode", "barcode-\(number)", code.box, label: "barcode: \(code.symbology.rawValue)", text: code.payload)
                }
                for (number, datum) in document.detectedData.enumerated() {
                    guard let box = datum.box else { continue }
                    add("datum", "datum-\(number)", box, label: "\(datum.kind.rawValue): \(datum.text)", text: Self.describe(datum.value))
                }
            }
            view = """
                <div class="view"><img src="\(image)" alt="" width="\(size.width)" height="\(size.height)" loading="\(index < 8 ? "eager" : "lazy")">\
                <svg viewBox="0 0 \(size.width) \(size.height)" preserveAspectRatio="none">\(boxes.joined())</svg></div>
                """
        }
        return """
            <section class="card" id="card\(index)"><h2>\(title)<span class="status \(entry.status.rawValue)">\(entry.status.rawValue)</span></h2>\
            <div class="body">\(view)<div class="side">\(side)</div></div></section>
            """
    }

    /// A detected datum's value in words.
    static func describe(_ value: DetectedData.Value?) -> String {
        switch value {
        case .text(let text): text
        case .money(let amount, let currency): "\(amount) \(currency)"
        case .measurement(let value, let unit): "\(ReportNumber.short(value)) \(unit)"
        case nil: "(no parsed value)"
        }
    }
}
