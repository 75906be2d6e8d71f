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
        let rgb = try eight(image.rgb)
        let luma = try eight(image.luma)
        for (quadrant, colour) in Pattern.quadrantColours.enumerated() {
            let want = [colour.0, colour.1, colour.2]
            for c in 0..<3 {
                let mean = quadrantMean(rgb, quadrant: quadrant, channel: c)
                #expect(abs(mean - Double(want[c])) <= 6, "\(name) quadrant \(quadrant) channel \(c): \(mean)")
            }
            let lumaMean = quadrantMean(luma, quadrant: quadrant)
            #expect(abs(lumaMean - Pattern.luma(colour.0, colour.1, colour.2)) <= 4, "\(name) quadrant \(quadrant) luma \(lumaMean)")
        }
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
    @Test func prefixesAndHeaderMutantsGetAnAnswer() throws {
        for name in ["heif/quadrants.heic", "heif/quadrants.avif"] {
            let bytes = try Fixtures.bytes(name)
            let decoder = ImageDecoder(options: DecodeOptions(limits: DecodeLimits(maxPixels: 1 << 20), wantsRGB: true))
            var kinds: Set<ImagingErrorKind> = []
            for length in stride(from: 1, to: bytes.count, by: 8) {
                do { _ = try decoder.decode(Array(bytes.prefix(length))) } catch { kinds.insert(error.kind) }
            }
            for at in 0..<min(96, bytes.count) {
                var mutant = bytes
                mutant[at] ^= 0x5A
                do { _ = try decoder.decode(mutant) } catch { kinds.insert(error.kind) }
            }
            #expect(
                kinds.isSubset(of: [
                    .truncated, .corrupt, .notAnImage, .unsupportedFormat, .unsupportedFeature, .invalidDimensions, .tooManyPixels,
                    .limitExceeded,
                ]), "\(name): \(kinds)")
        }
    }
}
