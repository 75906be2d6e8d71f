import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageCodecs

/// The mean of a quadrant's interior (a 4-pixel margin keeps JPEG ringing out).
/// Each quadrant's interior within 6 levels of its colour in RGB and 4 in luma (lossy fixtures).
func expectQuadrantColours(_ image: DecodedImage, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let rgb = try eight(image.rgb)
    let luma = try eight(image.luma)
    for (quadrant, colour) in Pattern.quadrantColours.enumerated() {
        let want = [colour.0, colour.1, colour.2]
        for c in 0..<3 {
            let mean = quadrantMean(rgb, quadrant: quadrant, channel: c)
            #expect(abs(mean - Double(want[c])) <= 6, "\(name) quadrant \(quadrant) channel \(c): \(mean)", sourceLocation: sourceLocation)
        }
        let lumaMean = quadrantMean(luma, quadrant: quadrant)
        #expect(
            abs(lumaMean - Pattern.luma(colour.0, colour.1, colour.2)) <= 4, "\(name) quadrant \(quadrant) luma \(lumaMean)",
            sourceLocation: sourceLocation)
    }
}

func quadrantMean<S>(_ buffer: PixelBuffer<S>, quadrant: Int, channel: Int = 0) -> Double {
    let half = buffer.width / 2
    let x0 = (quadrant % 2) * half + 4, y0 = (quadrant / 2) * half + 4
    var sum = 0.0, count = 0.0
    for y in y0..<(y0 + half - 8) {
        for x in x0..<(x0 + half - 8) {
            sum += Double(buffer[x, y, channel])
            count += 1
        }
    }
    return sum / count
}

@Suite("JPEG decoding")
struct JPEGDecoderTests {
    @Test(arguments: [
        "jpeg/baseline-420.jpg", "jpeg/baseline-444.jpg", "jpeg/progressive.jpg", "jpeg/cmyk-adobe.jpg",
        "jpeg/arithmetic.jpg", "jpeg/arithmetic-progressive.jpg", "jpeg/rgb-colourspace.jpg",
    ])
    func colourQuadrants(_ name: String) throws {
        let image = try decodeFixture(name)
        #expect(image.format == .jpeg)
        #expect(image.orientedSize == ImageSize(width: 64, height: 64))
        try expectQuadrantColours(image, name)
    }

    @Test func grayscale() throws {
        let image = try decodeFixture("jpeg/gray.jpg")
        let luma = try eight(image.luma)
        for (quadrant, gray) in Pattern.quadrantGrays.enumerated() {
            #expect(abs(quadrantMean(luma, quadrant: quadrant) - Double(gray)) <= 3)
        }
    }

    @Test(arguments: ["jpeg/baseline-420.jpg", "jpeg/progressive.jpg", "jpeg/large.jpg"])
    func lumaOnlyPathMatchesLumaFromRGB(_ name: String) throws {
        let direct = try eight(decodeFixture(name, options: DecodeOptions()).luma)
        let viaRGB = try eight(decodeFixture(name).luma)
        #expect(direct.size == viaRGB.size)
        // libjpeg's Y comes from the stored YCbCr without the chroma round trip. The
        // two agree up to rounding, except where upsampled chroma drives RGB past 0 or
        // 255 at saturated edges and clipping moves the recomputed luma.
        var total = 0
        for (a, b) in zip(direct.samples, viaRGB.samples) { total += abs(Int(a) - Int(b)) }
        let meanDifference = Double(total) / Double(direct.samples.count)
        #expect(meanDifference < 0.6, "mean |Y - Y(RGB)| = \(meanDifference)")
    }

    /// The stored top-left 16×16 block is red; where it lands after each orientation.
    @Test(arguments: 1...8)
    func exifOrientation(value: Int) throws {
        let image = try decodeFixture("jpeg/orientation-\(value).jpg")
        let orientation = try #require(Orientation(rawValue: value))
        #expect(image.orientation == orientation)
        let expectedSize = value >= 5 ? ImageSize(width: 32, height: 48) : ImageSize(width: 48, height: 32)
        #expect(image.orientedSize == expectedSize)
        let rgb = try eight(image.rgb)
        #expect(rgb.size == expectedSize)
        let w = expectedSize.width, h = expectedSize.height
        let corners = [(8, 8), (w - 9, 8), (8, h - 9), (w - 9, h - 9)]
        // Index into corners (TL, TR, BL, BR) of where the red block is displayed.
        let redCorner = [1: 0, 2: 1, 3: 3, 4: 2, 5: 0, 6: 1, 7: 3, 8: 2][value]!
        for (index, corner) in corners.enumerated() {
            let red = Int(rgb[corner.0, corner.1, 0]), green = Int(rgb[corner.0, corner.1, 1])
            if index == redCorner {
                #expect(red > 230 && green < 30, "orientation \(value): corner \(index) should be red, is (\(red), \(green))")
            } else {
                #expect(abs(red - 128) < 12 && abs(green - 128) < 12, "orientation \(value): corner \(index) should be gray")
            }
        }
    }

    @Test func orientationCanBeLeftToTheCaller() throws {
        let image = try decodeFixture("jpeg/orientation-6.jpg", options: DecodeOptions(wantsRGB: true, appliesOrientation: false))
        #expect(image.orientation == .right)
        #expect(!image.isOriented)
        #expect(image.luma.size == ImageSize(width: 48, height: 32))
        #expect(image.orientedSize == ImageSize(width: 32, height: 48))
    }

