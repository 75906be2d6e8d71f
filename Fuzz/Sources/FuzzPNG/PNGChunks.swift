/// Recomputes the CRC of every whole chunk of a PNG held in memory.
///
/// libpng refuses a critical chunk whose CRC is wrong and skips an ancillary one, and it is not
/// instrumented, so libFuzzer cannot learn the checksum: almost every mutation of IHDR, PLTE, tRNS,
/// pHYs or eXIf would stop at the CRC. The PNG target's mutator calls this after most mutations.
enum PNGChunks {
    static let signatureCount = 8

    /// Rewrites the CRC after each chunk that lies wholly within `bytes[0..<count]`; stops at the
    /// first chunk that does not.
    static func fixCRCs(_ bytes: UnsafeMutablePointer<UInt8>, count: Int) {
        var offset = signatureCount
        while count - offset >= 12 {
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            guard length <= count - offset - 12 else { return }
            // The CRC covers the type and the data, not the length.
            let crc = crc32(UnsafeBufferPointer(start: bytes + offset + 4, count: 4 + length))
            for i in 0..<4 { bytes[offset + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
            offset += 12 + length
        }
    }

    /// CRC-32 as PNG (and zlib) defines it: reflected polynomial 0xEDB88320, initial and final
    /// value all ones.
    static func crc32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
}
