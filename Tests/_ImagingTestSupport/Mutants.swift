import Foundation

/// Deterministic hostile variants of a valid image file: truncations at every segment
/// boundary, bit flips, segment and chunk lengths that lie, absurd and zero dimensions,
/// TIFF directory chains that loop or point past the end, and JPEGs with thousands of
/// scans. For imgquality's tests only.
public enum Mutants {
    /// The variants of `bytes`, each with a short name saying what was done.
    public static func of(_ bytes: [UInt8], seed: UInt64) -> [(name: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        for cut in boundaries(bytes) where cut > 0 && cut < bytes.count {
            out.append(("cut\(cut)", Array(bytes[..<cut])))
        }
        var generator = SeededGenerator(seed: seed)
        for flip in 0..<48 {
            var flipped = bytes
            for _ in 0...(flip % 4) {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                flipped[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
            }
            out.append(("flip\(flip)", flipped))
        }
        if bytes.starts(with: [0xFF, 0xD8]) { out += jpeg(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { out += png(bytes) }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) { out += tiff(bytes) }
        if isWebP(bytes) { out += webp(bytes) }
        if bytes.starts(with: Array("BM".utf8)) { out += bmp(bytes) }
        return out
    }

    /// Where the file's segments, chunks or directories start, and a few fractions of it.
    static func boundaries(_ bytes: [UInt8]) -> [Int] {
        var cuts = Set((1...7).map { bytes.count * $0 / 8 })
        if bytes.starts(with: [0xFF, 0xD8]) {
            for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && bytes[i + 1] != 0 && bytes[i + 1] != 0xFF { cuts.insert(i) }
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            for chunk in pngChunks(bytes) { cuts.insert(chunk.start); cuts.insert(chunk.start + 8) }
        } else if isWebP(bytes) {
            for chunk in webpChunks(bytes) { cuts.insert(chunk.start); cuts.insert(chunk.start + 8) }
        } else if bytes.count >= 8, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            // ISO media (HEIF, AVIF): each top-level box's start and the end of its header.
            var at = 0
            while at + 8 <= bytes.count {
                let size = (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
                guard size >= 8 else { break }
                cuts.insert(at)
                cuts.insert(at + 8)
                at += size
            }
        } else if bytes.starts(with: Array("BM".utf8)), bytes.count >= 18 {
            // BMP: the end of the file header, of the information header, and of the palette.
            let info = (0..<4).reduce(0) { $0 | Int(bytes[14 + $1]) << (8 * $1) }
            let pixels = (0..<4).reduce(0) { $0 | Int(bytes[10 + $1]) << (8 * $1) }
            cuts.formUnion([14, 14 + info, pixels])
        } else if let first = tiffFirstDirectory(bytes) {
            cuts.insert(first)
            cuts.insert(first + 2)
        }
        return cuts.sorted()
    }

    // MARK: JPEG

    /// Segment lengths of 0, 1 and 0xFFFF; SOF dimensions of 0 and 65 535; 2 000 copies of a progressive scan.
    static func jpeg(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            for lie in [0, 1, 0xFFFF] {
                var lied = bytes
                lied[i + 2] = UInt8(lie >> 8)
                lied[i + 3] = UInt8(lie & 0xFF)
                out.append(("len\(i)-\(lie)", lied))
            }
            if (0xC0...0xC2).contains(marker), i + 9 <= bytes.count {
                for (height, width) in [(0, 64), (64, 0), (65535, 65535), (1, 65535)] {
                    var sized = bytes
                    sized[i + 5] = UInt8(height >> 8); sized[i + 6] = UInt8(height & 0xFF)
                    sized[i + 7] = UInt8(width >> 8); sized[i + 8] = UInt8(width & 0xFF)
                    out.append(("size\(width)x\(height)", sized))
                }
            }
            if marker == 0xDA {
                // The first scan's header and data, repeated until there are thousands of scans.
                let end = bytes.lastIndex(of: 0xD9).map { $0 - 1 } ?? bytes.count
                var next = i + 2 + length
                while next + 1 < end, !(bytes[next] == 0xFF && bytes[next + 1] != 0 && !(0xD0...0xD7).contains(bytes[next + 1])) { next += 1 }
                let scan = Array(bytes[i..<next])
                let progressive = (0..<(bytes.count - 1)).contains { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC2 || bytes[$0 + 1] == 0xCA) }
                if progressive {
                    var deep = Array(bytes[..<next])
                    for _ in 0..<2000 { deep += scan }
                    out.append(("scans2000", deep + [0xFF, 0xD9]))
                }
                break
            }
            i += 2 + length
        }
        return out
    }

    // MARK: PNG

    static func pngChunks(_ bytes: [UInt8]) -> [(start: Int, length: Int)] {
        var chunks: [(Int, Int)] = []
        var i = 8
        while i + 8 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            chunks.append((i, length))
            guard length < bytes.count else { break }
            i += 12 + length
        }
        return chunks
    }

