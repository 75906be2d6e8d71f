internal import CHEIF
internal import _CImagingShims
import ImagingCore

/// HEIF (HEIC) and AVIF through libheif (LGPL-3.0), which decodes HEVC with libde265 and
/// AV1 with dav1d or libaom. libheif is opened when the first such file is decoded
/// (`CHEIF`'s loader says why); without it, these files get `decode.unsupportedFeature`.
///
/// The primary image is decoded as 8-bit RGB (RGBA with alpha; 10- and 12-bit images are
/// brought to 8 bits by libheif), with the file's own transformations applied as libheif
/// applies them: rotation (`irot`), mirroring (`imir`) and the clean aperture crop (`clap`).
/// Those boxes, not the EXIF Orientation tag, say how a HEIF image is shown, so the pixels
/// come out upright and the reported orientation is `.up`. Both the stored (`ispe`) and
/// the shown size are checked against the limits before anything is decoded. libheif
/// cannot be interrupted: the time limit is checked when the decode returns. libheif's
/// own threads are off (the batch engine runs images side by side).
enum HEIFDecoder {
    static func decode(
        _ data: UnsafeRawBufferPointer, format: ImageFormat, options: DecodeOptions, deadline: UInt64,
        workspace: inout DecodeWorkspace
    ) throws(ImagingError) -> StoredImage {
        let name = format.name
        guard iq_heif_load() == 0 else {
            throw .libraryMissing(name, loaderSaid: iq_heif_load_error(), package: "libheif1")
        }
        guard let context = heif_context_alloc() else { throw ImagingError(.outOfMemory, "\(name): no decoder context") }
        defer { heif_context_free(context) }
        heif_context_set_max_decoding_threads(context, 0)
        // libheif's own bound on a side, from the pixel limit (a side can be as long as that).
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: options.limits.maxPixels))
        do throws(ImagingError) {
            try check(heif_context_read_from_memory_without_copy(context, data.baseAddress, data.count, nil), name, "reading the file")
        } catch {
            // A file cut short fails for whatever the missing part held ("no 'meta' box"):
            // say it was cut short when a top-level box runs past the end.
            if let cut = cutBox(data) {
                throw ImagingError(.truncated, "\(name): the file ends inside its '\(cut.type)' box (\(cut.present) of \(cut.size) bytes)")
            }
            throw error
        }

        var primary: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &primary), name, "finding the primary image")
        guard let handle = primary else { throw ImagingError(.corrupt, "\(name): the file has no primary image") }
        defer { heif_image_handle_release(handle) }

        let stored = ImageSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
        let shown = ImageSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        try options.limits.check(stored, format: name)
        try options.limits.check(shown, format: name)
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        let flashFired = exif(handle).withUnsafeBytes { $0.isEmpty ? false : EXIF.flashFired($0) }

        guard let decoding = heif_decoding_options_alloc() else { throw ImagingError(.outOfMemory, "\(name): no decoding options") }
        defer { heif_decoding_options_free(decoding) }
        decoding.pointee.ignore_transformations = 0
        // A libheif older than its headers allocates the options of its own version: the
        // field exists from version 2 (older ones give the stored depth, refused below).
        if decoding.pointee.version >= 2 { decoding.pointee.convert_hdr_to_8bit = 1 }
        var decoded: OpaquePointer?
        try check(
            heif_decode_image(handle, &decoded, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, decoding),
            name, "decoding")
        guard let image = decoded else { throw ImagingError(.corrupt, "\(name): the decoder returned no image") }
        defer { heif_image_release(image) }
        if deadline != 0 && iq_monotonic_ns() > deadline {
            throw ImagingError(.timeLimit, "\(name): the time limit passed while decoding")
        }

        let size = ImageSize(
            width: Int(heif_image_get_width(image, heif_channel_interleaved)), height: Int(heif_image_get_height(image, heif_channel_interleaved)))
        var sourceStride: Int32 = 0
        guard size == shown, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &sourceStride),
            heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8
        else {
            throw ImagingError(.corrupt, "\(name): the decoded image is not the \(shown.width)×\(shown.height) RGB its header promised")
        }
        let channels = alpha ? 4 : 3
        _ = workspace.fillStored(depth: .eight, size: size, channels: channels) { pixels, stride in
            for y in 0..<size.height {
                (pixels! + y * stride).update(from: plane + y * Int(sourceStride), count: size.width * channels)
            }
            return 0
        }
        var result = StoredImage(
            depth: .eight, model: alpha ? .rgba(premultiplied: heif_image_handle_is_premultiplied_alpha(handle) != 0) : .rgb,
            storedSize: size, orientation: .up, scaleDenominator: 1, sourceBitDepth: bits > 0 ? bits : 8, pageCount: 1,
            warnings: [], resolution: nil)
        result.flashFired = flashFired
        return result
    }

    /// The primary image's first EXIF block as a TIFF structure (libheif hands it with a
    /// four-byte offset to the TIFF header in front), or none.
    private static func exif(_ handle: OpaquePointer) -> [UInt8] {
        var id = heif_item_id()
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return [] }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size < 1 << 24 else { return [] }
        var bytes = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok else { return [] }
        let offset = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard offset <= size - 4 - 8 else { return [] }
        return Array(bytes[(4 + offset)...])
    }

    /// The first top-level box whose declared size runs past the end of `data`, if any.
    static func cutBox(_ data: UnsafeRawBufferPointer) -> (type: String, size: Int, present: Int)? {
        var at = 0
        while at + 8 <= data.count {
            var size = (0..<4).reduce(0) { $0 << 8 | Int(data[at + $1]) }
            let type = String(decoding: data[(at + 4)..<(at + 8)].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
            if size == 1 {
                // A 64-bit size follows the type.
                guard at + 16 <= data.count else { return (type, 16, data.count - at) }
                size = (8..<16).reduce(0) { $0 << 8 | Int(data[at + $1]) & 0xFF }
                guard size >= 16, size <= Int(Int32.max) else { return nil }
            } else if size == 0 {
                return nil  // to the end of the file
            }
            guard size >= 8 else { return nil }
            if at + size > data.count { return (type, size, data.count - at) }
            at += size
        }
        return nil
    }

    /// Throws a libheif error as an error of imgquality's kinds.
    private static func check(_ error: heif_error, _ name: String, _ doing: String) throws(ImagingError) {
        guard error.code != heif_error_Ok else { return }
        let text = error.message.map { String(cString: $0) } ?? ""
        let message = "\(name): \(text.isEmpty ? "failed" : text) (\(doing))"
        if error.subcode == heif_suberror_End_of_data { throw ImagingError(.truncated, message) }
        if error.subcode == heif_suberror_Security_limit_exceeded { throw ImagingError(.limitExceeded, message) }
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature: throw ImagingError(.unsupportedFeature, message)
        case heif_error_Memory_allocation_error: throw ImagingError(.outOfMemory, message)
        default: throw ImagingError(.corrupt, message)
        }
    }
}
