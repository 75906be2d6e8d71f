import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

/// The pixel density each format declares, read into `DecodedImage.resolution`.
///
/// The files are written here, byte by byte, from a fixture or from the project's own JPEG
/// encoder, so each test states exactly which field holds which density.
@Suite("Declared resolution")
struct ResolutionTests {
    // MARK: PNG pHYs

    /// `gray8.png` with a pHYs chunk inserted after IHDR.
    static func png(pixelsPerUnit x: UInt32, _ y: UInt32, unit: UInt8) throws -> [UInt8] {
        let bytes = try Fixtures.bytes("png/gray8.png")
        let afterHeader = 8 + 4 + 4 + 13 + 4  // signature, IHDR length, type, data, CRC
        var body = Array("pHYs".utf8)
        body += bigEndian(x) + bigEndian(y) + [unit]
        let chunk = bigEndian(UInt32(9)) + body + bigEndian(crc32(body))
        return Array(bytes[..<afterHeader]) + chunk + Array(bytes[afterHeader...])
    }

    @Test func pngPixelsPerMetreAreConvertedToPixelsPerInch() throws {
        // 11811 px/m is 299.9994 ppi; 5906 px/m is 150.0124 ppi (Pillow writes that for 150 dpi).
        let image = try ImageDecoder().decode(try Self.png(pixelsPerUnit: 11811, 5906, unit: 1))
        let resolution = try #require(image.resolution)
        #expect(abs(resolution.horizontal - 299.9994) < 1e-9)
        #expect(abs(resolution.vertical - 150.0124) < 1e-9)
        #expect(image.orientedResolution == resolution)
    }

    @Test func pngAspectRatioOnlyOrNoChunkIsNoResolution() throws {
        #expect(try ImageDecoder().decode(try Self.png(pixelsPerUnit: 3, 2, unit: 0)).resolution == nil)
        #expect(try decodeFixture("png/gray8.png").resolution == nil)
    }

    // MARK: JPEG JFIF density

    /// A small gray JPEG from `JPEGEncoder` with its JFIF APP0 density fields set.
    static func jpeg(unit: UInt8, x: UInt16, y: UInt16) throws -> [UInt8] {
        var bytes = try JPEGEncoder.encode(PixelBuffer<UInt8>.random(width: 16, height: 8, seed: 3))
        // SOI, then APP0: FF E0, length (2), "JFIF\0" (5), version (2), units, Xdensity, Ydensity.
        #expect(Array(bytes[2..<4]) == [0xFF, 0xE0] && Array(bytes[6..<11]) == Array("JFIF\0".utf8), "JFIF APP0 first")
        bytes[13] = unit
        bytes.replaceSubrange(14..<16, with: bigEndian(x))
        bytes.replaceSubrange(16..<18, with: bigEndian(y))
        return bytes
    }

    @Test func jpegDotsPerInchAndPerCentimetre() throws {
        let perInch = try ImageDecoder().decode(try Self.jpeg(unit: 1, x: 300, y: 200)).resolution
        #expect(perInch == ImageResolution(horizontal: 300, vertical: 200))
        let perCentimetre = try #require(try ImageDecoder().decode(try Self.jpeg(unit: 2, x: 118, y: 118)).resolution)
        #expect(abs(perCentimetre.horizontal - 299.72) < 1e-9 && abs(perCentimetre.vertical - 299.72) < 1e-9)
    }

    @Test func jpegAspectRatioOnlyOrZeroDensityIsNoResolution() throws {
        #expect(try ImageDecoder().decode(try Self.jpeg(unit: 0, x: 72, y: 72)).resolution == nil)
        #expect(try ImageDecoder().decode(try Self.jpeg(unit: 1, x: 0, y: 72)).resolution == nil)
    }

    // MARK: TIFF XResolution / YResolution / ResolutionUnit

