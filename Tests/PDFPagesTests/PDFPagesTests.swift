import Foundation
import ImageCodecs
import ImagingCore
import PDFPages
import QualityAssessment
import Testing
import _ImagingTestSupport

@Suite("PDF pages")
struct PDFPagesTests {
    init() { PDFPageRenderer.register() }

    func decode(_ name: String, page: Int = 1, limits: DecodeLimits = DecodeLimits()) throws(ImagingError) -> DecodedImage {
        try ImageDecoder(options: DecodeOptions(limits: limits, wantsRGB: true, pageIndex: page - 1)).decode(contentsOf: Fixtures.path(name))
    }

    func error(_ name: String, page: Int = 1, limits: DecodeLimits = DecodeLimits()) -> ImagingError? {
        do {
            _ = try decode(name, page: page, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// Each page at 300 dpi: images marked 300 dpi come out at their own size.
    @Test func pagesRenderAtTheirSizeAndResolution() throws {
        let sizes = [ImageSize(width: 64, height: 64), ImageSize(width: 48, height: 40), ImageSize(width: 40, height: 36)]
        for (index, size) in sizes.enumerated() {
            let image = try decode("pdf/three-pages.pdf", page: index + 1)
            #expect(image.format == .pdf && image.orientedSize == size && image.pageCount == 3)
            #expect(image.resolution == ImageResolution(horizontal: 300, vertical: 300))
        }
        let first = try decode("pdf/three-pages.pdf")
        let rgb = try #require({ if case .uint8(let b)? = first.rgb { return b } else { return nil } }())
        // The quadrants' interiors, in RGB order (Poppler's resampling blends only the edges).
        for (quadrant, colour) in Pattern.quadrantColours.enumerated() {
            let x = quadrant % 2 == 0 ? 16 : 48, y = quadrant < 2 ? 16 : 48
            #expect([rgb[x, y, 0], rgb[x, y, 1], rgb[x, y, 2]].map(Int.init) == [colour.0, colour.1, colour.2], "quadrant \(quadrant)")
        }
    }

    @Test func aPagesRotateIsApplied() throws {
        #expect(try decode("pdf/rotated.pdf").orientedSize == ImageSize(width: 36, height: 40))
    }

    @Test func aPageBeyondTheLastIsOutOfRange() {
        let failure = error("pdf/three-pages.pdf", page: 4)
        #expect(failure?.kind == .pageOutOfRange && failure?.message == "PDF: page 4 requested, the file has 3")
    }

    /// A page of 200 × 200 inches: rendered at the resolution the pixel limit allows, with a
    /// warning; refused when even 1 dpi is too much.
    @Test func anEnormousPageIsRenderedUnderThePixelLimit() throws {
        let image = try decode("pdf/huge-page.pdf", limits: DecodeLimits(maxPixels: 1 << 20))
        #expect(image.orientedSize == ImageSize(width: 1000, height: 1000) && image.resolution?.horizontal == 5)
        #expect(image.warnings.map(\.message) == [
            "PDF: page 1 measures 200.0 × 200.0 in; rendered at 5 dpi instead of 300 to stay under the limit of 1048576 pixels (raise it with --max-pixels)"
        ])
        let refused = error("pdf/huge-page.pdf", limits: DecodeLimits(maxPixels: 100))
        #expect(refused?.kind == .tooManyPixels)
        #expect(refused?.message == "PDF: page 1 measures 200.0 × 200.0 in, more than the limit of 100 pixels even at 1 dpi (raise it with --max-pixels)")
    }

    @Test func damagedFilesFailWithTheirReason() {
        let damaged = error("pdf/damaged.pdf")
        #expect(damaged?.kind == .corrupt && damaged?.message == "PDF: Poppler could not open the file (damaged or not a PDF)")
        let truncated = error("pdf/truncated.pdf")
        #expect(truncated?.kind == .corrupt, "\(String(describing: truncated))")
    }

    /// A file of 5 000 pages: the limit's pages are read, one record stands for the rest.
    @Test func thousandsOfPagesStopAtTheLimit() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("many.pdf", TinyPDF.blankPages(5_000, widthPoints: 36, heightPoints: 24))
        let assessor = Assessor(Assessor.Configuration(decodeOptions: DecodeOptions(limits: DecodeLimits(maxPages: 10))))
        let records = assessor.assessPages(contentsOf: file, pages: .all)
        #expect(records.count == 11)
        #expect(records.map(\.page) == Array(1...11))
        #expect(records.prefix(10).allSatisfy { $0.image?.size == ImageSize(width: 150, height: 100) && $0.image?.pageCount == 5_000 })
        #expect(records.last?.error?.kind == .limitExceeded)
        #expect(records.last?.error?.message == "page 11 of 5000 not read, nor those after it: 10 pages read, the limit (raise it with --max-pages)")
    }

    /// Every prefix and a changed byte at each of the first 64 gives a page or a specific error.
    @Test func prefixesAndHeaderMutantsGetAnAnswer() throws {
        let bytes = try Fixtures.bytes("pdf/three-pages.pdf")
        let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true))
        var kinds: Set<ImagingErrorKind> = []
        for length in stride(from: 1, to: bytes.count, by: 7) {
            do { _ = try decoder.decode(Array(bytes.prefix(length))) } catch { kinds.insert(error.kind) }
        }
        for at in 0..<64 {
            var mutant = bytes
            mutant[at] ^= 0x5A
            do { _ = try decoder.decode(mutant) } catch { kinds.insert(error.kind) }
        }
        #expect(kinds.isSubset(of: [.corrupt, .notAnImage, .invalidDimensions, .unsupportedFormat]), "\(kinds)")
    }
}
