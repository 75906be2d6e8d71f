internal import _CPDFShim
import Foundation
import ImageCodecs
import ImagingCore

/// PDF pages rendered by Poppler (GPL-2.0-or-later or GPL-3.0), a product of its own so that the
/// core libraries never link it: a program that wants PDF pages registers the renderer once
/// (`PDFPageRenderer.register()`), and every `ImageDecoder` then decodes PDF files page by page.
///
/// A page is rendered on white paper at `dpi` (300 by default: what scanners write for text
/// recognition), its `/Rotate` applied, as 8-bit RGB. When the page would have more pixels
/// than `--max-pixels` allows at that resolution, it is rendered at the highest resolution that
/// stays under the limit, with a warning that says so; a page too large for the limit even at
/// 1 dpi is refused. Poppler renders a page in one call: the time limit is checked when it
/// returns. The record's resolution is the rendering's, so sizes in the analysis read as
/// they would from a scan at that resolution. Encrypted files are refused.
public struct PDFPageRenderer: PlugInDecoder {
    /// The resolution pages are rendered at when the pixel limit allows it.
    public var dpi: Double

    public var format: ImageFormat { .pdf }

    public static let defaultDPI = 300.0

    public init(dpi: Double = PDFPageRenderer.defaultDPI) {
        precondition(dpi >= 1 && dpi.isFinite, "a resolution of at least 1 dpi")
        self.dpi = dpi
    }

    /// Makes every `ImageDecoder` render PDF pages with this renderer.
    public static func register(dpi: Double = PDFPageRenderer.defaultDPI) {
        ImageDecoder.register(PDFPageRenderer(dpi: dpi))
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, deadline: Deadline) throws(ImagingError) -> PlugInImage {
        var status: Int32 = 0
        guard let pdf = iq_pdf_open(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &status) else {
            switch Int(status) {
            case Int(IQ_PDF_LOCKED): throw ImagingError(.unsupportedFeature, "PDF: the file is encrypted with a password")
            case Int(IQ_PDF_NO_MEMORY): throw ImagingError(.outOfMemory, "PDF: out of memory while opening the file")
            case Int(IQ_PDF_TOO_LARGE): throw ImagingError(.fileTooLarge, "PDF: \(bytes.count) bytes, more than Poppler reads from memory")
            default: throw ImagingError(.corrupt, "PDF: Poppler could not open the file (damaged or not a PDF)")
            }
        }
        defer { iq_pdf_close(pdf) }
        let count = Int(iq_pdf_page_count(pdf))
        guard count > 0 else { throw ImagingError(.corrupt, "PDF: the file has no pages") }
        let index = options.pageIndex
        guard index < count else {
            throw ImagingError(.pageOutOfRange, "PDF: page \(index + 1) requested, the file has \(count)")
        }
        var width = 0.0, height = 0.0
        var rotation: Int32 = 0
        guard iq_pdf_page_size(pdf, Int32(index), &width, &height, &rotation) == 1, width.isFinite, height.isFinite, width > 0, height > 0
        else {
            throw ImagingError(.invalidDimensions, "PDF: page \(index + 1) has no size (its media or crop box is empty or missing)")
        }

        let resolution = try Self.resolution(
            width: width, height: height, wanted: dpi, maxPixels: options.limits.maxPixels, page: index + 1)
        var warnings: [DecodeWarning] = []
        if resolution < dpi {
            warnings.append(DecodeWarning(
                .other,
                "PDF: page \(index + 1) measures \(Self.inches(width)) × \(Self.inches(height)) in; rendered at \(Int(resolution)) dpi instead of \(Int(dpi)) to stay under the limit of \(options.limits.maxPixels) pixels (raise it with --max-pixels)"))
        }

        let sink = Sink(maxPixels: options.limits.maxPixels)
        let failed = withExtendedLifetime(sink) {
            iq_pdf_render(pdf, Int32(index), resolution, { context, y, row, width, height in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                sink.write(row: Int(y), rgb: row!, width: Int(width), height: Int(height))
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard failed == 0, let pixels = sink.pixels, pixels.height == sink.rowsWritten else {
            throw ImagingError(.corrupt, "PDF: Poppler could not render page \(index + 1)")
        }
        if deadline.hasPassed {
            throw ImagingError(.timeLimit, "PDF: the time limit passed while rendering page \(index + 1)")
        }
        return PlugInImage(
            pixels: pixels, pageCount: count, resolution: ImageResolution(horizontal: resolution, vertical: resolution), warnings: warnings)
    }

    /// The resolution a page of `width` × `height` points is rendered at: `wanted`, or less so
    /// that its pixels stay under `maxPixels` (Poppler rounds each side up).
    static func resolution(width: Double, height: Double, wanted: Double, maxPixels: Int, page: Int) throws(ImagingError) -> Double {
        func pixels(_ dpi: Double) -> Double { (width / 72 * dpi).rounded(.up) * (height / 72 * dpi).rounded(.up) }
        if pixels(wanted) <= Double(maxPixels) { return wanted }
        var dpi = (wanted * (Double(maxPixels) / pixels(wanted)).squareRoot()).rounded(.down)
        while dpi >= 1 && pixels(dpi) > Double(maxPixels) { dpi -= 1 }
        guard dpi >= 1 else {
            throw ImagingError(
                .tooManyPixels,
                "PDF: page \(page) measures \(inches(width)) × \(inches(height)) in, more than the limit of \(maxPixels) pixels even at 1 dpi (raise it with --max-pixels)")
        }
        return dpi
    }

    static func inches(_ points: Double) -> String { String(format: "%.1f", points / 72) }

    /// Where Poppler's rows are copied.
    private final class Sink {
        let maxPixels: Int
        var pixels: PixelBuffer<UInt8>?
        var rowsWritten = 0

        init(maxPixels: Int) { self.maxPixels = maxPixels }

        func write(row y: Int, rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
            if y == 0 {
                // Poppler rounds the page's size at the resolution; the limit holds what it renders.
                guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= maxPixels else { return }
                pixels = PixelBuffer(width: width, height: height, channels: 3)
            }
            guard pixels != nil, y == rowsWritten, width == pixels!.width, y < pixels!.height else { return }
            let stride = pixels!.rowStride
            pixels!.withUnsafeMutableBufferPointer { samples in
                (samples.baseAddress! + y * stride).update(from: rgb, count: width * 3)
            }
            rowsWritten += 1
        }
    }
}
