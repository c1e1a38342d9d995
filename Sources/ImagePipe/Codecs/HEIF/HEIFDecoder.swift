import CGdkPixbuf
import CHeif

/// HEIC and AVIF reading through libheif directly (HEVC through libde265, AV1 through dav1d or
/// libaom), rather than through heif-gdk-pixbuf: that loader drops the ICC profile and EXIF, and
/// is one more package. libheif applies the container's rotation and mirroring (`irot`, `imir`),
/// so the pixels come turned as shown and the EXIF orientation no longer applies. What libheif
/// reads of each format, and what is read otherwise, is the format's codec's choice
/// (`HEIFCodec`, `AVIFCodec`); this is libheif's side of it, on the primary picture's handle.
enum HEIFDecoder {
    /// libheif's plugins are loaded once per process.
    private static let initialised: Void = { _ = heif_init(nil) }()

    /// The primary picture's size as the container states it, already turned.
    static func statedSize(of handle: OpaquePointer) -> Size {
        Size(Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
    }

    /// `size`, or an error when it is no size at all.
    static func checked(_ size: Size, format: ImageFormat, path: String?) throws -> Size {
        guard size.width > 0, size.height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "starts like \(format.article) \(format.displayName) but has no picture size")
        }
        return size
    }

    /// Refuses a picture over the pixel limit, one whose file is cut short (at the `fail=` level
    /// that refuses it) and a run past its deadline, before the primary picture is decoded.
    static func checkBeforeDecoding(_ handle: OpaquePointer, bytes: [UInt8], format: ImageFormat, options: LoadOptions, path: String?) throws {
        let size = statedSize(of: handle)
        if let limit = options.maxPixels, limit > 0, size.pixelCount > limit { throw ImageError.tooManyPixels(size, limit: limit, path: path) }
        try checkTruncation(bytes, format: format, options: options, path: path)
        try options.checkDeadline(path: path)
    }

    /// Refuses a file cut short (`truncation`) when `options` refuses that.
    static func checkTruncation(_ bytes: [UInt8], format: ImageFormat, options: LoadOptions, path: String?) throws {
        if options.refuses(.truncated), let cut = truncation(of: bytes, format: format) { throw ImageError(.corrupt, path: path, reason: cut) }
    }

    /// Decodes the primary picture to 8-bit RGB(A), with its profile, EXIF and XMP, made ready
    /// for the stages as every decode is (`Image.colorManaged`). `expandingLimitedRangeGray`:
    /// the samples are gray in limited range, which libheif copies as they are (`AVIFStillFacts`).
    static func decode(_ handle: OpaquePointer, expandingLimitedRangeGray: Bool, options: LoadOptions, path: String?) throws -> Image {
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        var decoded: OpaquePointer?
        try check(heif_decode_image(handle, &decoded, heif_colorspace_RGB,
                                    alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, nil), path: path, doing: "decode")
        guard let decoded else { throw ImageError(.corrupt, path: path, reason: "libheif gave no picture") }
        defer { heif_image_release(decoded) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
            throw ImageError(.corrupt, path: path, reason: "libheif gave no pixels")
        }
        let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        let rowBytes = width * (alpha ? 4 : 3)
        let image = try Image.make(size: Size(width, height), hasAlpha: alpha) { writer in
            for y in 0..<height {
                writer.row(y).baseAddress!.update(from: plane + y * Int(stride), count: rowBytes)
            }
            if expandingLimitedRangeGray {
                AVIFStillFacts.expandLimitedRange(writer.base, size: Size(width, height), rowStride: writer.rowStride, channels: alpha ? 4 : 3)
            }
        }
        var metadata = decodingMetadata(of: handle)
        // The container's turn is always applied: written EXIF must say 1, whatever auto-orient says.
        metadata.orientationApplied = true
        return try Image.colorManaged(image, metadata: metadata.screeningEXIF(), options: options, path: path)
    }

    /// The profile (or that it was too large to read), EXIF and XMP of the primary picture, as a
    /// decode hands them on.
    static func decodingMetadata(of handle: OpaquePointer) -> ImageMetadata {
        var metadata = ImageMetadata()
        metadata.sourceProfile = profile(of: handle)
        metadata.profileTooLarge = heif_image_handle_get_raw_color_profile_size(handle) > ICCProfile.maxBytes
        metadata.exif = block(of: handle, type: "Exif").map(exifPayload)
        metadata.xmp = block(of: handle, type: "mime", contentType: "application/rdf+xml")
        return metadata
    }

    /// The profile, EXIF and XMP of the primary picture, without decoding it.
    static func metadata(of handle: OpaquePointer) -> ImageMetadata {
        ImageMetadata(sourceProfile: profile(of: handle), exif: block(of: handle, type: "Exif").map(exifPayload),
                      xmp: block(of: handle, type: "mime", contentType: "application/rdf+xml")).screeningEXIF()
    }

    /// What the primary picture's header says of its coding: alpha and bits per sample.
    static func codingFacts(of handle: OpaquePointer) -> CodingFacts {
        var facts = CodingFacts()
        facts.hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        facts.channels = facts.hasAlpha == true ? 4 : 3
        facts.colorSpace = "YCbCr"
        let bits = heif_image_handle_get_luma_bits_per_pixel(handle)
        if bits > 0 { facts.bitDepth = Int(bits) }
        return facts
    }

    /// Runs `body` on libheif's primary picture. When libheif cannot read the file or find its
    /// primary picture, `refused` is given the error and may read the file otherwise (by
    /// default the error is thrown).
    static func withPrimary<T>(_ bytes: [UInt8], format: ImageFormat, compression: HEIFCompression, path: String?,
                               refused: (ImageError) throws -> T = { throw $0 },
                               _ body: (OpaquePointer) throws -> T) throws -> T {
        if let reason = imagepipe_open_libheif() {
            throw ImageError(.unsupported, path: path, reason: "\(format.displayName) needs libheif, which cannot be opened: \(String(cString: reason))")
        }
        initialised
        guard heif_have_decoder_for_format(compression.libheif) != 0 else {
            throw ImageError(.unsupported, path: path,
                             reason: "\(format.displayName): libheif has no \(compression.name) decoder here; install \(compression.plugin)")
        }
        guard let context = heif_context_alloc() else { throw ImageError(.tooLarge, path: path, reason: "libheif could not start") }
        defer { heif_context_free(context) }
        return try bytes.withUnsafeBytes { buffer in
            let read = heif_context_read_from_memory_without_copy(context, buffer.baseAddress, buffer.count, nil)
            var handle: OpaquePointer?
            let found = read.code == heif_error_Ok ? heif_context_get_primary_image_handle(context, &handle) : read
            do {
                try check(read, path: path, doing: "read")
                try check(found, path: path, doing: "find the picture in")
            } catch let error as ImageError {
                return try refused(error)
            }
            guard let handle else { throw ImageError(.corrupt, path: path, reason: "no picture in the \(format.displayName) file") }
            defer { heif_image_handle_release(handle) }
            return try body(handle)
        }
    }

    /// Why the file looks cut short, or nil: a top-level box (ISO BMFF: a 32-bit size, or 1 and
    /// a 64-bit size after the type; 0 runs to the end) whose header is whole reaches past the
    /// end. libheif reads only the items it needs, so a file cut after the still image (a
    /// sequence's first frame) would otherwise decode as if whole. Bytes after the last box that
    /// start no box (padding, junk libheif ignores) are not a cut.
    static func truncation(of bytes: [UInt8], format: ImageFormat) -> String? {
        func big(_ at: Int, _ count: Int) -> Int { bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) } }
        var offset = 0
        while offset + 8 <= bytes.count, bytes[(offset + 4)..<(offset + 8)].allSatisfy({ (0x20...0x7E).contains($0) }) {
            var size = big(offset, 4)
            if size == 1 {
                guard offset + 16 <= bytes.count else { return nil }
                size = big(offset + 8, 8)
            }
            if size == 0 || size < 8 { return nil }
            guard size <= bytes.count - offset else {
                return "the \(format.displayName) data is cut short (a box of \(size) bytes at byte \(offset), in a file of \(bytes.count))"
            }
            offset += size
        }
        return nil
    }

    private static func check(_ error: heif_error, path: String?, doing what: String) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw ImageError(.corrupt, path: path, reason: "libheif could not \(what) it: \(message)")
    }

    private static func profile(of handle: OpaquePointer) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        // One larger than a profile may be is not read: colour management drops it anyway.
        guard size > 0, size <= ICCProfile.maxBytes else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_raw_color_profile(handle, &bytes).code == heif_error_Ok else { return nil }
        return bytes
    }

    private static func block(of handle: OpaquePointer, type: String, contentType: String? = nil) -> [UInt8]? {
        let count = heif_image_handle_get_number_of_metadata_blocks(handle, type)
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        let found = heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, count)
        for id in ids.prefix(Int(found)) {
            if let contentType {
                guard let content = heif_image_handle_get_metadata_content_type(handle, id), String(cString: content) == contentType else { continue }
            }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            if heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok { return bytes }
        }
        return nil
    }

    /// A HEIF Exif item starts with the offset of the TIFF header (usually past `Exif\0\0`).
    private static func exifPayload(_ item: [UInt8]) -> [UInt8] {
        guard item.count > 4 else { return item }
        let offset = item[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let payload = 4 + offset < item.count ? item[(4 + offset)...] : item.dropFirst(4)
        // Some writers give offset 0 and put JPEG's `Exif\0\0` before the TIFF header all the same.
        return Array(payload.starts(with: MetadataScanner.exifMarker) ? payload.dropFirst(6) : payload)
    }
}
