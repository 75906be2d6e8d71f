import ImagingCore
import Testing

@testable import ImageCodecs

@Suite("Format sniffing and EXIF")
struct SniffingAndEXIFTests {
    func sniff(_ bytes: [UInt8]) -> SniffedFormat {
        bytes.withUnsafeBytes { SniffedFormat.sniff($0) }
    }

    @Test func signatures() {
        #expect(sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .supported(.jpeg))
        #expect(sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .supported(.png))
        #expect(sniff(Array("II*\0".utf8)) == .supported(.tiff))
        #expect(sniff(Array("MM\0*".utf8)) == .supported(.tiff))
        #expect(sniff(Array("II+\0".utf8)) == .supported(.tiff))
        #expect(sniff(Array("\0\0\0\u{18}ftypheic".utf8)) == .unsupported("HEIF"))
        #expect(sniff(Array("\0\0\0\u{1C}ftypavif".utf8)) == .unsupported("AVIF"))
        #expect(sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .unsupported("WebP"))
        #expect(sniff(Array("GIF89a".utf8)) == .unsupported("GIF"))
        #expect(sniff(Array("%PDF-1.7".utf8)) == .unsupported("PDF"))
        #expect(sniff([0xFF, 0xD8]) == .unknown)
        #expect(sniff([]) == .unknown)
        #expect(sniff(Array("hello".utf8)) == .unknown)
    }

    /// A TIFF-structured EXIF block with one IFD0 entry.
    func exifBlock(littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, value: UInt32) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            return littleEndian ? bytes : bytes.reversed()
        }
        var block = littleEndian ? Array("II".utf8) : Array("MM".utf8)
        block += u16(42) + u32(8) + u16(1) + u16(tag) + u16(type) + u32(1)
        block += type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value)
        return block + u32(0)
    }

    @Test(arguments: [true, false])
    func orientationTag(littleEndian: Bool) {
        for value in 1...8 {
            let block = exifBlock(littleEndian: littleEndian, value: UInt32(value))
            #expect(block.withUnsafeBytes { EXIF.orientationValue($0) } == value)
        }
        let long = exifBlock(littleEndian: littleEndian, type: 4, value: 6)
        #expect(long.withUnsafeBytes { EXIF.orientationValue($0) } == 6)
        let other = exifBlock(littleEndian: littleEndian, tag: 0x010F, value: 6)
        #expect(other.withUnsafeBytes { EXIF.orientationValue($0) } == nil)
    }

    @Test func malformedBlocksAreIgnored() {
        let valid = exifBlock(littleEndian: true, value: 6)
        for length in 0..<20 {  // the value ends at byte 20
            let prefix = Array(valid[0..<length])
            let value = prefix.withUnsafeBytes { EXIF.orientationValue($0) }
            #expect(value == nil, "prefix of \(length) bytes read \(String(describing: value))")
        }
        let (orientation, warning) = exifBlock(littleEndian: true, value: 9).withUnsafeBytes { EXIF.orientation($0) }
        #expect(orientation == .up)
        #expect(warning?.kind == .other)
    }
}