    /// Chunk lengths that run past the file or claim 2 GB; IHDR dimensions of 0 and 2³¹ − 1.
    static func png(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for chunk in pngChunks(bytes) {
            for lie in [chunk.length + 1000, 0x7FFF_FFFF] {
                var lied = bytes
                for k in 0..<4 { lied[chunk.start + k] = UInt8(truncatingIfNeeded: lie >> (24 - 8 * k)) }
                out.append(("len\(chunk.start)-\(lie)", lied))
            }
        }
        for (width, height) in [(0, 23), (37, 0), (0x7FFF_FFFF, 1), (1, 0x7FFF_FFFF), (65536, 65536)] where bytes.count > 24 {
            var sized = bytes
            for k in 0..<4 {
                sized[16 + k] = UInt8(truncatingIfNeeded: width >> (24 - 8 * k))
                sized[20 + k] = UInt8(truncatingIfNeeded: height >> (24 - 8 * k))
            }
            out.append(("size\(width)x\(height)", sized))
        }
        return out
    }

    // MARK: BMP

    /// Little-endian 32-bit lies in a BMP's headers: the pixel data's offset, the information
    /// header's size, the width and height (zero, negative, the largest), the bits per pixel
    /// and the compression; and a pixel offset of the file's end.
    static func bmp(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        guard bytes.count >= 34 else { return [] }
        func writing(_ value: Int64, at position: Int, width: Int = 4) -> [UInt8] {
            var data = bytes
            for k in 0..<width { data[position + k] = UInt8(truncatingIfNeeded: value >> (8 * Int64(k))) }
            return data
        }
        let info = (0..<4).reduce(0) { $0 | Int(bytes[14 + $1]) << (8 * $1) }
        var out: [(String, [UInt8])] = []
        for offset: Int64 in [0, 54, Int64(bytes.count), 0xFFFF_FFFF] { out.append(("offset\(offset)", writing(offset, at: 10))) }
        for size: Int64 in [0, 12, 40, 64, 124, 0x7FFF_FFFF] { out.append(("info\(size)", writing(size, at: 14))) }
        if info >= 40 {
            for (width, height): (Int64, Int64) in [(0, 23), (37, 0), (-37, 23), (0x7FFF_FFFF, 1), (1, -0x8000_0000), (65536, 65536)] {
                var sized = writing(width, at: 18)
                for k in 0..<4 { sized[22 + k] = UInt8(truncatingIfNeeded: height >> (8 * Int64(k))) }
                out.append(("size\(width)x\(height)", sized))
            }
            for bits: Int64 in [0, 3, 64, 0xFFFF] { out.append(("bits\(bits)", writing(bits, at: 28, width: 2))) }
            for compression: Int64 in [1, 2, 3, 5, 6, 0xFFFF_FFFF] { out.append(("compression\(compression)", writing(compression, at: 30))) }
        }
        return out
    }

    // MARK: WebP

    static func isWebP(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && Array(bytes[8..<12]) == Array("WEBP".utf8)
    }