    @Test(arguments: [2, 4, 8])
    func reducedSizeDecode(denominator: Int) throws {
        let full = try eight(decodeFixture("jpeg/large.jpg", options: DecodeOptions()).luma)
        let image = try decodeFixture("jpeg/large.jpg", options: DecodeOptions(scale: .reduced(denominator: denominator)))
        let reduced = try eight(image.luma)
        #expect(image.scaleDenominator == denominator)
        #expect(reduced.size == ImageSize(width: (256 + denominator - 1) / denominator, height: (192 + denominator - 1) / denominator))
        #expect(image.storedSize == ImageSize(width: 256, height: 192))
        let mean = { (b: PixelBuffer<UInt8>) in Double(b.samples.reduce(0) { $0 + Int($1) }) / Double(b.samples.count) }
        #expect(abs(mean(full) - mean(reduced)) < 1.5, "full \(mean(full)), 1/\(denominator) \(mean(reduced))")
    }

    @Test func atLeastPicksTheSmallestSufficientReduction() {
        let size = ImageSize(width: 4032, height: 3024)
        #expect(DecodeScale.atLeast(shortSide: 1000).denominator(for: size) == 2)
        #expect(DecodeScale.atLeast(shortSide: 378).denominator(for: size) == 8)
        #expect(DecodeScale.atLeast(shortSide: 379).denominator(for: size) == 4)
        #expect(DecodeScale.atLeast(shortSide: 5000).denominator(for: size) == 1)
        // Both sides must be covered: the longer side decides for a wide image.
        #expect(DecodeScale.covering(shortSide: 0, longSide: 1920).denominator(for: ImageSize(width: 4000, height: 3000)) == 2)
        #expect(DecodeScale.covering(shortSide: 0, longSide: 1920).denominator(for: ImageSize(width: 3264, height: 2448)) == 1)
        #expect(DecodeScale.covering(shortSide: 768, longSide: 1920).denominator(for: ImageSize(width: 8000, height: 1000)) == 1)
        #expect(DecodeScale.covering(shortSide: 100, longSide: 1920).denominator(for: ImageSize(width: 8000, height: 1000)) == 4)
        #expect(DecodeScale.reduced(denominator: 3).denominator(for: size) == 2)
    }

    @Test func truncatedDataIsAWarningThenAStrictError() throws {
        let image = try decodeFixture("jpeg/truncated.jpg")
        #expect(image.warnings.contains { $0.kind == .truncated })
        #expect(image.orientedSize == ImageSize(width: 256, height: 192))
        #expect(throws: ImagingError.self) {
            try decodeFixture("jpeg/truncated.jpg", options: DecodeOptions(isStrict: true))
        }
        do {
            _ = try decodeFixture("jpeg/truncated.jpg", options: DecodeOptions(isStrict: true))
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.message.contains("Premature end"))
        }
    }

    @Test func corruptEntropyDataIsAWarningThenAStrictError() throws {
        let image = try decodeFixture("jpeg/corrupt-huffman.jpg")
        #expect(image.warnings.contains { $0.kind == .corrupt })
        do {
            _ = try decodeFixture("jpeg/corrupt-huffman.jpg", options: DecodeOptions(isStrict: true))
            Issue.record("strict decoding accepted corrupt data")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test func absurdDimensionsAreRefusedBeforeDecoding() throws {
        do {
            _ = try decodeFixture("jpeg/huge-dimensions.jpg")
            Issue.record("a 65000×65000 header was accepted")
        } catch {
            #expect(error.kind == .tooManyPixels)
            #expect(error.message.contains("65000×65000"))
        }
    }

    @Test func oneDecoderDecodesManyImagesWithoutDisturbingEarlierResults() throws {
        let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true))
        let first = try decoder.decode(contentsOf: Fixtures.path("jpeg/large.jpg"))
        let firstLuma = try eight(first.luma)
        let snapshot = firstLuma.samples
        _ = try? decoder.decode(contentsOf: Fixtures.path("jpeg/truncated.jpg"))
        let second = try decoder.decode(contentsOf: Fixtures.path("jpeg/gray.jpg"))
        #expect(try eight(first.luma).samples == snapshot)
        #expect(second.orientedSize == ImageSize(width: 64, height: 64))
        // The decoder recovers after a failure.
        _ = try? decoder.decode(contentsOf: Fixtures.path("jpeg/huge-dimensions.jpg"))
        let third = try decoder.decode(contentsOf: Fixtures.path("jpeg/large.jpg"))
        #expect(try eight(third.luma).samples == snapshot)
    }
}

@Suite("JPEG CMYK conventions")
struct JPEGCMYKTests {
    /// The file without its APP14 Adobe segment.
    func withoutAdobeMarker(_ bytes: [UInt8]) throws -> [UInt8] {
        var index = 2
        while index + 4 <= bytes.count {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xEE {
                return Array(bytes[0..<index]) + Array(bytes[(index + 2 + length)...])
            }
            if marker == 0xDA { break }
            index += 2 + length
        }
        throw FixtureMismatch("no APP14 segment before the scan")
    }

    @Test func cmykWithoutAdobeMarkerIsReadAsPlainInk() throws {
        // The fixture stores Adobe-inverted samples with K = 255 ("no ink" when inverted).
        // Without the marker the same samples mean full black ink, so every quadrant is black:
        // the marker alone decides the convention.
        let bytes = try withoutAdobeMarker(Fixtures.bytes("jpeg/cmyk-adobe.jpg"))
        let image = try ImageDecoder(options: DecodeOptions(wantsRGB: true)).decode(bytes)
        let rgb = try eight(image.rgb)
        for quadrant in 0..<4 {
            for c in 0..<3 {
                #expect(quadrantMean(rgb, quadrant: quadrant, channel: c) <= 6)
            }
        }
    }
}
