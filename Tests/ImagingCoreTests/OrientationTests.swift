import ImagingCore
import Testing

@Suite("Orientation")
struct OrientationTests {
    /// A 5×3 buffer with 2 channels whose samples encode their stored position.
    func numbered() -> PixelBuffer<UInt8> {
        var buffer = PixelBuffer<UInt8>(width: 5, height: 3, channels: 2)
        for y in 0..<3 {
            for x in 0..<5 {
                buffer[x, y, 0] = UInt8(x)
                buffer[x, y, 1] = UInt8(y)
            }
        }
        return buffer
    }

    /// Independent oracle: each orientation as a sequence of plain flips and a transpose,
    /// written from the EXIF definitions (row 0 / column 0 placement).
    func oracle(_ buffer: PixelBuffer<UInt8>, _ orientation: Orientation) -> PixelBuffer<UInt8> {
        func flipH(_ b: PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
            var out = b
            for y in 0..<b.height { for x in 0..<b.width { for c in 0..<b.channels { out[x, y, c] = b[b.width - 1 - x, y, c] } } }
            return out
        }
        func flipV(_ b: PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
            var out = b
            for y in 0..<b.height { for x in 0..<b.width { for c in 0..<b.channels { out[x, y, c] = b[x, b.height - 1 - y, c] } } }
            return out
        }
        func transpose(_ b: PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
            var out = PixelBuffer<UInt8>(width: b.height, height: b.width, channels: b.channels)
            for y in 0..<b.height { for x in 0..<b.width { for c in 0..<b.channels { out[y, x, c] = b[x, y, c] } } }
            return out
        }
        switch orientation {
        case .up: return buffer
        case .upMirrored: return flipH(buffer)
        case .down: return flipV(flipH(buffer))
        case .downMirrored: return flipV(buffer)
        case .leftMirrored: return transpose(buffer)
        case .right: return flipH(transpose(buffer))  // 90° clockwise
        case .rightMirrored: return flipV(flipH(transpose(buffer)))
        case .left: return flipV(transpose(buffer))  // 90° counter-clockwise
        }
    }

    @Test(arguments: Orientation.allCases)
    func matchesFlipAndTransposeOracle(_ orientation: Orientation) {
        let buffer = numbered()
        let result = buffer.applying(orientation)
        #expect(result == oracle(buffer, orientation))
        #expect(result.size == orientation.orientedSize(buffer.size))
    }

    @Test func clockwiseTurnMovesTopLeftToTopRight() {
        let turned = numbered().applying(.right)
        #expect(turned.size == ImageSize(width: 3, height: 5))
        #expect(turned[2, 0, 0] == 0 && turned[2, 0, 1] == 0)
    }

    @Test func inversePairsCompose() {
        let buffer = numbered()
        #expect(buffer.applying(.right).applying(.left) == buffer)
        #expect(buffer.applying(.down).applying(.down) == buffer)
        #expect(buffer.applying(.leftMirrored).applying(.leftMirrored) == buffer)
        #expect(buffer.applying(.rightMirrored).applying(.rightMirrored) == buffer)
    }
}

@Suite("Pixel buffers and limits")
struct PixelBufferTests {
    @Test func reshapeKeepsTheAllocation() {
        var buffer = PixelBuffer<UInt16>(width: 100, height: 100, channels: 3)
        let capacity = buffer.samples.capacity
        buffer.reshape(width: 10, height: 10, channels: 1)
        #expect(buffer.samples.count == 100)
        #expect(buffer.rowStride == 10)
        buffer.reshape(width: 90, height: 100, channels: 3)
        #expect(buffer.samples.count == 27_000)
        #expect(buffer.samples.capacity == capacity)
    }

    /// A buffer whose every sample says where it is: 100 × row + 10 × column + channel.
    func numbered(width: Int, height: Int, channels: Int) -> PixelBuffer<UInt8> {
        var buffer = PixelBuffer<UInt8>(width: width, height: height, channels: channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels { buffer[x, y, c] = UInt8(100 * y + 10 * x + c) }
            }
        }
        return buffer
    }

    @Test func aCropCopiesItsRectangleOfEveryChannel() {
        let crop = numbered(width: 5, height: 3, channels: 3).cropped(to: PixelRect(x: 2, y: 1, width: 2, height: 2))
        #expect(crop.size == ImageSize(width: 2, height: 2))
        #expect(crop.channels == 3)
        #expect(crop.rowStride == 6)
        #expect(crop.samples == [120, 121, 122, 130, 131, 132, 220, 221, 222, 230, 231, 232])
    }

    @Test func aCropOfAPlaneAndOfTheWholeBuffer() {
        let plane = numbered(width: 4, height: 3, channels: 1)
        #expect(plane.cropped(to: PixelRect(x: 3, y: 0, width: 1, height: 3)).samples == [30, 130, 230])
        #expect(plane.cropped(to: PixelRect(x: 0, y: 0, width: 4, height: 3)) == plane)
        #expect(plane.cropped(to: PixelRect(x: 1, y: 1, width: 0, height: 2)).samples.isEmpty)
    }

    @Test func eightBitConversionRounds() {
        let buffer = AnyPixelBuffer.uint16(PixelBuffer(width: 4, height: 1, samples: [0, 128, 257 * 100 + 128, 65535]))
        #expect(buffer.eightBit.samples == [0, 0, 100, 255])
    }

    @Test func limitsRefuseZeroAndHugeSizes() {
        let limits = DecodeLimits()
        #expect(throws: ImagingError.self) { try limits.check(ImageSize(width: 0, height: 10), format: "PNG") }
        #expect(throws: ImagingError.self) { try limits.check(ImageSize(width: 100_000, height: 100_000), format: "PNG") }
        #expect(throws: ImagingError.self) { try limits.check(ImageSize(width: Int.max, height: 3), format: "PNG") }
        #expect(throws: Never.self) { try limits.check(ImageSize(width: 16384, height: 16384), format: "PNG") }
        do {
            try limits.check(ImageSize(width: 100_000, height: 100_000), format: "PNG")
        } catch {
            #expect(error.kind == .tooManyPixels)
            #expect(error.code == "decode.tooManyPixels")
        }
    }
}
