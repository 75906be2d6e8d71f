import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("GIF decoding")
struct GIFDecoderTests {
    /// Plain and interlaced rows give the same pixels: the palette pattern.
    @Test(arguments: ["gif/palette.gif", "gif/palette-interlaced.gif", "gif/animated.gif"])
    func theFirstFrameThroughItsPalette(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.format == .gif && image.storedSize == ImageSize(width: 37, height: 23))
        try expectPalettePattern(image.rgb)
    }

    @Test func theTransparentIndexShowsWhite() throws {
        let image = try decodeFixture("gif/transparent.gif")
        expectPixels(try eight(image.rgb)) { x, y, c in
            let i = Pattern.paletteIndex(x, y)
            let p = Pattern.paletteEntry(i)
            return i == 0 ? 255 : Double([p.0, p.1, p.2][c])
        }
    }

    @Test func aTruncatedFileSaysWhichRow() {
        let error = decodeError(Fixtures.path("gif/truncated.gif"))
        #expect(error?.kind == .truncated, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("GIF: ") == true && error?.message.contains("decoding row") == true, "\(String(describing: error))")
    }

    @Test func theScreensSizeIsCheckedBeforeDecoding() {
        let error = decodeError(Fixtures.path("gif/palette.gif"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 800)))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "GIF header declares 37×23 pixels, above the limit of 800 (raise it with --max-pixels)")
    }

    @Test func aSecondPageIsOutOfRange() {
        let error = decodeError(Fixtures.path("gif/animated.gif"), options: DecodeOptions(pageIndex: 1))
        #expect(error?.kind == .pageOutOfRange)
        #expect(error?.message == "GIF: page 2 requested, imgquality reads a GIF's first frame only")
    }

    /// Every prefix, and a changed byte at each of the first 64, gives an image or a specific
    /// error, never a crash.
    @Test(arguments: ["gif/palette-interlaced.gif", "gif/transparent.gif", "gif/animated.gif"])
    func everyPrefixAndHeaderMutantGetsAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, headerBytes: 64)
        #expect(kinds.isSubset(of: [.truncated, .corrupt, .notAnImage, .unsupportedFormat, .invalidDimensions, .tooManyPixels]), "\(kinds)")
    }
}
