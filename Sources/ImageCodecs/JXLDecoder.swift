internal import CJXL
internal import _CImagingShims
import ImagingCore

/// JPEG XL through libjxl (BSD-3-Clause), bare codestreams and the ISO media container.
///
/// The file is given to libjxl 64 KiB at a time and the time limit is checked between steps
/// and after the image (libjxl decodes a frame in one call once it has the bytes). The size is
/// checked against the limits from the basic information before any pixel buffer exists. The
/// pixels come as stored (libjxl keeps the orientation) and the codestream's orientation is
/// applied as a JPEG's EXIF one is; grey stays grey, alpha is kept, samples of more than 8
/// bits come as 16 bits. An animation gives its first frame as shown (frames coalesced). No
/// reduced-size decode: libjxl's previews are separate images, not scaled copies.
enum JXLDecoder {
    /// How much of the file each step gives libjxl.
    static let step = 1 << 16

    static func decode(
        _ data: UnsafeRawBufferPointer, options: DecodeOptions, deadline: UInt64, workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        guard iq_jxl_load() == 0 else {
            throw .libraryMissing("JPEG XL", loaderSaid: iq_jxl_load_error(), package: "libjxl0.7")
        }
        guard let decoder = JxlDecoderCreate(nil) else { throw ImagingError(.outOfMemory, "JPEG XL: the decoder could not be created") }
        defer { JxlDecoderDestroy(decoder) }
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
        else { throw ImagingError(.corrupt, "JPEG XL: the decoder refused its settings") }

        var feeder = Feeder(decoder: decoder, data: data, deadline: deadline)
        try feeder.start()

        // The basic information: the size, checked before any buffer; the sample format.
        guard try feeder.next() == JXL_DEC_BASIC_INFO else { throw ImagingError(.corrupt, "JPEG XL: no basic information") }
        var info = JxlBasicInfo()
        guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
            throw ImagingError(.corrupt, "JPEG XL: the basic information could not be read")
        }
        let size = ImageSize(width: Int(info.xsize), height: Int(info.ysize))
        guard size.width > 0, size.height > 0 else {
            throw ImagingError(.invalidDimensions, "JPEG XL: the header declares \(size.width)×\(size.height) pixels")
        }
        try options.limits.check(size, format: "JPEG XL")
        let sixteen = info.bits_per_sample > 8
        let channels = Int(info.num_color_channels) + (info.alpha_bits > 0 ? 1 : 0)
        var format = JxlPixelFormat(
            num_channels: UInt32(channels), data_type: sixteen ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)

        guard try feeder.next() == JXL_DEC_NEED_IMAGE_OUT_BUFFER else { throw ImagingError(.corrupt, "JPEG XL: no frame") }
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS else {
            throw ImagingError(.corrupt, "JPEG XL: no output size for \(size.width)×\(size.height) pixels")
        }
        // The first frame is decoded inside the buffer's scope: libjxl writes into it during
        // the calls after it is set.
        var failure: ImagingError?
        _ = workspace.fillStored(depth: sixteen ? .sixteen : .eight, size: size, channels: channels) { pixels, stride in
            guard let pixels, stride * size.height == needed else {
                failure = ImagingError(.corrupt, "JPEG XL: libjxl wants \(needed) bytes for \(size.width)×\(size.height)×\(channels)")
                return 1
            }
            guard JxlDecoderSetImageOutBuffer(decoder, &format, pixels, needed) == JXL_DEC_SUCCESS else {
                failure = ImagingError(.corrupt, "JPEG XL: the decoder refused the pixel buffer")
                return 1
            }
            do throws(ImagingError) {
                guard try feeder.next() == JXL_DEC_FULL_IMAGE else { throw ImagingError(.corrupt, "JPEG XL: the frame did not complete") }
                try feeder.checkTime()
            } catch {
                failure = error
                return 1
            }
            return 0
        }
        if let failure { throw failure }

        let model: ColorModel
        switch channels {
        case 1: model = .gray
        case 2: model = .grayAlpha(premultiplied: info.alpha_premultiplied != 0)
        case 3: model = .rgb
        default: model = .rgba(premultiplied: info.alpha_premultiplied != 0)
        }
        return StoredImage(
            depth: sixteen ? .sixteen : .eight, model: model, storedSize: size,
            orientation: Orientation(rawValue: Int(info.orientation.rawValue)) ?? .up,
            scaleDenominator: 1, sourceBitDepth: Int(info.bits_per_sample), pageCount: 1, warnings: [], resolution: nil)
    }

    /// Gives libjxl the file `step` bytes at a time and returns its next event that is not a
    /// request for more.
    private struct Feeder {
        let decoder: OpaquePointer
        let data: UnsafeRawBufferPointer
        let deadline: UInt64
        /// How far into the file libjxl has been given bytes.
        var given = 0
        var sawImage = false

        init(decoder: OpaquePointer, data: UnsafeRawBufferPointer, deadline: UInt64) {
            self.decoder = decoder
            self.data = data
            self.deadline = deadline
        }

        mutating func start() throws(ImagingError) { try give(from: 0) }

        func checkTime() throws(ImagingError) {
            if deadline != 0 && iq_monotonic_ns() > deadline {
                throw ImagingError(.timeLimit, "JPEG XL: the time limit passed while decoding")
            }
        }

        private mutating func give(from start: Int) throws(ImagingError) {
            given = min(max(given, start) + step, data.count)
            let base = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard JxlDecoderSetInput(decoder, base + start, given - start) == JXL_DEC_SUCCESS else {
                throw ImagingError(.corrupt, "JPEG XL: the decoder refused its input")
            }
            // The input is never closed: libjxl then asks for more at a cut, which says the
            // file is truncated, where a closed input gives a bare error.
        }

        mutating func next() throws(ImagingError) -> JxlDecoderStatus {
            while true {
                try checkTime()
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_NEED_MORE_INPUT:
                    guard given < data.count else {
                        throw ImagingError(.truncated, "JPEG XL: the file ends inside its \(sawImage ? "image data" : "header")")
                    }
                    let unused = JxlDecoderReleaseInput(decoder)
                    try give(from: given - unused)
                case JXL_DEC_ERROR:
                    throw ImagingError(.corrupt, "JPEG XL: libjxl could not decode the \(sawImage ? "image" : "header")")
                case JXL_DEC_SUCCESS:
                    throw ImagingError(.corrupt, "JPEG XL: the file ends without an image")
                default:
                    if status == JXL_DEC_NEED_IMAGE_OUT_BUFFER { sawImage = true }
                    return status
                }
            }
        }
    }
}
