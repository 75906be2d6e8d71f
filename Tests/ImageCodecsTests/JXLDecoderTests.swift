import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("JPEG XL decoding")
struct JXLDecoderTests {
    /// A lossless bare codestream: the pixels exactly.
    @Test func aLosslessCodestreamGivesItsPixels() throws {
        let image = try decodeFixture("jxl/lossless-rgb8.jxl")
        #expect(image.format == .jxl && image.storedSize == ImageSize(width: 37, height: 23) && image.sourceBitDepth == 8)
        try expectRGB8Pattern(image)
    }

    /// More than 8 bits stay 16-bit; grey stays grey.
    @Test func sixteenBitGreyIsKept() throws {
        let image = try decodeFixture("jxl/lossless-gray16.jxl", options: DecodeOptions())
        #expect(image.sourceBitDepth == 16)
        expectPixels(try sixteen(image.luma)) { x, y, _ in Double(Pattern.gray16(x, y)) }
    }

    /// Alpha is composited over white, as for every format.
    @Test func alphaIsKept() throws {
        let lossless = try decodeFixture("jxl/lossless-rgba8.jxl")
        let png = try eight(decodeFixture("png/rgba8.png").rgb)
        expectPixels(try eight(lossless.rgb)) { x, y, c in Double(png[x, y, c]) }
    }

    @Test func aLossyFileKeepsItsQuadrants() throws {
        try expectQuadrantColours(try decodeFixture("jxl/lossy-quadrants.jxl"), "jxl/lossy-quadrants.jxl")
    }

    /// The codestream's orientation is applied like a JPEG's EXIF one: the recompressed JPEG
    /// decodes to the JPEG's shown size, its pixels within the two IDCTs' rounding.
    @Test func theHeadersOrientationIsApplied() throws {
        let jxl = try decodeFixture("jxl/orientation-6.jxl")
        let jpeg = try decodeFixture("jpeg/orientation-6.jpg")
        #expect(jxl.orientation == .right && jxl.orientedSize == jpeg.orientedSize && jxl.orientedSize == ImageSize(width: 32, height: 48))
        let a = try eight(jxl.rgb), b = try eight(jpeg.rgb)
        var largest = 0
        for y in 0..<a.height { for x in 0..<a.width { for c in 0..<3 { largest = max(largest, abs(Int(a[x, y, c]) - Int(b[x, y, c]))) } } }
        #expect(largest <= 3, "largest difference \(largest)")
        let stored = try decodeFixture("jxl/orientation-6.jxl", options: DecodeOptions(appliesOrientation: false))
        #expect(stored.luma.size == ImageSize(width: 48, height: 32))
    }

    @Test func anAnimationGivesItsFirstFrame() throws {
        let image = try decodeFixture("jxl/animated.jxl")
        try expectPalettePattern(image.rgb)
    }

    @Test func aTruncatedFileIsSaidToBe() {
        let error = decodeError(Fixtures.path("jxl/truncated.jxl"))
        #expect(error?.kind == .truncated && error?.message == "JPEG XL: the file ends inside its image data", "\(String(describing: error))")
    }

    @Test func theSizeIsCheckedBeforeDecoding() {
        let error = decodeError(Fixtures.path("jxl/lossy-quadrants.jxl"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 4000)))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "JPEG XL header declares 64×64 pixels, above the limit of 4000 (raise it with --max-pixels)")
    }

    @Test func aSecondPageIsOutOfRange() {
        let error = decodeError(Fixtures.path("jxl/animated.jxl"), options: DecodeOptions(pageIndex: 1))
        #expect(error?.kind == .pageOutOfRange && error?.message == "JPEG XL: page 2 requested, imgquality reads a JPEG XL file's first frame only")
    }

    @Test(arguments: ["jxl/lossless-rgb8.jxl", "jxl/orientation-6.jxl", "jxl/animated.jxl"])
    func everyPrefixAndHeaderMutantGetsAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, headerBytes: 64)
        #expect(kinds.isSubset(of: [.truncated, .corrupt, .notAnImage, .unsupportedFormat, .invalidDimensions, .tooManyPixels]), "\(kinds)")
    }
}
