internal import _CImagingShims
import ImagingCore

/// BMP (Windows and OS/2 bitmaps), decoded here: no library to rely on is small and kept
/// better than the format is simple.
///
/// Reads every header a BMP is written with (OS/2 1.x's 12 bytes, OS/2 2.x's 16 to 64, Windows'
/// 40, 52, 56, 108 and 124), 1, 2, 4 and 8 bits through a palette, 16 and 32 bits through
/// channel masks (the default 5-5-5 and 8-8-8, or the file's bit fields), 24 bits, and RLE8 and
/// RLE4 compression; rows bottom-up or top-down. A palette of greys gives a grey image. An alpha
/// mask is honoured unless every pixel's alpha is 0 (what writers that do not mean alpha leave).
/// BMPs wrapping a JPEG or PNG (compressions 4 and 5) and OS/2's Huffman and RLE24 are refused
/// as unsupported features. The size is checked against the limits from the header; the pixel
/// data is read where it lies, rows missing at the end are left black with a `truncated`
/// warning, and the time limit is checked between rows.
enum BMPDecoder {
    /// What the headers say.
    struct Header {
        var size: ImageSize
        var topDown: Bool
        var bitsPerPixel: Int
        var compression: Compression
        /// Entries as RGB, for 1 to 8 bits per pixel.
        var palette: [(UInt8, UInt8, UInt8)]
        /// Red, green, blue and alpha masks, for 16 and 32 bits per pixel.
        var masks: [UInt32]
        var dataOffset: Int
        var resolution: ImageResolution?

        /// The stored bits of one sample: the index's through a palette, the widest colour
        /// mask's (at most 8) for 16 and 32 bits, 8 for 24.
        var bitsPerSample: Int {
            if bitsPerPixel <= 8 { return bitsPerPixel }
            if masks.isEmpty { return 8 }
            return min(8, masks[0...2].map { Int(Field($0).bits) }.max()!)
        }
    }

    enum Compression: Equatable {
        case none, rle8, rle4, bitFields
    }

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let header = try readHeader(data)
        try options.limits.check(header.size, format: "BMP")
        guard header.dataOffset < data.count else {
            throw ImagingError(
                .truncated, "BMP: the pixel data starts at byte \(header.dataOffset), past the end of the \(data.count)-byte file")
        }

