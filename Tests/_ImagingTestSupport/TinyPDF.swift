/// PDF files written for tests: the smallest structure Poppler opens (catalog, page tree, pages,
/// a cross-reference table with the true offsets).
public enum TinyPDF {
    /// `count` blank pages of `widthPoints` × `heightPoints` (1/72 inch), sharing one media box
    /// through the page tree.
    public static func blankPages(_ count: Int, widthPoints: Int, heightPoints: Int) -> [UInt8] {
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /MediaBox [0 0 \(widthPoints) \(heightPoints)] /Count \(count) /Kids ["
                + (0..<count).map { "\($0 + 3) 0 R" }.joined(separator: " ") + "] >>",
        ]
        objects += Array(repeating: "<< /Type /Page /Parent 2 0 R >>", count: count)
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            let digits = String(offset)
            out += Array((String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n").utf8)
        }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }
}
