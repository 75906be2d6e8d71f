import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("TIFF decoding")
struct TIFFDecoderTests {
    static let losslessRGB = ["none", "lzw", "deflate", "packbits"].flatMap { compression in
        ["tiff/rgb8-strip-\(compression).tif", "tiff/rgb8-tile-\(compression).tif"]
    } + ["tiff/rgb8-planar-separate.tif"]

    @Test(arguments: losslessRGB)
    func rgb8StripsTilesAndCompressions(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.format == .tiff)
        #expect(image.orientedSize == ImageSize(width: 37, height: 23))
        expectPixels(try eight(image.rgb)) { x, y, c in
            let p = Pattern.rgb8(x, y)
            return Double([p.0, p.1, p.2][c])
        }
    }

    @Test(arguments: ["tiff/quadrants-jpeg-strip.tif", "tiff/quadrants-jpeg-tile.tif"])
    func jpegCompressed(_ name: String) throws {
        let image = try decodeFixture(name)
        let rgb = try eight(image.rgb)
        #expect(rgb.size == ImageSize(width: 64, height: 64))
        for (quadrant, colour) in Pattern.quadrantColours.enumerated() {
            let want = [colour.0, colour.1, colour.2]
            for c in 0..<3 {
                #expect(abs(quadrantMean(rgb, quadrant: quadrant, channel: c) - Double(want[c])) <= 6)
            }
        }
    }

    @Test func gray8AndGray16() throws {
        expectPixels(try eight(decodeFixture("tiff/gray8.tif").luma)) { x, y, _ in Double(Pattern.gray8(x, y)) }
        let image = try decodeFixture("tiff/gray16.tif")
        #expect(image.sourceBitDepth == 16)
        expectPixels(try sixteen(image.luma)) { x, y, _ in Double(Pattern.gray16(x, y)) }
    }

    @Test func rgb16() throws {
        expectPixels(try sixteen(decodeFixture("tiff/rgb16.tif").rgb)) { x, y, c in
            let p = Pattern.rgb16(x, y)
            return Double([p.0, p.1, p.2][c])
        }
    }

    @Test func palette() throws {
        try expectPalettePattern(decodeFixture("tiff/palette8.tif").rgb)
    }

    @Test func unassociatedAlphaIsCompositedOverWhite() throws {
        expectPixels(try eight(decodeFixture("tiff/rgba8.tif").rgb), tolerance: 0.51) { x, y, c in
            let p = Pattern.rgb8(x, y)
            return Pattern.overWhite([p.0, p.1, p.2][c], alpha: Pattern.alpha8(x, y), maximum: 255)
        }
    }

    @Test func bilevelGroup4MinIsWhite() throws {
        let image = try decodeFixture("tiff/bilevel-g4.tif")
        #expect(image.sourceBitDepth == 1)
        expectPixels(try eight(image.luma)) { x, y, _ in Pattern.bilevelInk(x, y) ? 0 : 255 }
    }

    @Test func orientationTagIsApplied() throws {
        let image = try decodeFixture("tiff/orientation-6.tif")
        #expect(image.orientation == .right)
        #expect(image.orientedSize == ImageSize(width: 23, height: 37))
        expectPixels(try eight(image.rgb)) { x, y, c in
            let p = Pattern.rgb8(y, 22 - x)
            return Double([p.0, p.1, p.2][c])
        }
    }

    @Test func pages() throws {
        let first = try decodeFixture("tiff/multipage.tif")
        #expect(first.pageCount == 2)
        #expect(first.orientedSize == ImageSize(width: 37, height: 23))
        let second = try decodeFixture("tiff/multipage.tif", options: DecodeOptions(pageIndex: 1))
        #expect(second.orientedSize == ImageSize(width: 20, height: 10))
        expectPixels(try eight(second.luma)) { x, y, _ in Double(Pattern.gray8(x, y)) }
        do {
            _ = try decodeFixture("tiff/multipage.tif", options: DecodeOptions(pageIndex: 2))
            Issue.record("page 3 of 2 was accepted")
        } catch {
            #expect(error.kind == .pageOutOfRange)
            #expect(error.message == "TIFF: page 3 requested, the file has 2")
        }
    }

    @Test func truncatedStripsFail() throws {
        do {
            _ = try decodeFixture("tiff/truncated.tif")
            Issue.record("a truncated TIFF decoded")
        } catch {
            #expect(error.kind == .truncated, "\(error)")
            #expect(error.message == "TIFF: the file ends early (TIFFReadEncodedStrip: Read error; got 1062 bytes, expected 4800)")
        }
    }

    @Test(arguments: [
        "tiff/rgb8-strip-none.tif", "tiff/rgb8-strip-lzw.tif", "tiff/rgb8-tile-deflate.tif", "tiff/rgb16.tif",
        "tiff/bilevel-g4.tif", "tiff/quadrants-jpeg-tile.tif", "tiff/multipage.tif",
    ])
    func everyCutIsTruncationWhateverLibtiffSays(_ name: String) throws {
        // libtiff words a short read differently in each codec ("Read error", "Premature EOF",
        // "Can not read …"); the kind comes from the reader, which sees the read past the end.
        let bytes = try Fixtures.bytes(name)
        for eighth in 1..<8 {
            let cut = Array(bytes.prefix(bytes.count * eighth / 8))
            do {
                _ = try ImageDecoder().decode(cut)
                Issue.record("\(name) cut to \(eighth)/8 decoded")
            } catch {
                #expect(error.kind == .truncated, "\(name) cut to \(eighth)/8: \(error)")
                #expect(!error.message.contains("4294967295"), "\(name) cut to \(eighth)/8: \(error.message)")
            }
        }
    }

    @Test func absurdDimensionsAreRefused() throws {
        do {
            _ = try decodeFixture("tiff/huge-dimensions.tif")
            Issue.record("a 100000×100000 TIFF was accepted")
        } catch {
            #expect(error.kind == .tooManyPixels, "\(error)")
        }
    }

    @Test(arguments: [8, 100])
    func libtiffsRGBAConversionIsReadInBandsOfWholeStrips(_ rowsPerStrip: Int) throws {
        // CMYK goes through libtiff's RGBA conversion, read in bands of at least 64 rows:
        // 150 rows cross band and strip boundaries. With K = 0, libtiff gives R = 255 - C.
        let (width, height) = (37, 150)
        func cmyk(_ x: Int, _ y: Int) -> [UInt8] { [UInt8((x * 7 + y) % 256), UInt8((y * 3) % 256), UInt8((x + 2 * y) % 256), 0] }
        let bytes = Self.uncompressedTIFF(width: width, height: height, rowsPerStrip: rowsPerStrip, photometric: 5, pixel: cmyk)
        let image = try ImageDecoder(options: DecodeOptions(wantsRGB: true)).decode(bytes)
        expectPixels(try eight(image.rgb)) { x, y, c in Double(255 - Int(cmyk(x, y)[c])) }
    }

    /// A little-endian, uncompressed, 8-bit TIFF of 4 samples per pixel: the IFD after the
    /// header, its arrays after it, then the strips.
    static func uncompressedTIFF(
        width: Int, height: Int, rowsPerStrip: Int, photometric: Int, pixel: (Int, Int) -> [UInt8]
    ) -> [UInt8] {
        let strips = (height + rowsPerStrip - 1) / rowsPerStrip
        var data: [UInt8] = []
        for y in 0..<height { for x in 0..<width { data += pixel(x, y) } }
        let stripBytes = (0..<strips).map { min(rowsPerStrip, height - $0 * rowsPerStrip) * width * 4 }
        let entries = 10
        let arrays = 8 + 2 + entries * 12 + 4
        let bitsAt = arrays, offsetsAt = bitsAt + 8, countsAt = offsetsAt + 4 * strips, dataAt = countsAt + 4 * strips
        var out: [UInt8] = Array("II".utf8) + le16(42) + le32(8) + le16(entries)
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) {
            out += le16(tag) + le16(type) + le32(count) + value + Array(repeating: 0, count: 4 - value.count)
        }
        entry(256, 4, 1, le32(width))
        entry(257, 4, 1, le32(height))
        entry(258, 3, 4, le32(bitsAt))
        entry(259, 3, 1, le16(1))
        entry(262, 3, 1, le16(photometric))
        entry(273, 4, strips, strips == 1 ? le32(dataAt) : le32(offsetsAt))
        entry(277, 3, 1, le16(4))
        entry(278, 4, 1, le32(rowsPerStrip))
        entry(279, 4, strips, strips == 1 ? le32(stripBytes[0]) : le32(countsAt))
        entry(284, 3, 1, le16(1))
        out += le32(0)
        out += le16(8) + le16(8) + le16(8) + le16(8)
        var offset = dataAt
        for count in stripBytes {
            out += le32(offset)
            offset += count
        }
        for count in stripBytes { out += le32(count) }
        return out + data
    }
}

private func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
private func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
