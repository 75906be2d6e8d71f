import CZBar
import ImagingCore

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

    /// The codes in `image` (the first channel is read as luma), in ZBar's order.
    public func barcodes(in image: PixelBuffer<UInt8>) -> [Barcode] {
        guard image.width > 0, image.height > 0 else { return [] }
        // ZBar's Y800 format: one byte per pixel, rows packed.
        let gray = image.packedLuma
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
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        var found: [Barcode] = []
        gray.withUnsafeBufferPointer { pixels in
            // ZBar reads the data in place and does not free it (no cleanup handler).
            zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return }
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
        }
        return found
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
