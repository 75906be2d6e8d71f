import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

@Suite("BMP decoding")
struct BMPDecoderTests {
    /// Every palette depth, header and compression gives the palette pattern exactly.
    @Test(arguments: ["bmp/palette8.bmp", "bmp/palette4.bmp", "bmp/palette8-os2.bmp"])
    func palettedRowsThroughTheirPalette(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.format == .bmp && image.storedSize == ImageSize(width: 37, height: 23) && image.sourceBitDepth == (name.contains("4") ? 4 : 8))
        try expectPalettePattern(image.rgb)
    }

    @Test func oneBitPerPixel() throws {
        let image = try decodeFixture("bmp/palette1.bmp")
        try expectPalettePattern(image.rgb, index: { x, y in Pattern.paletteIndex(x, y) & 1 })
    }

    /// Encoded runs on even rows, literal runs (padded to 16 bits, odd lengths for RLE4's
    /// nibbles) on odd rows.
    @Test(arguments: ["bmp/rle8.bmp", "bmp/rle4.bmp"])
    func runLengthEncodedRows(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.warnings.isEmpty, "\(image.warnings)")
        try expectPalettePattern(image.rgb) { x, y in y % 2 == 0 ? Pattern.paletteIndex(x, y) / 2 * 2 : Pattern.paletteIndex(x, y) }
    }

    @Test(arguments: ["bmp/rgb24.bmp", "bmp/rgb24-top-down.bmp", "bmp/rgb24-os2.bmp", "bmp/xrgb32.bmp", "other/bmp.bmp"])
    func trueColourRowsInEitherDirection(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.storedSize == ImageSize(width: 37, height: 23) && image.sourceBitDepth == 8)
        try expectRGB8Pattern(image)
    }

    /// 5-bit and 6-bit channels are scaled to 8 bits: v × 255 / (2ⁿ − 1), rounded.
    @Test(arguments: [("bmp/rgb555.bmp", [5, 5, 5]), ("bmp/rgb565.bmp", [5, 6, 5])])
    func sixteenBitPixelsThroughTheirMasks(_ name: String, _ bits: [Int]) throws {
        let image = try decodeFixture(name)
        #expect(image.sourceBitDepth == bits.max())
        expectPixels(try eight(image.rgb)) { x, y, c in
            let p = Pattern.rgb8(x, y)
            let most = (1 << bits[c]) - 1
            let stored = [p.0, p.1, p.2][c] >> (8 - bits[c])
            return Double((stored * 255 + most / 2) / most)
        }
    }

    /// An alpha mask in a V5 header: transparent pixels show white, as every alpha does.
    @Test func anAlphaMaskIsComposited() throws {
        let image = try decodeFixture("bmp/argb32-v5.bmp")
        expectPixels(try eight(image.rgb)) { x, y, c in
            let p = Pattern.rgb8(x, y)
            return Pattern.paletteIndex(x, y) == 0 ? 255 : Double([p.0, p.1, p.2][c])
        }
    }

    /// A palette of greys is a grey image; its luma is the palette's value.
    @Test func aGreyPaletteGivesGreyPixels() throws {
        let image = try decodeFixture("bmp/gray8.bmp", options: DecodeOptions())
        expectPixels(try eight(image.luma)) { x, y, _ in Double(Pattern.gray8(x, y)) }
    }

    @Test func theResolutionComesFromPixelsPerMetre() throws {
        let image = try decodeFixture("bmp/rgb24.bmp")
        #expect(image.resolution.map { abs($0.horizontal - 72.009) < 0.01 && abs($0.vertical - 72.009) < 0.01 } == true)
    }

    /// Rows missing at the end of the file are black, with a warning; strict mode refuses.
    @Test(arguments: [("bmp/truncated.bmp", "BMP: the file ends in row 14 of 23 (the rest left black)"),
                      ("bmp/rle8-truncated.bmp", "BMP: the RLE data ends in row 11 of 23 (the rest left black)")])
    func aCutFileKeepsItsRowsAndSaysWhereItEnds(_ name: String, _ message: String) throws {
        let image = try decodeFixture(name)
        #expect(image.warnings.map(\.kind) == [.truncated] && image.warnings.first?.message == message, "\(image.warnings)")
        let rgb = try eight(image.rgb)
        #expect(rgb[0, 0, 0] == 0 && rgb[0, 0, 1] == 0 && rgb[0, 0, 2] == 0, "the top row, stored last, is missing")
        let p = Pattern.rgb8(0, 22)
        if name == "bmp/truncated.bmp" { #expect([rgb[0, 22, 0], rgb[0, 22, 1], rgb[0, 22, 2]].map(Int.init) == [p.0, p.1, p.2]) }
        let strict = decodeError(Fixtures.path(name), options: DecodeOptions(isStrict: true))
        #expect(strict?.kind == .truncated && strict?.message == "strict mode: " + message)
    }

    @Test func theSizeIsCheckedBeforeDecoding() {
        let error = decodeError(Fixtures.path("bmp/rgb24.bmp"), options: DecodeOptions(limits: DecodeLimits(maxPixels: 800)))
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.message == "BMP header declares 37×23 pixels, above the limit of 800 (raise it with --max-pixels)")
    }

    /// Headers edited by hand: each refusal has its kind and its words.
    @Test func malformedHeadersAreRefusedBySpecificErrors() throws {
        let bytes = try Fixtures.bytes("bmp/rgb24.bmp")
        func edited(_ offset: Int, _ values: [UInt8]) -> [UInt8] {
            var copy = bytes
            copy.replaceSubrange(offset..<(offset + values.count), with: values)
            return copy
        }
        let cases: [([UInt8], ImagingErrorKind, String)] = [
            (edited(14, [41, 0, 0, 0]), .corrupt, "BMP: an information header of 41 bytes, not one BMP writers use"),
            (edited(18, [0, 0, 0, 0]), .invalidDimensions, "BMP: the header declares 0×23 pixels"),
            (edited(22, [0, 0, 0, 0x80]), .invalidDimensions, "BMP: the header declares 37×-2147483648 pixels"),
            (edited(30, [4, 0, 0, 0]), .unsupportedFeature, "BMP: a JPEG stream inside a BMP is not decoded"),
            (edited(30, [1, 0, 0, 0]), .corrupt, "BMP: 24 bits per pixel with compression 1"),
            (edited(30, [9, 0, 0, 0]), .corrupt, "BMP: unknown compression 9"),
            (edited(10, [10, 0, 0, 0]), .corrupt, "BMP: the pixel data's offset (10) lies inside the headers"),
            (edited(10, [0, 0, 1, 0]), .truncated, "BMP: the pixel data starts at byte 65536, past the end of the 2630-byte file"),
            (Array(bytes.prefix(40)), .truncated, "BMP: the file ends inside its 40-byte information header"),
        ]
        let decoder = ImageDecoder()
        for (mutant, kind, message) in cases {
            do {
                _ = try decoder.decode(mutant)
                Issue.record("decoded: \(message)")
            } catch {
                #expect(error.kind == kind && error.message == message, "\(error)")
            }
        }
    }

    @Test func aSecondPageIsOutOfRange() {
        let error = decodeError(Fixtures.path("bmp/rgb24.bmp"), options: DecodeOptions(pageIndex: 1))
        #expect(error?.kind == .pageOutOfRange && error?.message == "BMP: page 2 requested, a BMP has 1")
    }

    /// Every prefix, and a changed byte at each of the first 80 (headers, masks, palette),
    /// gives an image or a specific error, never a crash.
    @Test(arguments: ["bmp/palette4.bmp", "bmp/rle8.bmp", "bmp/rle4.bmp", "bmp/rgb565.bmp", "bmp/argb32-v5.bmp", "bmp/palette8-os2.bmp"])
    func everyPrefixAndHeaderMutantGetsAnAnswer(_ name: String) throws {
        let kinds = try mutantErrorKinds(name, headerBytes: 80)
        #expect(kinds.isSubset(of: [.truncated, .corrupt, .notAnImage, .unsupportedFeature, .invalidDimensions, .tooManyPixels]), "\(kinds)")
    }
}
