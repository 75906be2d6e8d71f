import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

/// Decodes a fixture with RGB, failing the test on error.
func decodeFixture(_ name: String, options: DecodeOptions = DecodeOptions(wantsRGB: true)) throws(ImagingError) -> DecodedImage {
    try ImageDecoder(options: options).decode(contentsOf: Fixtures.path(name))
}

func eight(_ buffer: AnyPixelBuffer?) throws -> PixelBuffer<UInt8> {
    guard case .uint8(let b)? = buffer else { throw FixtureMismatch("expected an 8-bit buffer, got \(String(describing: buffer))") }
    return b
}

func sixteen(_ buffer: AnyPixelBuffer?) throws -> PixelBuffer<UInt16> {
    guard case .uint16(let b)? = buffer else { throw FixtureMismatch("expected a 16-bit buffer, got \(String(describing: buffer))") }
    return b
}

struct FixtureMismatch: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Checks every pixel of `buffer` against `expected` within `tolerance`, reporting the first mismatch.
func expectPixels<S>(
    _ buffer: PixelBuffer<S>, tolerance: Double = 0, sourceLocation: SourceLocation = #_sourceLocation,
    _ expected: (Int, Int, Int) -> Double
) {
    for y in 0..<buffer.height {
        for x in 0..<buffer.width {
            for c in 0..<buffer.channels {
                let value = Double(buffer[x, y, c])
                let want = expected(x, y, c)
                if abs(value - want) > tolerance {
                    Issue.record("pixel (\(x), \(y)) channel \(c) is \(value), expected \(want) ± \(tolerance)", sourceLocation: sourceLocation)
                    return
                }
            }
        }
    }
}

/// The rgb8 pattern exactly in RGB, and its luma within rounding (lossless fixtures).
func expectRGB8Pattern(_ image: DecodedImage, sourceLocation: SourceLocation = #_sourceLocation) throws {
    expectPixels(try eight(image.rgb), sourceLocation: sourceLocation) { x, y, c in
        let p = Pattern.rgb8(x, y)
        return Double([p.0, p.1, p.2][c])
    }
    expectPixels(try eight(image.luma), tolerance: 0.51, sourceLocation: sourceLocation) { x, y, _ in
        let p = Pattern.rgb8(x, y)
        return Pattern.luma(p.0, p.1, p.2)
    }
}

/// The palette entries of `index` (the palette pattern's own by default) exactly in RGB.
func expectPalettePattern(
    _ rgb: AnyPixelBuffer?, index: (Int, Int) -> Int = Pattern.paletteIndex, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    expectPixels(try eight(rgb), sourceLocation: sourceLocation) { x, y, c in
        let p = Pattern.paletteEntry(index(x, y))
        return Double([p.0, p.1, p.2][c])
    }
}

/// The rgb8 pattern under the alpha8 pattern, composited over white.
func expectRGBA8OverWhite(_ image: DecodedImage, sourceLocation: SourceLocation = #_sourceLocation) throws {
    expectPixels(try eight(image.rgb), tolerance: 0.51, sourceLocation: sourceLocation) { x, y, c in
        let p = Pattern.rgb8(x, y)
        return Pattern.overWhite([p.0, p.1, p.2][c], alpha: Pattern.alpha8(x, y), maximum: 255)
    }
}

@Suite("PNG decoding")
struct PNGDecoderTests {
    @Test func gray8KeepsStoredValues() throws {
        let image = try decodeFixture("png/gray8.png")
        #expect(image.format == .png)
        #expect(image.orientedSize == ImageSize(width: 37, height: 23))
        let luma = try eight(image.luma)
        expectPixels(luma) { x, y, _ in Double(Pattern.gray8(x, y)) }
        expectPixels(try eight(image.rgb)) { x, y, _ in Double(Pattern.gray8(x, y)) }
    }

