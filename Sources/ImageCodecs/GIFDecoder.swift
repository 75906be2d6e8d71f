internal import CGIF
internal import _CImagingShims
import ImagingCore

/// GIF through giflib (MIT): the first frame, painted on the logical screen.
///
/// The screen starts transparent and the first image is drawn at its place on it through
/// its colour table (its own, else the global one), its transparent index (from the graphics
/// control extension before it) left transparent; transparency is then composited over white
/// like any alpha. Interlaced rows are put back in order. Later frames are not read. The
/// screen's and the frame's sizes are checked against the limits before any buffer exists,
/// and the time limit between rows.
enum GIFDecoder {
    /// The bytes giflib reads from, and how far it has read.
    private struct Source {
        var base: UnsafePointer<UInt8>
        var count: Int
        var offset = 0
    }

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let source = UnsafeMutablePointer<Source>.allocate(capacity: 1)
        source.initialize(to: Source(base: data.baseAddress!.assumingMemoryBound(to: UInt8.self), count: data.count))
        defer { source.deallocate() }
        var status: Int32 = 0
        guard let gif = DGifOpen(source, { gif, buffer, wanted in
            let source = gif!.pointee.UserData.assumingMemoryBound(to: Source.self)
            let count = min(Int(wanted), source.pointee.count - source.pointee.offset)
            buffer!.update(from: source.pointee.base + source.pointee.offset, count: count)
            source.pointee.offset += count
            return Int32(count)
        }, &status) else {
            throw error(status, "reading the header")
        }
        defer { DGifCloseFile(gif, &status) }

        let screen = ImageSize(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight))
        try options.limits.check(screen, format: "GIF")
        var transparent: Int32 = -1
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { throw error(gif.pointee.Error, "reading a record") }
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) == GIF_OK else { throw error(gif.pointee.Error, "reading the first image's descriptor") }
                try drawFirstImage(gif, screen: screen, transparent: transparent, options: options, deadline: deadline, workspace: &workspace)
                return StoredImage(
                    depth: .eight, model: .rgba(premultiplied: false), storedSize: screen, orientation: .up, scaleDenominator: 1,
                    sourceBitDepth: 8, pageCount: 1, warnings: [], resolution: nil)
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw error(gif.pointee.Error, "reading an extension") }
                if code == GRAPHICS_EXT_FUNC_CODE, let block {
                    var control = GraphicsControlBlock()
                    if DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK { transparent = control.TransparentColor }
                }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw error(gif.pointee.Error, "reading an extension") }
                }
            case TERMINATE_RECORD_TYPE:
                throw ImagingError(.corrupt, "GIF: the file ends without an image")
            default:
                throw ImagingError(.corrupt, "GIF: an unknown record")
            }
        }
    }

    /// The first image, through its colour table, onto a transparent screen in the workspace.
    private static func drawFirstImage(
        _ gif: UnsafeMutablePointer<GifFileType>, screen: ImageSize, transparent: Int32, options: DecodeOptions, deadline: UInt64,
        workspace: inout DecodeWorkspace
    ) throws(ImagingError) {
        let descriptor = gif.pointee.Image
        let frame = ImageSize(width: Int(descriptor.Width), height: Int(descriptor.Height))
        try options.limits.check(frame, format: "GIF frame")
        guard let map = descriptor.ColorMap ?? gif.pointee.SColorMap, let colours = map.pointee.Colors else {
            throw ImagingError(.corrupt, "GIF: the first image has no colour table")
        }
        let colourCount = Int(map.pointee.ColorCount)
        var line = [GifPixelType](repeating: 0, count: frame.width)
        // Rows in the order they are stored: interlaced images in four passes.
        let order: [Int] = descriptor.Interlace
            ? [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Swift.stride(from: start, to: frame.height, by: step) }
            : Array(0..<frame.height)
        var failure: ImagingError?
        _ = workspace.fillStored(depth: .eight, size: screen, channels: 4) { pixels, stride in
            guard let pixels else { return 1 }
            for y in 0..<screen.height { (pixels + y * stride).update(repeating: 0, count: screen.width * 4) }
            let left = Int(descriptor.Left), top = Int(descriptor.Top)
            for row in order {
                if deadline != 0 && iq_monotonic_ns() > deadline {
                    failure = ImagingError(.timeLimit, "GIF: the time limit passed while decoding")
                    return 1
                }
                guard DGifGetLine(gif, &line, Int32(frame.width)) == GIF_OK else {
                    failure = error(gif.pointee.Error, "decoding row \(row + 1) of \(frame.height)")
                    return 1
                }
                let y = top + row
                guard y >= 0, y < screen.height else { continue }
                let target = pixels + y * stride
                for x in 0..<frame.width where left + x < screen.width {
                    let index = Int(line[x])
                    guard Int32(index) != transparent, index < colourCount else { continue }
                    let colour = colours[index], out = target + (left + x) * 4
                    out[0] = colour.Red
                    out[1] = colour.Green
                    out[2] = colour.Blue
                    out[3] = 255
                }
            }
            return 0
        }
        if let failure { throw failure }
    }

    /// A giflib error code as an error of imgquality's kinds.
    private static func error(_ code: Int32, _ doing: String) -> ImagingError {
        let text = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        let message = "GIF: \(text) (\(doing))"
        switch code {
        case D_GIF_ERR_READ_FAILED, D_GIF_ERR_EOF_TOO_SOON: return ImagingError(.truncated, message)
        case D_GIF_ERR_NOT_ENOUGH_MEM: return ImagingError(.outOfMemory, message)
        default: return ImagingError(.corrupt, message)
        }
    }
}
