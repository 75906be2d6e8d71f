/// The image formats imgquality decodes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case tiff
    case webp
    /// HEIF with HEVC inside: what iPhones save (HEIC).
    case heif
    case avif
    /// The first frame.
    case gif
    case bmp
    /// The first frame.
    case jxl
    /// Each page rendered; decoded only where a `PlugInDecoder` for it is registered.
    case pdf
    /// Camera raw (DNG, CR2, CR3, NEF, ARW, ORF, RW2, RAF, …): the embedded full-size JPEG
    /// or the sensor data developed at half size.
    case raw

    /// The format's name as people write it.
    public var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .tiff: "TIFF"
        case .webp: "WebP"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .gif: "GIF"
        case .bmp: "BMP"
        case .jxl: "JPEG XL"
        case .pdf: "PDF"
        case .raw: "camera raw"
        }
    }

    /// What a request for a page after the first is told, for the formats imgquality reads one
    /// image of; nil for TIFF and PDF, whose decoders know their pages.
    var onlyPage: String? {
        switch self {
        case .tiff, .pdf: nil
        case .jpeg, .png, .webp, .bmp: "a \(name) has 1"
        case .gif: "imgquality reads a GIF's first frame only"
        case .jxl: "imgquality reads a JPEG XL file's first frame only"
        case .heif, .avif: "imgquality reads the primary image only"
        case .raw: "imgquality reads a raw file's main image only"
        }
    }

    /// The formats imgquality decodes, as a sentence fragment: "JPEG, PNG, …, AVIF and GIF",
    /// or with `or` for "not a … file".
    public static func decodedNames(joinedBy conjunction: String = "and") -> String {
        let names = allCases.map(\.name)
        return names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last!
    }
}

/// What the first bytes of a file say it is. Formats are identified by their
/// magic bytes only, never by a file name.
public enum SniffedFormat: Equatable, Sendable {
    /// A format imgquality decodes.
    case supported(ImageFormat)
    /// A recognised format imgquality does not decode, by name (`"HEIF"`, `"WebP"`, …).
    case unsupported(String)
    /// Nothing recognised.
    case unknown

    /// Identifies `bytes` from their signature; 16 bytes are enough, except that a TIFF's
    /// first directory is read to tell a camera raw file, which is built on TIFF, from an image
    /// (`cameraRaw`).
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> SniffedFormat {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            for (i, byte) in signature.enumerated() where bytes[offset + i] != byte { return false }
            return true
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if ascii("IIRO") || ascii("IIRS") || ascii("MMOR") { return .supported(.raw) }  // Olympus ORF
        if ascii("IIU\0") { return .supported(.raw) }  // Panasonic RW2
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B])
        {
            if cameraRaw(bytes) != nil { return .supported(.raw) }
            return .supported(.tiff)
        }
        if ascii("GIF87a") || ascii("GIF89a") { return .supported(.gif) }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return .supported(.webp) }
        if ascii("ftyp", at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return .supported(.heif)
            case "mif1", "msf1", "mif2":
                // The general image brands: AV1 inside when a compatible brand says so.
                return compatibleBrands(bytes).contains { $0 == "avif" || $0 == "avis" } ? .supported(.avif) : .supported(.heif)
            case "avif", "avis": return .supported(.avif)
            case "crx ": return .supported(.raw)  // Canon CR3
            case "jxl ": return .supported(.jxl)
            default: return .unsupported("ISO media (\(brand.trimmingTrailingSpaces))")
            }
        }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .supported(.jxl) }
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            return .unsupported("JPEG 2000")
        }
        if ascii("BM") && bytes.count >= 14 { return .supported(.bmp) }
        if ascii("%PDF-") { return .supported(.pdf) }
        if ascii("8BPS") { return .unsupported("Photoshop PSD") }
        if ascii("qoif") { return .unsupported("QOI") }
        if ascii("FUJIFILMCCD-RAW") { return .supported(.raw) }  // Fujifilm RAF
        if starts([0x76, 0x2F, 0x31, 0x01]) { return .unsupported("OpenEXR") }
        if starts([0, 0, 1, 0]) && bytes.count >= 6 && bytes[4] != 0 && bytes[5] == 0 { return .unsupported("ICO") }
        return .unknown
    }
}

extension SniffedFormat {
    /// The compatible brands of an ISO media file's `ftyp` box, as far as the bytes hold them.
    static func compatibleBrands(_ bytes: UnsafeRawBufferPointer) -> [String] {
        guard bytes.count >= 16 else { return [] }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        var brands: [String] = []
        var at = 16
        while at + 4 <= min(size, bytes.count, 256) {
            brands.append(String(decoding: bytes[at..<(at + 4)], as: UTF8.self))
            at += 4
        }
        return brands
    }

    /// The kind of camera raw file a TIFF-structured file is, or nil for an image. Raw files
    /// hold the sensor's mosaic, which imgquality does not develop; their first directory is
    /// either that mosaic or a small preview (often 256 pixels wide) that would be scored in
    /// the photo's place. Told by what the raw formats write and images do not: Canon's "CR"
    /// signature after the header; DNGVersion (50706) in IFD0; a colour filter array or linear
    /// raw photometric interpretation (32803, 34892); or an IFD0 marked as a reduced-resolution
    /// copy (NewSubfileType bit 0) beside SubIFDs (330), where the raw image is kept.
    static func cameraRaw(_ bytes: UnsafeRawBufferPointer) -> String? {
        // Canon CR2: a little-endian header whose IFD0 lies at 16, after "CR" and version 2.
        if bytes.count >= 11, bytes[0] == 0x49, bytes[2] == 0x2A, Array(bytes[4..<11]) == [16, 0, 0, 0, 0x43, 0x52, 2] {
            return "Canon CR2 raw"
        }
        guard let ifd0 = TIFFDirectory(bytes) else { return nil }
        if ifd0.contains(50706) { return "DNG camera raw" }
        if let photometric = ifd0.number(262), photometric == 32803 || photometric == 34892 { return "camera raw" }
        if let subfile = ifd0.number(254), subfile & 1 == 1, ifd0.contains(330) { return "camera raw" }
        return nil
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// A short description of unrecognised bytes for an error message.
func describeUnknownBytes(_ bytes: UnsafeRawBufferPointer) -> String {
    let prefix = bytes.prefix(8).map { byte -> String in
        let hex = String(byte, radix: 16, uppercase: true)
        return hex.count == 1 ? "0" + hex : hex
    }.joined(separator: " ")
    let sample = bytes.prefix(256)
    let printable = sample.allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || ($0 >= 0x20 && $0 < 0x7F) || $0 >= 0x80 }
    let looks = printable && !sample.isEmpty ? " (looks like text)" : ""
    return "not a \(ImageFormat.decodedNames(joinedBy: "or")) file: first bytes \(prefix)\(looks)"
}