    @Test(arguments: ["png/gray16.png", "png/gray16-interlaced.png"])
    func gray16StaysSixteenBit(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.sourceBitDepth == 16)
        expectPixels(try sixteen(image.luma)) { x, y, _ in Double(Pattern.gray16(x, y)) }
    }

    @Test(arguments: [1, 2, 4])
    func lowBitGrayIsScaledToFullRange(bits: Int) throws {
        let image = try decodeFixture("png/gray\(bits).png")
        let maximum = Double((1 << bits) - 1)
        expectPixels(try eight(image.luma)) { x, y, _ in (Double(Pattern.lowBit(x, y, bits: bits)) * 255 / maximum).rounded() }
    }

    @Test(arguments: ["png/rgb8.png", "png/rgb8-interlaced.png"])
    func rgb8(_ name: String) throws {
        try expectRGB8Pattern(try decodeFixture(name))
    }

    @Test func rgb16() throws {
        let image = try decodeFixture("png/rgb16.png")
        expectPixels(try sixteen(image.rgb)) { x, y, c in
            let p = Pattern.rgb16(x, y)
            return Double([p.0, p.1, p.2][c])
        }
        expectPixels(try sixteen(image.luma), tolerance: 0.51) { x, y, _ in
            let p = Pattern.rgb16(x, y)
            return Pattern.luma(p.0, p.1, p.2)
        }
    }

    @Test func grayAlphaIsCompositedOverWhite() throws {
        let image = try decodeFixture("png/graya8.png")
        expectPixels(try eight(image.luma), tolerance: 0.51) { x, y, _ in
            Pattern.overWhite(Pattern.gray8(x, y), alpha: Pattern.alpha8(x, y), maximum: 255)
        }
        let image16 = try decodeFixture("png/graya16.png")
        expectPixels(try sixteen(image16.luma), tolerance: 0.51) { x, y, _ in
            Pattern.overWhite(Pattern.gray16(x, y), alpha: Pattern.alpha16(x, y), maximum: 65535)
        }
    }

    @Test func rgbaIsCompositedOverWhite() throws {
        try expectRGBA8OverWhite(try decodeFixture("png/rgba8.png"))
        let image16 = try decodeFixture("png/rgba16.png")
        expectPixels(try sixteen(image16.rgb), tolerance: 0.51) { x, y, c in
            let p = Pattern.rgb16(x, y)
            return Pattern.overWhite([p.0, p.1, p.2][c], alpha: Pattern.alpha16(x, y), maximum: 65535)
        }
    }

    @Test(arguments: ["png/palette8.png", "png/palette4.png", "png/palette8-interlaced.png"])
    func paletteIsExpanded(_ name: String) throws {
        let image = try decodeFixture(name)
        try expectPalettePattern(image.rgb)
    }

    @Test func paletteTransparencyBecomesAlpha() throws {
        let image = try decodeFixture("png/palette-trns.png")
        expectPixels(try eight(image.rgb), tolerance: 0.51) { x, y, c in
            let i = Pattern.paletteIndex(x, y)
            let p = Pattern.paletteEntry(i)
            return Pattern.overWhite([p.0, p.1, p.2][c], alpha: i * 17, maximum: 255)
        }
    }

    @Test func eXIfOrientationIsApplied() throws {
        let image = try decodeFixture("png/exif-orientation-6.png")
        #expect(image.orientation == .right)
        #expect(image.storedSize == ImageSize(width: 37, height: 23))
        #expect(image.orientedSize == ImageSize(width: 23, height: 37))
        let rgb = try eight(image.rgb)
        #expect(rgb.size == ImageSize(width: 23, height: 37))
        // Turned 90° clockwise: the stored top-left pixel is now top-right.
        let stored = Pattern.rgb8(0, 0)
        #expect(rgb[22, 0, 0] == UInt8(stored.0))
        expectPixels(rgb) { x, y, c in
            let p = Pattern.rgb8(y, 22 - x)
            return Double([p.0, p.1, p.2][c])
        }
    }
}
