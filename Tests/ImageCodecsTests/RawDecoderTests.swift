import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("Camera raw decoding")
struct RawDecoderTests {
    /// A DNG without a preview: the mosaic developed at half size, reported at the sensor's size.
    @Test func aMosaicIsDevelopedAtHalfSize() throws {
        let image = try decodeFixture("raw/mosaic.dng")
        #expect(image.format == .raw && image.rawSource == .developed)
        #expect(image.storedSize == ImageSize(width: 64, height: 48) && image.scaleDenominator == 2)
        #expect(image.luma.size == ImageSize(width: 32, height: 24))
        // The quadrants keep their colours' order through LibRaw's development.
        let rgb = try eight(image.rgb)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(rgb[x, y, $0]) } }
        let (red, green, blue, white) = (pixel(8, 6), pixel(24, 6), pixel(8, 18), pixel(24, 18))
        #expect(red[0] > red[1] + 60 && red[0] > red[2] + 60, "\(red)")
        #expect(green[1] > green[0] + 60 && green[1] > green[2] + 60, "\(green)")
        #expect(blue[2] > blue[0] + 60 && blue[2] > blue[1] + 60, "\(blue)")
        #expect(white.allSatisfy { $0 > 180 }, "\(white)")
    }

    /// A full-size JPEG preview is what is decoded, turned by the raw file's orientation.
    @Test func aFullSizePreviewStandsForTheRawImage() throws {
        let image = try decodeFixture("raw/preview-orientation-6.dng")
        #expect(image.format == .raw && image.rawSource == .preview && image.orientation == .right)
        #expect(image.orientedSize == ImageSize(width: 48, height: 64) && image.luma.size == ImageSize(width: 48, height: 64))
        // Turned 90° clockwise, the stored top-left (red) quadrant is at the top right.
        let rgb = try eight(image.rgb)
        #expect(abs(Int(rgb[40, 8, 0]) - 200) <= 12 && Int(rgb[40, 8, 1]) <= 45 && Int(rgb[40, 8, 2]) <= 45)
        let stored = try decodeFixture("raw/preview-orientation-6.dng", options: DecodeOptions(appliesOrientation: false))
        #expect(stored.luma.size == ImageSize(width: 64, height: 48) && !stored.isOriented)
    }

    @Test func aCutFileIsTruncated() {
        let error = decodeError(Fixtures.path("raw/truncated.dng"))
        #expect(error?.kind == .truncated && error?.message.hasPrefix("camera raw: the file ends early") == true, "\(String(describing: error))")
    }

    /// Inputs on which LibRaw 0.20 ends its process (the fuzzer's, kept as regressions): a
    /// buffer overrun normalising a Hasselblad model name that glibc aborts, a null pointer read
    /// parsing a TIFF directory. Each ends only the child process LibRaw runs in, and the file
    /// gets an error that says so.
    @Test(arguments: [
        ("hasselblad-model-strcat-overflow", "Aborted, signal 6"),
        ("parse-tiff-ifd-null-read", "Segmentation fault, signal 11"),
    ])
    func aFileLibRawCrashesOnIsAnError(_ name: String, _ ending: String) throws {
        let bytes = try Fixtures.bytesOfRepositoryFile("Fuzz/Regressions/raw/\(name)")
        #expect(throws: ImagingError(.corrupt, "camera raw: LibRaw crashed reading the file (\(ending))")) {
            _ = try ImageDecoder().decode(bytes)
        }
        // The next file decodes as before: nothing of the crash is left in this process.
        #expect(try decodeFixture("raw/mosaic.dng").rawSource == .developed)
    }

    @Test func theSensorsSizeIsCheckedBeforeUnpacking() {
        let error = decodeError(Fixtures.path("raw/mosaic.dng"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 1000)))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "camera raw header declares 64×48 pixels, above the limit of 1000 (raise it with --max-pixels)")
    }

    @Test(arguments: ["raw/mosaic.dng", "raw/preview-orientation-6.dng"])
    func everyPrefixAndHeaderMutantGetsAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, prefixStride: 5, headerBytes: 96)
        #expect(kinds.isSubset(of: [.truncated, .corrupt, .notAnImage, .unsupportedFeature, .unsupportedFormat, .invalidDimensions, .tooManyPixels]), "\(kinds)")
    }
}