    /// A 4×2 8-bit gray uncompressed little-endian TIFF with the given resolution tags
    /// (a nil rational is left out) and Orientation.
    static func tiff(x: (UInt32, UInt32)?, y: (UInt32, UInt32)?, unit: UInt16?, orientation: UInt16 = 1) -> [UInt8] {
        let pixels: [UInt8] = [10, 20, 30, 40, 50, 60, 70, 80]
        var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])] = [
            (256, 3, 1, littleEndian(UInt16(4)) + [0, 0]),  // ImageWidth
            (257, 3, 1, littleEndian(UInt16(2)) + [0, 0]),  // ImageLength
            (258, 3, 1, littleEndian(UInt16(8)) + [0, 0]),  // BitsPerSample
            (259, 3, 1, littleEndian(UInt16(1)) + [0, 0]),  // Compression: none
            (262, 3, 1, littleEndian(UInt16(1)) + [0, 0]),  // PhotometricInterpretation: BlackIsZero
            (273, 4, 1, []),  // StripOffsets: filled in below
            (274, 3, 1, littleEndian(orientation) + [0, 0]),  // Orientation
            (277, 3, 1, littleEndian(UInt16(1)) + [0, 0]),  // SamplesPerPixel
            (278, 3, 1, littleEndian(UInt16(2)) + [0, 0]),  // RowsPerStrip
            (279, 4, 1, littleEndian(UInt32(pixels.count))),  // StripByteCounts
        ]
        var rationals: [UInt8] = []
        if let x { entries.append((282, 5, 1, [])); rationals += littleEndian(x.0) + littleEndian(x.1) }
        if let y { entries.append((283, 5, 1, [])); rationals += littleEndian(y.0) + littleEndian(y.1) }
        if let unit { entries.append((296, 3, 1, littleEndian(unit) + [0, 0])) }
        let ifdOffset = 8
        let ifdSize = 2 + entries.count * 12 + 4
        let rationalsOffset = ifdOffset + ifdSize
        let pixelsOffset = rationalsOffset + rationals.count
        var nextRational = rationalsOffset
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + littleEndian(UInt32(ifdOffset)) + littleEndian(UInt16(entries.count))
        for entry in entries {
            var value = entry.value
            if entry.tag == 273 { value = littleEndian(UInt32(pixelsOffset)) }
            if entry.type == 5 {
                value = littleEndian(UInt32(nextRational))
                nextRational += 8
            }
            bytes += littleEndian(entry.tag) + littleEndian(entry.type) + littleEndian(entry.count) + value
        }
        bytes += littleEndian(UInt32(0)) + rationals + pixels
        return bytes
    }

    @Test func tiffInchesCentimetresAndTheDefaultUnit() throws {
        let inches = try ImageDecoder().decode(Self.tiff(x: (600, 2), y: (200, 1), unit: 2))
        #expect(inches.resolution == ImageResolution(horizontal: 300, vertical: 200))
        #expect(try eight(inches.luma)[1, 0] == 20, "the hand-made file decodes")
        // ResolutionUnit defaults to inch.
        #expect(try ImageDecoder().decode(Self.tiff(x: (96, 1), y: (96, 1), unit: nil)).resolution == ImageResolution(horizontal: 96, vertical: 96))
        let centimetres = try #require(try ImageDecoder().decode(Self.tiff(x: (118, 1), y: (118, 1), unit: 3)).resolution)
        #expect(abs(centimetres.vertical - 299.72) < 1e-4)
        // One tag alone stands for both axes.
        let one = try ImageDecoder().decode(Self.tiff(x: nil, y: (150, 1), unit: 2)).resolution
        #expect(one == ImageResolution(horizontal: 150, vertical: 150), "\(String(describing: one))")
    }

    @Test func tiffWithoutTagsUnitlessOrZeroIsNoResolution() throws {
        #expect(try ImageDecoder().decode(Self.tiff(x: nil, y: nil, unit: 2)).resolution == nil)
        #expect(try ImageDecoder().decode(Self.tiff(x: (300, 1), y: (300, 1), unit: 1)).resolution == nil)
        #expect(try ImageDecoder().decode(Self.tiff(x: (0, 1), y: (0, 1), unit: 2)).resolution == nil)
    }

    @Test func orientationThatSwapsAxesSwapsTheResolution() throws {
        // Orientation 6 (rotate 90° clockwise to display): stored rows become displayed columns.
        let image = try ImageDecoder().decode(Self.tiff(x: (300, 1), y: (200, 1), unit: 2, orientation: 6))
        #expect(image.resolution == ImageResolution(horizontal: 300, vertical: 200))
        #expect(image.orientedResolution == ImageResolution(horizontal: 200, vertical: 300))
    }
}

private func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
private func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
private func littleEndian(_ value: UInt32) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)] }
private func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

/// CRC-32 as PNG computes it (ISO 3309, reflected polynomial 0xEDB88320), bit by bit.
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

@Suite("Colour conversion")
struct ColourConversionTests {
    /// RGB rows converted sixteen pixels at a time give the luma of the per-pixel formula
    /// (libjpeg's 16-bit fixed point), tail included: every width from 1 to 40, random samples.
    @Test func vectorisedLumaMatchesThePerPixelFormula() {
        var generator = SeededGenerator(seed: 11)
        for width in 1...40 {
            let height = 3
            let samples = (0..<(3 * width * height)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let stored = PixelBuffer<UInt8>(width: width, height: height, channels: 3, samples: samples)
            var luma = PixelBuffer<UInt8>(), rgb: PixelBuffer<UInt8>? = nil
            ColorMath<UInt8>.convert(stored, model: .rgb, luma: &luma, rgb: &rgb)
            let expected = (0..<(width * height)).map { i in
                ColorMath<UInt8>.lumaOf(UInt64(samples[3 * i]), UInt64(samples[3 * i + 1]), UInt64(samples[3 * i + 2]))
            }
            #expect(luma.samples == expected, "width \(width)")
        }
    }
}
