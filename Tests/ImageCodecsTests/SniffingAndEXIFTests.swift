import ImagingCore
import Testing
import _ImagingTestSupport

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
        #expect(sniff(Array("\0\0\0\u{18}ftypheic".utf8)) == .supported(.heif))
        #expect(sniff(Array("\0\0\0\u{1C}ftypavif".utf8)) == .supported(.avif))
        // The general image brand: AV1 when a compatible brand says AVIF, HEVC otherwise.
        #expect(sniff(Array("\0\0\0\u{18}ftypmif1\0\0\0\0mif1avif".utf8)) == .supported(.avif))
        #expect(sniff(Array("\0\0\0\u{18}ftypmif1\0\0\0\0mif1heic".utf8)) == .supported(.heif))
        #expect(sniff(Array("\0\0\0\u{18}ftypcrx ".utf8)) == .supported(.raw))
        #expect(sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == .supported(.webp))
        #expect(sniff(Array("GIF89a".utf8)) == .supported(.gif))
        #expect(sniff(Array("GIF87a".utf8)) == .supported(.gif))
        #expect(sniff(Array("BM".utf8) + [UInt8](repeating: 0, count: 12)) == .supported(.bmp))
        #expect(sniff(Array("\0\0\0\u{0C}jP  \r\n".utf8)) == .unsupported("JPEG 2000"))
        #expect(sniff([0xFF, 0x0A, 0xFA, 0x7F]) == .supported(.jxl))
        #expect(sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) == .supported(.jxl))
        #expect(sniff(Array("%PDF-1.7".utf8)) == .supported(.pdf))
        #expect(sniff([0xFF, 0xD8]) == .unknown)
        #expect(sniff([]) == .unknown)
        #expect(sniff(Array("hello".utf8)) == .unknown)
    }

    /// A TIFF structure whose IFD0 holds `entries` (tag, field type, one inline value), in
    /// that order, then a next-directory offset of 0.
    func tiffStructure(littleEndian: Bool, entries: [(tag: UInt16, type: UInt16, value: UInt32)]) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            return littleEndian ? bytes : bytes.reversed()
        }
        var block = littleEndian ? Array("II".utf8) : Array("MM".utf8)
        block += u16(42) + u32(8) + u16(UInt16(entries.count))
        for entry in entries {
            block += u16(entry.tag) + u16(entry.type) + u32(1)
            switch entry.type {
            case 1: block += [UInt8(entry.value), 0, 0, 0]
            case 3: block += u16(UInt16(entry.value)) + [0, 0]
            default: block += u32(entry.value)
            }
        }
        return block + u32(0)
    }

    /// A TIFF-structured EXIF block with one IFD0 entry.
    func exifBlock(littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, value: UInt32) -> [UInt8] {
        tiffStructure(littleEndian: littleEndian, entries: [(tag, type, value)])
    }

    /// The first directories camera raw files write, against ordinary TIFF images.
    @Test(arguments: [true, false])
    func cameraRawIsToldFromATIFFImage(littleEndian: Bool) {
        let size: [(UInt16, UInt16, UInt32)] = [(256, 4, 640), (257, 4, 480)]
        func sniffed(_ entries: [(tag: UInt16, type: UInt16, value: UInt32)]) -> SniffedFormat {
            sniff(tiffStructure(littleEndian: littleEndian, entries: entries))
        }
        // DNG: DNGVersion (BYTE) in IFD0, whatever the rest.
        #expect(sniffed([(254, 4, 1)] + size + [(50706, 1, 1)]) == .supported(.raw))
        // The sensor's mosaic in IFD0: colour filter array or linear raw.
        #expect(sniffed(size + [(262, 3, 32803)]) == .supported(.raw))
        #expect(sniffed(size + [(262, 3, 34892)]) == .supported(.raw))
        // A preview in IFD0 and the raw image in a SubIFD (NEF, ARW, PEF).
        #expect(sniffed([(254, 4, 1)] + size + [(330, 4, 4096)]) == .supported(.raw))
        // Ordinary images: RGB or gray, a reduced-resolution page without SubIFDs, SubIFDs
        // beside a full-resolution IFD0.
        #expect(sniffed(size + [(262, 3, 2)]) == .supported(.tiff))
        #expect(sniffed(size + [(262, 3, 1)]) == .supported(.tiff))
        #expect(sniffed([(254, 4, 1)] + size) == .supported(.tiff))
        #expect(sniffed([(254, 4, 0)] + size + [(330, 4, 4096)]) == .supported(.tiff))
        #expect(sniffed([]) == .supported(.tiff))
    }

    @Test func canonCR2IsCameraRaw() {
        var cr2 = tiffStructure(littleEndian: true, entries: [(256, 4, 640)])
        cr2.insert(contentsOf: [0x43, 0x52, 2, 0, 0, 0, 0, 0], at: 8)  // "CR", version 2.0, RAW IFD offset
        cr2[4] = 16  // IFD0 follows the CR2 header
        #expect(sniff(cr2) == .supported(.raw))
        // The same bytes after a header pointing elsewhere are image data, not a signature.
        cr2[4] = 24
        #expect(sniff(cr2) == .supported(.tiff))
    }

    /// A directory cut anywhere is read as far as it goes: a camera raw entry past the cut is
    /// not seen, and nothing is read past the bytes.
    @Test func aTruncatedDirectoryIsReadAsFarAsItGoes() {
        let dng = tiffStructure(littleEndian: true, entries: [(256, 4, 640), (50706, 1, 1)])
        for length in 0..<dng.count {
            let format = sniff(Array(dng[0..<length]))
            let countEnd = 8 + 2 + 12 + 8  // where the DNGVersion entry's value count ends
            if length < 4 { #expect(format == .unknown) }
            else if length < countEnd { #expect(format == .supported(.tiff), "prefix of \(length) bytes") }
            else { #expect(format == .supported(.raw), "prefix of \(length) bytes") }
        }
    }

    /// A DNG directory with no sensor data: LibRaw's own refusal, in imgquality's kinds.
    @Test func aCameraRawFileWithoutItsDataFailsWithLibRawsReason() throws {
        let dng = tiffStructure(littleEndian: true, entries: [(254, 4, 1), (256, 4, 256), (257, 4, 171), (50706, 1, 1)])
        #expect {
            _ = try ImageDecoder().decode(dng)
        } throws: { error in
            let error = error as? ImagingError
            return [.unsupportedFeature, .corrupt, .truncated].contains(error?.kind) && error?.message.hasPrefix("camera raw: ") == true
        }
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

    /// The Flash tag of the EXIF IFD: bit 0 says whether it fired (0x10 is "did not fire,
    /// compulsory suppression", 0x19 "fired, auto mode").
    @Test(arguments: [true, false])
    func flashTag(littleEndian: Bool) {
        for (value, fired) in [(UInt16(1), true), (0x19, true), (0, false), (0x10, false)] {
            #expect(Fixtures.flashEXIF(littleEndian: littleEndian, flash: value).withUnsafeBytes { EXIF.flashFired($0) } == fired, "\(value)")
        }
        // No EXIF IFD, or one pointed past the bytes, or cut short: not fired.
        #expect(exifBlock(littleEndian: littleEndian, value: 1).withUnsafeBytes { EXIF.flashFired($0) } == false)
        #expect(exifBlock(littleEndian: littleEndian, tag: 0x8769, type: 4, value: 4096).withUnsafeBytes { EXIF.flashFired($0) } == false)
        let whole = Fixtures.flashEXIF(littleEndian: littleEndian, flash: 1)
        for length in 0..<38 {  // the Flash value ends at byte 38
            #expect(Array(whole[0..<length]).withUnsafeBytes { EXIF.flashFired($0) } == false, "prefix of \(length) bytes")
        }
    }

    /// A JPEG whose Exif APP1 says the flash fired decodes with `flashFired`; without it, not.
    @Test func aJPEGSaysItsFlashFired() throws {
        var pixels = PixelBuffer<UInt8>(width: 16, height: 16)
        for y in 0..<16 { for x in 0..<16 { pixels[x, y] = UInt8(16 * x) } }
        let plain = try JPEGEncoder.encode(pixels)
        #expect(try ImageDecoder().decode(Fixtures.withFlashEXIF(plain)).flashFired)
        #expect(try !ImageDecoder().decode(Fixtures.withFlashEXIF(plain, flash: 0x10)).flashFired)
        #expect(try !ImageDecoder().decode(plain).flashFired)
    }
}
