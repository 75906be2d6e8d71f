import CZBar
import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and decodes barcodes and QR codes in 8-bit luma with ZBar (LGPL-2.1, Debian's
/// libzbar): QR, EAN-13/8, UPC-A/E, Code 128, Code 39, Code 93, Interleaved 2 of 5 and
/// Codabar. ZBar finds PDF417 symbols but does not decode them, so none is reported; its GS1
/// DataBar decoder is left off (it writes assertion messages to standard error on ordinary
/// pages).
///
/// Each call makes its own scanner, so one reader serves many tasks at once.
public struct BarcodeReader: Sendable {
    /// Scan every `density`-th row and column (ZBar's X and Y density). 1 reads codes down to
    /// the smallest; 2, the default, halves the time and misses only codes a few rows tall.
    public var density: Int

    public init(density: Int = 2) {
        self.density = max(1, density)
    }

    /// Why no barcode can be read in this process (ZBar, opened on first use, could not be
    /// loaded: "cannot load libzbar: …"), or nil when it is there. `barcodes(in:)` then finds none.
    public static var unavailableReason: String? {
        iq_zbar_load() == 0 ? nil : String(cString: iq_zbar_load_error())
    }

    /// The codes in `image` (the first channel is read as luma): ZBar's reading of the whole
    /// image, in its order, then what the second look at bar-like regions adds.
    ///
    /// The second look: in a photo a narrow bar is a shallow dip beside deep wide ones, and
    /// ZBar, whose edge threshold follows the last strong edge, loses it. Regions where
    /// gradients run one way (`barRegions`) that hold no code read in the first pass are
    /// read again twice, with their contrast raised against the paper (`raisedAgainstPaper`,
    /// every row and column) and around the local mean (`raisedAroundMean`): on the simulated
    /// phone photos of `Datasets/structure` (train split) that reads 47 of 60 codes instead
    /// of 31, with no payload the first pass did not also misread (docs/documents.md).
    ///
    /// Then every EAN or UPC code is read again from its own crop, its contrast stretched
    /// (`readAgainStretched`), and a different payload read there twice alike replaces the first.
    public func barcodes(in image: PixelBuffer<UInt8>) -> [Barcode] {
        guard image.width > 0, image.height > 0 else { return [] }
        let width = image.width, height = image.height
        // ZBar's Y800 format: one byte per pixel, rows packed.
        let gray = image.packedLuma
        var found = gray.withUnsafeBufferPointer { Self.scan($0, width: width, height: height, density: density) }
        let first = found
        gray.withUnsafeBufferPointer { pixels in
            for region in Self.barRegions(pixels, width: width, height: height) {
                let centreX = region.x + region.width / 2, centreY = region.y + region.height / 2
                let margin = Self.readCodeMargin
                guard !first.contains(where: { code in
                    centreX >= code.box.x - margin && centreX < code.box.x + code.box.width + margin
                        && centreY >= code.box.y - margin && centreY < code.box.y + code.box.height + margin
                }) else { continue }
                let crop = gray.cropped(to: region).samples
                let passes = [
                    (Self.raisedAgainstPaper(crop, width: region.width, height: region.height), 1),
                    (Self.raisedAroundMean(crop, width: region.width, height: region.height), 2),
                ]
                for (raised, density) in passes {
                    let codes = raised.withUnsafeBufferPointer { Self.scan($0, width: region.width, height: region.height, density: density) }
                    for var code in codes where !found.contains(where: { $0.symbology == code.symbology && $0.payload == code.payload }) {
                        code.box = PixelRect(x: code.box.x + region.x, y: code.box.y + region.y, width: code.box.width, height: code.box.height)
                        found.append(code)
                    }
                }
            }
        }
        return Self.readAgainStretched(found, in: gray)
    }

    /// The symbologies whose digits 1 and 7, and 2 and 8, differ only in the widths of their
    /// bars (their edges lie alike): blur in a photo of low contrast shifts the widths ZBar
    /// measures and turns one digit of a pair into the other, in twos whose changes the check
    /// digit does not see.
    static let retailSymbologies: Set<Barcode.Symbology> = [.ean13, .ean8, .upca, .upce]

    /// Each EAN or UPC code read again from a crop around it (its box's width to each side, its
    /// height above and below, at least 20 pixels: ZBar's points may cover part of the code),
    /// every row and column scanned, twice: its levels stretched so its 5th percentile is black
    /// and its 95th white, and those levels darkened (to the power 1.6). When both readings give
    /// a code of the same symbology over the first one's points with the same payload, that
    /// payload is the code's; codes then repeated (the same symbology and payload) are kept
    /// once, the first. On the simulated phone photos of `Datasets/structure` and three more
    /// generated structure sets (docs/documents.md) this left 4 misread codes of 12, read 3
    /// more right, and changed no code that was read right.
    static func readAgainStretched(_ codes: [Barcode], in gray: PixelBuffer<UInt8>) -> [Barcode] {
        var kept: [Barcode] = []
        for var code in codes {
            if retailSymbologies.contains(code.symbology) {
                let marginX = max(20, code.box.width), marginY = max(20, code.box.height)
                let region = PixelRect(
                    x: code.box.x - marginX, y: code.box.y - marginY,
                    width: code.box.width + 2 * marginX, height: code.box.height + 2 * marginY
                ).clipped(to: gray.size)
                if region.width > 0, region.height > 0 {
                    let stretched = Self.stretched(gray.cropped(to: region).samples)
                    let readings = [stretched, stretched.map { Self.darkened[Int($0)] }].map {
                        Self.payload(of: code, in: $0, region: region)
                    }
                    // Both read it, alike, and otherwise than the first reading.
                    if let payload = readings[0], readings[1] == payload {
                        code.payload = payload
                    }
                }
            }
            if !kept.contains(where: { $0.symbology == code.symbology && $0.payload == code.payload }) { kept.append(code) }
        }
        return kept
    }

    /// Levels to the power 1.6, as a table.
    static let darkened: [UInt8] = (0..<256).map { UInt8((pow(Double($0) / 255, 1.6) * 255).rounded()) }

    /// Levels stretched linearly so the 5th percentile becomes 0 and the 95th 255, clipped (a
    /// spread under one level is taken as one).
    static func stretched(_ pixels: [UInt8]) -> [UInt8] {
        guard !pixels.isEmpty else { return pixels }
        let histogram = Histogram(PixelBuffer(width: pixels.count, height: 1, channels: 1, samples: pixels))
        // The smallest level with more than `fraction` of the pixels at or below it.
        func level(_ fraction: Double) -> Int {
            let count = Double(pixels.count) * fraction
            return (0..<256).first { Double(histogram.count(atOrBelow: $0)) > count } ?? 255
        }
        let low = level(0.05), spread = max(1, level(0.95) - low)
        return pixels.map { UInt8(clamping: (Int($0) - low) * 255 / spread) }
    }

    /// The payload ZBar reads in `pixels` (the crop `region` of the page, every row and column
    /// scanned) for `code`: of the codes of its symbology over its points, the one overlapping
    /// them most; nil when there is none.
    static func payload(of code: Barcode, in pixels: [UInt8], region: PixelRect) -> String? {
        let points = PixelRect(x: code.box.x, y: code.box.y, width: code.box.width + 1, height: code.box.height + 1)
        let read = pixels.withUnsafeBufferPointer { Self.scan($0, width: region.width, height: region.height, density: 1) }
        return read.filter { $0.symbology == code.symbology }
            .map { other in (other.payload, PixelRect(x: region.x + other.box.x, y: region.y + other.box.y, width: other.box.width + 1, height: other.box.height + 1).overlap(points)) }
            .filter { $0.1 > 0 }
            .max { $0.1 < $1.1 }?.0
    }

    /// ZBar's reading of packed 8-bit luma, scanning every `density`-th row and column.
    static func scan(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, density: Int) -> [Barcode] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(density))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density))
        // Its PDF417 decoder is unfinished: it reports nothing useful. Its GS1 DataBar decoder
        // prints assertion messages on standard error on ordinary pages. EAN-13 codes stay
        // EAN-13 instead of becoming ISBNs when they start with 978 (Vision reports them as
        // EAN-13 too).
        for type in [ZBAR_PDF417, ZBAR_DATABAR, ZBAR_DATABAR_EXP, ZBAR_ISBN10, ZBAR_ISBN13] {
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 0)
        }
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        // "Y800" as ZBar's fourcc: 'Y' | '8' << 8 | '0' << 16 | '0' << 24.
        zbar_image_set_format(zimage, 0x3030_3859)
        zbar_image_set_size(zimage, UInt32(width), UInt32(height))
        // ZBar reads the data in place and does not free it (no cleanup handler).
        zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
        guard zbar_scan_image(scanner, zimage) > 0 else { return [] }
        var found: [Barcode] = []
        var symbol = zbar_image_first_symbol(zimage)
        while let current = symbol {
            defer { symbol = zbar_symbol_next(current) }
            guard let symbology = Self.symbology(zbar_symbol_get_type(current)), let data = zbar_symbol_get_data(current) else { continue }
            let length = Int(zbar_symbol_get_data_length(current))
            let payload = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            var box: PixelRect?
            for point in 0..<zbar_symbol_get_loc_size(current) {
                let x = Int(zbar_symbol_get_loc_x(current, point)), y = Int(zbar_symbol_get_loc_y(current, point))
                let dot = PixelRect(x: x, y: y, width: 1, height: 1)
                box = box.map { $0.union(dot) } ?? dot
            }
            found.append(Barcode(symbology: symbology, payload: payload, box: box ?? PixelRect(x: 0, y: 0, width: 0, height: 0)))
        }
        return found
    }

    // MARK: - The second look

    /// Blocks of this many pixels a side are judged as bars or not.
    static let barBlock = 16
    /// A block of bars: its mean absolute difference between neighbours across the bars is
    /// at least this many levels, and at least `barAnisotropy` times that along them.
    static let barEnergy = 6
    static let barAnisotropy = 4
    /// A region of bars holds at least this many blocks, spans at least `barRegionAcross`
    /// blocks across its bars (a ruling line, one edge pair, spans one or two), and is read
    /// with `barRegionMargin` blocks around it (the quiet zone and the code's ends).
    static let barRegionBlocks = 3
    static let barRegionAcross = 3
    static let barRegionMargin = 2
    /// A region whose centre lies within this many pixels of a code the first scan read is
    /// that code (ZBar's points lie on the bars it scanned, inside the printed symbol).
    static let readCodeMargin = 8

    /// Where bars may be: 8-connected groups of blocks whose gradients run one way (across
    /// vertical bars, or across horizontal ones), grown by a margin, in pixels. A table's
    /// rules are no such region; a page of text has few.
    static func barRegions(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> [PixelRect] {
        let block = barBlock
        let columns = (width - 1) / block, rows = (height - 1) / block
        guard columns > 0, rows > 0 else { return [] }
        // Sums of |differences| across x and across y per block.
        var across = [Int](repeating: 0, count: columns * rows), along = across
        for y in 0..<(rows * block) {
            let row = y * width, blockRow = (y / block) * columns
            for column in 0..<columns {
                var dx = 0, dy = 0
                for x in (column * block)..<((column + 1) * block) {
                    let here = Int(pixels[row + x])
                    dx += abs(Int(pixels[row + x + 1]) - here)
                    dy += abs(Int(pixels[row + width + x]) - here)
                }
                across[blockRow + column] += dx
                along[blockRow + column] += dy
            }
        }
        let energy = barEnergy * block * block
        var regions: [PixelRect] = []
        for vertical in [true, false] {
            // Blocks of bars of one orientation, then their 8-connected groups.
            var marked = [Bool](repeating: false, count: columns * rows)
            for index in marked.indices {
                let (strong, weak) = vertical ? (across[index], along[index]) : (along[index], across[index])
                marked[index] = strong >= energy && strong >= barAnisotropy * weak
            }
            for group in ConnectedComponents.label(marked, width: columns, height: rows).1 {
                guard group.area >= barRegionBlocks, (vertical ? group.width : group.height) >= barRegionAcross else { continue }
                let x0 = max(0, group.minX - barRegionMargin), y0 = max(0, group.minY - barRegionMargin)
                let x1 = min(columns, group.maxX + 1 + barRegionMargin), y1 = min(rows, group.maxY + 1 + barRegionMargin)
                regions.append(PixelRect(x: x0 * block, y: y0 * block, width: (x1 - x0) * block, height: (y1 - y0) * block))
            }
        }
        return regions
    }

    /// Contrast raised threefold below the paper: 255 − 3 · (paper − pixel), clipped, where
    /// the paper's level is the brightest of the 8 × 8 block means within two blocks,
    /// smoothed over 5 × 5 blocks and interpolated between block centres.
    static func raisedAgainstPaper(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        let block = 8, reach = 2
        let columns = (width + block - 1) / block, rows = (height + block - 1) / block
        var means = [Double](repeating: 0, count: columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                var sum = 0, count = 0
                for y in (by * block)..<min(height, (by + 1) * block) {
                    for x in (bx * block)..<min(width, (bx + 1) * block) {
                        sum += Int(pixels[y * width + x])
                        count += 1
                    }
                }
                means[by * columns + bx] = Double(sum) / Double(count)
            }
        }
        // The brightest block mean within `reach` blocks, then the mean of those within `reach`.
        func window(_ values: [Double], brightest: Bool) -> [Double] {
            var out = values
            for by in 0..<rows {
                for bx in 0..<columns {
                    var best = -Double.infinity, sum = 0.0, count = 0.0
                    for ny in max(0, by - reach)...min(rows - 1, by + reach) {
                        for nx in max(0, bx - reach)...min(columns - 1, bx + reach) {
                            let value = values[ny * columns + nx]
                            best = max(best, value)
                            sum += value
                            count += 1
                        }
                    }
                    out[by * columns + bx] = brightest ? best : sum / count
                }
            }
            return out
        }
        let paper = window(window(means, brightest: true), brightest: false)
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            // Block-centre coordinates, clamped at the borders.
            let fy = min(max((Double(y) + 0.5) / Double(block) - 0.5, 0), Double(rows - 1))
            let y0 = Int(fy), y1 = min(rows - 1, y0 + 1), wy = fy - Double(y0)
            for x in 0..<width {
                let fx = min(max((Double(x) + 0.5) / Double(block) - 0.5, 0), Double(columns - 1))
                let x0 = Int(fx), x1 = min(columns - 1, x0 + 1), wx = fx - Double(x0)
                let top = paper[y0 * columns + x0] * (1 - wx) + paper[y0 * columns + x1] * wx
                let bottom = paper[y1 * columns + x0] * (1 - wx) + paper[y1 * columns + x1] * wx
                let level = top * (1 - wy) + bottom * wy
                let value = 255 - 3 * (level - Double(pixels[y * width + x]))
                out[y * width + x] = UInt8(min(max(value.rounded(), 0), 255))
            }
        }
        return out
    }

    /// Contrast raised eightfold around the local mean: 128 + 8 · (pixel − mean + 5),
    /// clipped, the mean over a square window a sixteenth of the region's longer side.
    static func raisedAroundMean(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        let radius = max(1, max(width, height) / 16 / 2)
        let integral = SummedAreaTable(pixels, width: width, height: height)
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let y0 = max(0, y - radius), y1 = min(height, y + radius + 1)
            for x in 0..<width {
                let x0 = max(0, x - radius), x1 = min(width, x + radius + 1)
                let mean = Double(integral.sum(x0: x0, y0: y0, x1: x1, y1: y1)) / Double((y1 - y0) * (x1 - x0))
                let value = 128 + 8 * (Double(pixels[y * width + x]) - mean + 5)
                out[y * width + x] = UInt8(min(max(value.rounded(), 0), 255))
            }
        }
        return out
    }

    static func symbology(_ type: zbar_symbol_type_t) -> Barcode.Symbology? {
        switch type {
        case ZBAR_QRCODE: .qr
        case ZBAR_EAN13: .ean13
        case ZBAR_EAN8: .ean8
        case ZBAR_UPCA: .upca
        case ZBAR_UPCE: .upce
        case ZBAR_CODE128: .code128
        case ZBAR_CODE39: .code39
        case ZBAR_CODE93: .code93
        case ZBAR_I25: .i25
        case ZBAR_CODABAR: .codabar
        default: nil
        }
    }
}
