import DocumentStructure
import FuzzSupport
import ImageCodecs
import ImagingCore

nonisolated(unsafe) private let decoder = ImageDecoder(options: DecodeOptions(limits: FuzzLimits.decode))
private let regions = ["US", "DE", "GB", "FR"]

/// libFuzzer's entry point for reading documents. The first byte chooses: even, the rest is text
/// for `DataDetector` (in the region bits 1–2 pick), and every datum must be the text its range
/// names; odd, the rest is an image whose luma `DocumentAnalyzer` prepares and assembles (with no
/// words: rectification, ZBar, ink, grids and the painting out), and every box must lie in the
/// image.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocument(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 1 else { return -1 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rest = Array(bytes.dropFirst())
    if bytes[0] & 1 == 0 {
        let text = String(decoding: rest, as: UTF8.self)
        let scalars = Array(text.unicodeScalars)
        for datum in DataDetector(region: regions[Int(bytes[0] >> 1) & 3]).detect(in: text) {
            precondition(datum.range.lowerBound >= 0 && datum.range.upperBound <= scalars.count, "a range outside the text")
            precondition(String(String.UnicodeScalarView(scalars[datum.range])) == datum.text, "a range that is not its text")
        }
        return 0
    }
    guard let image = try? decoder.decode(rest) else { return 0 }
    let luma = image.luma.eightBit
    let analyzer = DocumentAnalyzer()
    let page = analyzer.prepare(luma)
    precondition(page.cleaned.size == page.size, "the page to read is not the size it says")
    let document = analyzer.assemble(page, observations: [])
    let frame = PixelRect(x: 0, y: 0, width: luma.width, height: luma.height)
    let boxes = document.barcodes.map(\.box) + document.tables.flatMap { [$0.box] + $0.cells.map(\.box) }
    for box in boxes {
        precondition(box.x >= frame.x && box.y >= frame.y && box.x + box.width <= frame.width && box.y + box.height <= frame.height, "a box outside the image")
    }
    return 0
}
