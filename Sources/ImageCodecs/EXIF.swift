import ImagingCore

/// The first image directory (IFD0) of a classic TIFF structure (byte order, magic 42, the
/// directory's offset): an EXIF block, or a TIFF file. Every read is bounds-checked, so a
/// malformed or truncated structure reads as absent entries, never past the bytes.
struct TIFFDirectory {
    private let bytes: UnsafeRawBufferPointer
    private let littleEndian: Bool
    private var offset = 0
    private var count = 0

    /// nil when `bytes` do not start with a classic TIFF header whose IFD0 entry count is readable.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.bytes = bytes
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        offset = ifd
        count = entries
    }

    /// The directory at `offset` of the same structure (a sub-directory such as the EXIF
    /// IFD); nil when its entry count is not within the bytes.
    func directory(at offset: Int) -> TIFFDirectory? {
        var directory = self
        guard let entries = u16(offset) else { return nil }
        directory.offset = offset
        directory.count = entries
        return directory
    }

    private func u16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        let a = Int(bytes[at]), b = Int(bytes[at + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    private func u32(_ at: Int) -> Int? {
        guard let low = u16(littleEndian ? at : at + 2), let high = u16(littleEndian ? at + 2 : at) else { return nil }
        return high << 16 | low
    }

    /// The entry of `tag`: its field type and where its first value lies (inline, as for the
    /// one-value SHORT and LONG fields read here). nil when absent, when it holds no value,
    /// or when an entry before it runs past the bytes.
    private func entry(_ tag: Int) -> (type: Int, valueAt: Int)? {
        for index in 0..<count {
            let at = offset + 2 + index * 12
            guard let found = u16(at) else { return nil }
            guard found == tag else { continue }
            guard let type = u16(at + 2), let values = u32(at + 4), values >= 1 else { return nil }
            return (type, at + 8)
        }
        return nil
    }

    /// Whether IFD0 has an entry for `tag` with at least one value.
    func contains(_ tag: Int) -> Bool { entry(tag) != nil }

    /// The first value of `tag` when it is a SHORT (as the standard says for most tags) or a
    /// LONG (as some tools write them); nil when absent, of another type, or malformed.
    func number(_ tag: Int) -> Int? {
        guard let (type, at) = entry(tag) else { return nil }
        switch type {
        case 3: return u16(at)
        case 4: return u32(at)
        default: return nil
        }
    }
}

/// Reads what imgquality needs from an EXIF block: the Orientation tag, and whether a flash fired.
enum EXIF {
    /// Whether the Flash tag (0x9209) of the EXIF IFD says the flash fired (bit 0); false
    /// when there is no EXIF IFD or no such tag, or either is malformed.
    static func flashFired(_ bytes: UnsafeRawBufferPointer?) -> Bool {
        guard let bytes, let ifd0 = TIFFDirectory(bytes), let at = ifd0.number(0x8769), let exif = ifd0.directory(at: at),
            let flash = exif.number(0x9209)
        else { return false }
        return flash & 1 == 1
    }

    /// The Orientation tag (274) of IFD0, or `nil` when absent or malformed.
    /// Out-of-range values (0, 9, …) are returned as their raw number for the caller to report.
    static func orientationValue(_ bytes: UnsafeRawBufferPointer) -> Int? {
        TIFFDirectory(bytes)?.number(0x0112)
    }

    /// The orientation to apply, and a warning when the tag holds a value outside 1…8.
    static func orientation(_ bytes: UnsafeRawBufferPointer?) -> (Orientation, DecodeWarning?) {
        guard let bytes, let value = orientationValue(bytes) else { return (.up, nil) }
        guard let orientation = Orientation(rawValue: value) else {
            return (.up, DecodeWarning(.other, "EXIF Orientation value \(value) is outside 1…8; treated as 1"))
        }
        return (orientation, nil)
    }
}