        let gray = !header.palette.isEmpty && header.palette.allSatisfy { $0.0 == $0.1 && $0.1 == $0.2 }
        let hasAlphaMask = header.masks.count == 4 && header.masks[3] != 0
        let channels = gray ? 1 : hasAlphaMask ? 4 : 3
        var warnings: [DecodeWarning] = []
        var failure: ImagingError?
        _ = workspace.fillStored(depth: .eight, size: header.size, channels: channels) { pixels, stride in
            guard let pixels else { return 1 }
            for y in 0..<header.size.height { (pixels + y * stride).update(repeating: 0, count: header.size.width * channels) }
            var output = Output(pixels: pixels, stride: stride, channels: channels, palette: header.palette)
            do throws(ImagingError) {
                switch header.compression {
                case .rle8, .rle4:
                    try decodeRLE(data, header: header, into: &output, deadline: deadline)
                case .none, .bitFields:
                    try decodeRows(data, header: header, into: &output, deadline: deadline)
                }
            } catch {
                failure = error
                return 1
            }
            if hasAlphaMask && !output.sawAlpha {
                // Every alpha 0: the writer filled the fourth byte without meaning transparency.
                for y in 0..<header.size.height {
                    for x in 0..<header.size.width { pixels[y * stride + x * 4 + 3] = 255 }
                }
            }
            warnings = output.warnings
            return 0
        }
        if let failure { throw failure }
        return StoredImage(
            depth: .eight, model: gray ? .gray : hasAlphaMask ? .rgba(premultiplied: false) : .rgb, storedSize: header.size,
            orientation: .up, scaleDenominator: 1, sourceBitDepth: header.bitsPerSample, pageCount: 1,
            warnings: warnings, resolution: header.resolution)
    }

    // MARK: Headers

    static func readHeader(_ data: UnsafeRawBufferPointer) throws(ImagingError) -> Header {
        let reader = LittleEndian(data)
        guard data.count >= 18 else { throw ImagingError(.truncated, "BMP: the file ends inside its header (\(data.count) bytes)") }
        let dataOffset = Int(reader.uint32(at: 10)!)
        let infoSize = Int(reader.uint32(at: 14)!)
        guard infoSize == 12 || ((16...64).contains(infoSize) && infoSize % 4 == 0) || infoSize == 108 || infoSize == 124 else {
            throw ImagingError(.corrupt, "BMP: an information header of \(infoSize) bytes, not one BMP writers use")
        }
        guard data.count >= 14 + infoSize else {
            throw ImagingError(.truncated, "BMP: the file ends inside its \(infoSize)-byte information header")
        }
        guard dataOffset >= 14 + infoSize else {
            throw ImagingError(.corrupt, "BMP: the pixel data's offset (\(dataOffset)) lies inside the headers")
        }

        let width: Int, signedHeight: Int, bitsPerPixel: Int, compressionCode: Int
        var coloursUsed = 0
        var resolution: ImageResolution?
        let os2 = infoSize == 12 || (infoSize != 40 && infoSize < 52) || infoSize == 64
        if infoSize == 12 {
            width = Int(reader.uint16(at: 18)!)
            signedHeight = Int(reader.uint16(at: 20)!)
            bitsPerPixel = Int(reader.uint16(at: 24)!)
            compressionCode = 0
        } else {
            width = Int(Int32(bitPattern: reader.uint32(at: 18)!))
            signedHeight = Int(Int32(bitPattern: reader.uint32(at: 22)!))
            bitsPerPixel = Int(reader.uint16(at: 28)!)
            // OS/2 2.x headers may stop after any field; what is missing is 0.
            compressionCode = infoSize >= 20 ? Int(reader.uint32(at: 30)!) : 0
            if infoSize >= 36, let x = reader.uint32(at: 38), let y = reader.uint32(at: 42), x > 0, y > 0, x < 1 << 24, y < 1 << 24 {
                resolution = ImageResolution(x: Double(x) * 0.0254, y: Double(y) * 0.0254)
            }
            if infoSize >= 40 { coloursUsed = Int(reader.uint32(at: 46)!) }
        }
        guard width > 0, signedHeight != 0, signedHeight != Int(Int32.min) else {
            throw ImagingError(.invalidDimensions, "BMP: the header declares \(width)×\(signedHeight) pixels")
        }
        let size = ImageSize(width: width, height: abs(signedHeight))
        let topDown = signedHeight < 0

        let compression: Compression
        switch (compressionCode, bitsPerPixel) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 24), (0, 32): compression = .none
        case (1, 8) where !os2: compression = .rle8
        case (2, 4) where !os2: compression = .rle4
        case (3, 16) where !os2, (3, 32) where !os2, (6, 16), (6, 32): compression = .bitFields
        case (4, _) where !os2, (5, _) where !os2:
            throw ImagingError(.unsupportedFeature, "BMP: a \(compressionCode == 4 ? "JPEG" : "PNG") stream inside a BMP is not decoded")
        case (3, _) where os2, (4, _) where os2:
            throw ImagingError(.unsupportedFeature, "BMP: OS/2 \(compressionCode == 3 ? "Huffman" : "RLE24") compression is not decoded")
        case (0, _), (1, _), (2, _), (3, _), (6, _):
            throw ImagingError(.corrupt, "BMP: \(bitsPerPixel) bits per pixel with compression \(compressionCode)")
        default:
            throw ImagingError(.corrupt, "BMP: unknown compression \(compressionCode)")
        }
        if topDown && (compression == .rle8 || compression == .rle4) {
            throw ImagingError(.corrupt, "BMP: RLE compression in a top-down bitmap")
        }

        var masks: [UInt32] = []
        var paletteStart = 14 + infoSize
        if bitsPerPixel == 16 || bitsPerPixel == 32 {
            var fields: [UInt32] = bitsPerPixel == 16 ? [0x7C00, 0x03E0, 0x001F, 0] : [0xFF_0000, 0xFF00, 0xFF, 0]
            if compression == .bitFields {
                // Masks sit in the V2 and later headers, or just after the 40-byte one.
                let count = compressionCode == 6 || infoSize >= 56 ? 4 : 3
                let at = infoSize >= 52 ? 54 : 14 + infoSize
                for i in 0..<count {
                    guard let mask = reader.uint32(at: at + 4 * i) else {
                        throw ImagingError(.truncated, "BMP: the file ends inside the channel masks")
                    }
                    fields[i] = mask
                }
                if infoSize < 52 { paletteStart += 4 * count }
            } else if infoSize >= 56 {
                fields[3] = reader.uint32(at: 66)!
            }
            let limit: UInt64 = 1 << UInt64(bitsPerPixel)
            guard fields.allSatisfy({ UInt64($0) < limit }), fields[0...2].contains(where: { $0 != 0 }) else {
                throw ImagingError(.corrupt, "BMP: channel masks \(fields.map { "0x" + String($0, radix: 16) }) do not fit \(bitsPerPixel)-bit pixels")
            }
            masks = fields
        }

        var palette: [(UInt8, UInt8, UInt8)] = []
        if bitsPerPixel <= 8 {
            let most = 1 << bitsPerPixel
            let count = coloursUsed > 0 && coloursUsed < most ? coloursUsed : most
            let entryBytes = infoSize == 12 ? 3 : 4
            // Writers size the palette by the pixel depth or by the colours used; read what lies
            // before the pixels, at least one entry.
            let end = dataOffset > paletteStart ? min(dataOffset, data.count) : data.count
            let room = (end - paletteStart) / entryBytes
            let entries = min(count, room)
            guard entries >= 1 else { throw ImagingError(.truncated, "BMP: the file ends before the palette") }
            palette.reserveCapacity(entries)
            for i in 0..<entries {
                let at = paletteStart + i * entryBytes
                palette.append((data[at + 2], data[at + 1], data[at]))
            }
        }
        return Header(
            size: size, topDown: topDown, bitsPerPixel: bitsPerPixel, compression: compression, palette: palette,
            masks: masks, dataOffset: dataOffset, resolution: resolution)
    }

    // MARK: Pixels

    /// The stored buffer being written, and what writing it found.
    struct Output {
        let pixels: UnsafeMutablePointer<UInt8>
        let stride: Int
        let channels: Int
        let palette: [(UInt8, UInt8, UInt8)]
        var sawAlpha = false
        var warnings: [DecodeWarning] = []
        private var badIndex = false

        init(pixels: UnsafeMutablePointer<UInt8>, stride: Int, channels: Int, palette: [(UInt8, UInt8, UInt8)]) {
            self.pixels = pixels
            self.stride = stride
            self.channels = channels
            self.palette = palette
        }

        /// Palette entry `index` at (x, y); an index past the palette is black, warned once.
        mutating func put(index: Int, x: Int, y: Int) {
            let out = pixels + y * stride + x * channels
            guard index < palette.count else {
                if !badIndex {
                    badIndex = true
                    warnings.append(DecodeWarning(.corrupt, "BMP: palette index \(index) past the \(palette.count) entries (drawn black)"))
                }
                return
            }
            let entry = palette[index]
            if channels == 1 {
                out[0] = entry.0
            } else {
                out[0] = entry.0
                out[1] = entry.1
                out[2] = entry.2
            }
        }
    }

    /// Uncompressed rows: palette indices, BGR bytes, or masked 16- and 32-bit pixels.
    private static func decodeRows(
        _ data: UnsafeRawBufferPointer, header: Header, into output: inout Output, deadline: UInt64
    ) throws(ImagingError) {
        let width = header.size.width, height = header.size.height, bits = header.bitsPerPixel
        let rowBytes = (width * bits + 31) / 32 * 4
        let fields = header.masks.map(Field.init)
        for row in 0..<height {
            if row & 63 == 0, deadline != 0, iq_monotonic_ns() > deadline {
                throw ImagingError(.timeLimit, "BMP: the time limit passed while decoding")
            }
            let start = header.dataOffset + row * rowBytes
            guard start + rowBytes <= data.count else {
                output.warnings.append(DecodeWarning(.truncated, "BMP: the file ends in row \(row + 1) of \(height) (the rest left black)"))
                return
            }
            let y = header.topDown ? row : height - 1 - row
            let source = data.baseAddress!.assumingMemoryBound(to: UInt8.self) + start
            switch bits {
            case 1, 2, 4, 8:
                let perByte = 8 / bits, mask = (1 << bits) - 1
                for x in 0..<width {
                    let shift = 8 - bits * (x % perByte + 1)
                    output.put(index: Int(source[x / perByte]) >> shift & mask, x: x, y: y)
                }
            case 24:
                let out = output.pixels + y * output.stride
                for x in 0..<width {
                    out[3 * x] = source[3 * x + 2]
                    out[3 * x + 1] = source[3 * x + 1]
                    out[3 * x + 2] = source[3 * x]
                }
            default:
                let out = output.pixels + y * output.stride
                let channels = output.channels
                for x in 0..<width {
                    let pixel: UInt32 = bits == 16
                        ? UInt32(source[2 * x]) | UInt32(source[2 * x + 1]) << 8
                        : UInt32(source[4 * x]) | UInt32(source[4 * x + 1]) << 8 | UInt32(source[4 * x + 2]) << 16
                            | UInt32(source[4 * x + 3]) << 24
                    for c in 0..<channels { out[channels * x + c] = fields[c].value(pixel) }
                    if channels == 4 && out[4 * x + 3] != 0 { output.sawAlpha = true }
                }
            }
        }
    }

    /// RLE8 and RLE4: runs of one index (two alternating ones for RLE4), literal runs, and the
    /// escapes for end of line, end of bitmap and a jump ahead. Pixels a jump skips stay black;
    /// runs past a row's end are cut, with a `corrupt` warning.
    private static func decodeRLE(
        _ data: UnsafeRawBufferPointer, header: Header, into output: inout Output, deadline: UInt64
    ) throws(ImagingError) {
        let width = header.size.width, height = header.size.height
        let four = header.compression == .rle4
        var at = header.dataOffset, x = 0, row = 0, overran = false
        func put(_ index: Int, _ output: inout Output) {
            if x < width && row < height { output.put(index: index, x: x, y: height - 1 - row) } else { overran = true }
            x += 1
        }
        while row < height {
            guard at + 2 <= data.count else {
                output.warnings.append(DecodeWarning(.truncated, "BMP: the RLE data ends in row \(row + 1) of \(height) (the rest left black)"))
                break
            }
            let first = Int(data[at]), second = Int(data[at + 1])
            at += 2
            if first > 0 {
                for i in 0..<first { put(four ? (i & 1 == 0 ? second >> 4 : second & 15) : second, &output) }
                continue
            }
            switch second {
            case 0:
                x = 0
                row += 1
                if row & 63 == 0, deadline != 0, iq_monotonic_ns() > deadline {
                    throw ImagingError(.timeLimit, "BMP: the time limit passed while decoding")
                }
            case 1:
                row = height
            case 2:
                guard at + 2 <= data.count else { continue }
                x += Int(data[at])
                row += Int(data[at + 1])
                at += 2
            default:
                // A literal run of `second` indices, padded to a whole 16-bit word.
                let bytes = four ? (second + 1) / 2 : second
                guard at + bytes <= data.count else {
                    at = data.count
                    continue
                }
                for i in 0..<second {
                    let byte = Int(data[at + (four ? i / 2 : i)])
                    put(four ? (i & 1 == 0 ? byte >> 4 : byte & 15) : byte, &output)
                }
                at += (bytes + 1) & ~1
            }
        }
        if overran {
            output.warnings.append(DecodeWarning(.corrupt, "BMP: RLE runs past the image's edge (cut)"))
        }
    }

    /// One channel's bit field of a 16- or 32-bit pixel, scaled to 8 bits.
    struct Field {
        let shift: UInt32
        let bits: UInt32
        let isAbsent: Bool

        init(_ mask: UInt32) {
            isAbsent = mask == 0
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            // Holes in a mask are read as part of it: the field is its span.
            bits = mask == 0 ? 0 : UInt32(32 - mask.leadingZeroBitCount) - shift
        }

        func value(_ pixel: UInt32) -> UInt8 {
            if isAbsent { return 0 }
            let raw = UInt64(pixel >> shift) & ((1 << UInt64(bits)) - 1)
            if bits >= 8 { return UInt8(raw >> UInt64(bits - 8)) }
            let most = (UInt64(1) << UInt64(bits)) - 1
            return UInt8((raw * 255 + most / 2) / most)
        }
    }

    /// Bounds-checked little-endian reads.
    struct LittleEndian {
        let data: UnsafeRawBufferPointer

        init(_ data: UnsafeRawBufferPointer) { self.data = data }

        func uint16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= data.count else { return nil }
            return UInt16(data[offset]) | UInt16(data[offset + 1]) << 8
        }

        func uint32(at offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= data.count else { return nil }
            return UInt32(data[offset]) | UInt32(data[offset + 1]) << 8 | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24
        }
    }
}
