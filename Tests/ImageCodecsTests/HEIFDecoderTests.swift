import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("HEIF and AVIF decoding")
struct HEIFDecoderTests {
    @Test(arguments: [("heif/quadrants.heic", ImageFormat.heif), ("heif/quadrants.avif", .avif)])
    func coloursLandInTheirQuadrants(_ name: String, _ format: ImageFormat) throws {
        let image = try decodeFixture(name)
        #expect(image.format == format)
        #expect(image.orientedSize == ImageSize(width: 64, height: 64) && image.orientation == .up)
        try expectQuadrantColours(image, name)
    }

    @Test func aTruncatedFileIsRefusedAsTruncated() {
        let error = decodeError(Fixtures.path("heif/truncated.heic"))
        #expect(error?.kind == .truncated, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("HEIF: ") == true, "\(String(describing: error))")
    }

    @Test func theHeadersSizeIsCheckedBeforeDecoding() {
        let error = decodeError(Fixtures.path("heif/quadrants.avif"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 4_000)))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "AVIF header declares 64×64 pixels, above the limit of 4000 (raise it with --max-pixels)")
    }

    @Test func aSecondPageIsOutOfRange() {
        let error = decodeError(Fixtures.path("heif/quadrants.heic"), options: DecodeOptions(pageIndex: 1))
        #expect(error?.kind == .pageOutOfRange)
        #expect(error?.message == "HEIF: page 2 requested, imgquality reads the primary image only")
    }

    /// Every eighth prefix of each file, and a changed byte at each of its first 96, gives an
    /// image or a specific error, never a crash.
    @Test(arguments: ["heif/quadrants.heic", "heif/quadrants.avif"])
    func prefixesAndHeaderMutantsGetAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, prefixStride: 8, headerBytes: 96)
        #expect(
            kinds.isSubset(of: [
                .truncated, .corrupt, .notAnImage, .unsupportedFormat, .unsupportedFeature, .invalidDimensions, .tooManyPixels, .limitExceeded,
            ]), "\(kinds)")
    }
}
