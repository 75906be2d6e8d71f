import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("WebP decoding")
struct WebPDecoderTests {
    @Test func losslessKeepsEveryPixel() throws {
        let image = try decodeFixture("webp/lossless-rgb8.webp")
        #expect(image.format == .webp)
        #expect(image.storedSize == ImageSize(width: 37, height: 23))
        try expectRGB8Pattern(image)
    }

    @Test func alphaIsCompositedOverWhite() throws {
        try expectRGBA8OverWhite(try decodeFixture("webp/lossless-rgba8.webp"))
    }

    @Test func theEXIFChunksOrientationIsApplied() throws {
        let image = try decodeFixture("webp/orientation-6.webp")
        #expect(image.orientation == .right)
        #expect(image.orientedSize == ImageSize(width: 23, height: 37))
        expectPixels(try eight(image.rgb)) { x, y, c in
            let p = Pattern.rgb8(y, 22 - x)
            return Double([p.0, p.1, p.2][c])
        }
        let stored = try decodeFixture("webp/orientation-6.webp", options: DecodeOptions(wantsRGB: true, appliesOrientation: false))
        #expect(stored.orientation == .right && stored.orientedSize == ImageSize(width: 23, height: 37))
        #expect(try eight(stored.rgb).size == ImageSize(width: 37, height: 23))
    }

    @Test func lossyColoursLandNearTheirQuadrants() throws {
        let image = try decodeFixture("webp/lossy-quadrants.webp")
        #expect(image.orientedSize == ImageSize(width: 64, height: 64))
        try expectQuadrantColours(image, "webp/lossy-quadrants.webp")
    }

    /// An animation gives its first frame (rgb8); the second is its negative.
    @Test func anAnimationGivesItsFirstFrame() throws {
        let image = try decodeFixture("webp/animated.webp")
        #expect(image.storedSize == ImageSize(width: 37, height: 23) && image.pageCount == 1)
        try expectRGB8Pattern(image)
    }

    @Test func aTruncatedFileSaysWhereItEnds() {
        let error = decodeError(Fixtures.path("webp/truncated.webp"))
        #expect(error?.kind == .truncated)
        #expect(error?.message == "WebP: the data ends after 0 of 64 rows")
    }

    @Test func theHeadersSizeIsCheckedBeforeDecoding() {
        let options = DecodeOptions(limits: DecodeLimits(maxPixels: 800))
        let error = decodeError(Fixtures.path("webp/lossless-rgb8.webp"), options: options)
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "WebP header declares 37×23 pixels, above the limit of 800 (raise it with --max-pixels)")
    }

    @Test func aSecondPageIsOutOfRange() {
        let error = decodeError(Fixtures.path("webp/lossless-rgb8.webp"), options: DecodeOptions(pageIndex: 1))
        #expect(error?.kind == .pageOutOfRange)
        #expect(error?.message == "WebP: page 2 requested, a WebP has 1")
    }

    /// Every prefix of a file, and every single-byte change of its header, gives an image or
    /// a specific error, never a crash.
    @Test(arguments: ["webp/lossless-rgba8.webp", "webp/animated.webp", "webp/orientation-6.webp", "webp/lossy-quadrants.webp"])
    func everyPrefixAndHeaderMutantGetsAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, headerBytes: 64)
        #expect(kinds.isSubset(of: [.truncated, .corrupt, .notAnImage, .unsupportedFormat, .unsupportedFeature, .invalidDimensions, .tooManyPixels]), "\(kinds)")
    }
}
