import ImagingCore

/// Reads what imgquality needs from an EXIF block (a TIFF structure: byte order,
/// magic 42, IFD0): the Orientation tag.
enum EXIF {
    /// The Orientation tag (274) of IFD0, or `nil` when absent or malformed.
    /// Out-of-range values (0, 9, …) are returned as their raw number for the caller to report.
    static func orientationValue(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2), let high = u16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            guard let type = u16(entry + 2), let values = u32(entry + 4), values >= 1 else { return nil }
            switch type {
            case 3: return u16(entry + 8)  // SHORT, as the standard says
            case 4: return u32(entry + 8)  // LONG, written by some tools
            default: return nil
            }
        }
        return nil
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