    /// The RIFF chunks after the file header: where each starts, and its payload's length.
    static func webpChunks(_ bytes: [UInt8]) -> [(start: Int, length: Int)] {
        var chunks: [(start: Int, length: Int)] = []
        var at = 12
        while at + 8 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 | Int(bytes[at + 4 + $1]) << (8 * $1) }
            chunks.append((at, length))
            at += 8 + length + (length & 1)
        }
        return chunks
    }

    /// Chunk lengths (and the RIFF length) that lie; canvas (VP8X) dimensions of 1 and of the
    /// format's largest (2²⁴, far above the pixel limit); lossless (VP8L) ones of 1 × 1 and
    /// of the widest row, 16 384 × 2.
    static func webp(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for start in [4] + webpChunks(bytes).map({ $0.start + 4 }) {
            for lie in [0, 1000, 0xFFFF_FFFF] {
                var lied = bytes
                for k in 0..<4 { lied[start + k] = UInt8(truncatingIfNeeded: lie >> (8 * k)) }
                out.append(("len\(start)-\(lie)", lied))
            }
        }
        for chunk in webpChunks(bytes) {
            let fourcc = String(decoding: bytes[chunk.start..<(chunk.start + 4)], as: UTF8.self)
            let payload = chunk.start + 8
            if fourcc == "VP8X", payload + 10 <= bytes.count {
                // Canvas width − 1 and height − 1, 24 bits each, little-endian.
                for (width, height, name) in [(1, 1, "canvas-small"), (16_777_216, 16_777_216, "canvas-huge")] {
                    var sized = bytes
                    for k in 0..<3 {
                        sized[payload + 4 + k] = UInt8(truncatingIfNeeded: (width - 1) >> (8 * k))
                        sized[payload + 7 + k] = UInt8(truncatingIfNeeded: (height - 1) >> (8 * k))
                    }
                    out.append((name, sized))
                }
            }
            if fourcc == "VP8L", payload + 5 <= bytes.count {
                // After the signature byte: width − 1 and height − 1, 14 bits each.
                for (width, height) in [(1, 1), (16_384, 2)] {
                    var sized = bytes
                    var bits = (0..<4).reduce(0) { $0 | Int(bytes[payload + 1 + $1]) << (8 * $1) }
                    bits = (bits & ~0x0FFF_FFFF) | (width - 1) | (height - 1) << 14
                    for k in 0..<4 { sized[payload + 1 + k] = UInt8(truncatingIfNeeded: bits >> (8 * k)) }
                    out.append(("size\(width)x\(height)", sized))
                }
            }
        }
        return out
    }

    // MARK: TIFF (little-endian, as the fixtures are written)

    static func tiffFirstDirectory(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8, bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) else { return nil }
        let offset = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        return offset + 2 <= bytes.count ? offset : nil
    }

    /// A directory chain that loops to itself or points past the end; width and height of 0
    /// and 2³² − 1; strip offsets past the end.
    static func tiff(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        guard let first = tiffFirstDirectory(bytes) else { return [] }
        var out: [(String, [UInt8])] = []
        let entries = Int(bytes[first]) | Int(bytes[first + 1]) << 8
        let next = first + 2 + 12 * entries
        func writing(_ value: Int, at position: Int, into data: inout [UInt8]) {
            for k in 0..<4 where position + k < data.count { data[position + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        }
        if next + 4 <= bytes.count {
            for (name, target) in [("loop", first), ("past", bytes.count + 4096)] {
                var chained = bytes
                writing(target, at: next, into: &chained)
                out.append(("ifd-\(name)", chained))
            }
        }
        for entry in 0..<entries {
            let position = first + 2 + 12 * entry
            guard position + 12 <= bytes.count else { break }
            let tag = Int(bytes[position]) | Int(bytes[position + 1]) << 8
            let values: [Int] = switch tag {
            case 256, 257: [0, 0xFFFF_FFFF]  // ImageWidth, ImageLength
            case 273, 324: [bytes.count + 100_000]  // StripOffsets, TileOffsets
            case 258: [0, 64]  // BitsPerSample
            default: []
            }
            for value in values {
                var lied = bytes
                writing(value, at: position + 8, into: &lied)
                out.append(("tag\(tag)-\(value)", lied))
            }
        }
        return out
    }
}
