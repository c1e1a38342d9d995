import CGdkPixbuf

/// Feeds encoded bytes to a GdkPixbufLoader. It watches the header as it arrives so that an
/// over-large picture is refused before its pixels are allocated, and asks the JPEG decoder to
/// shrink in the DCT when `LoadOptions.atLeast` allows it.
final class PixbufDecoder {
    private let loader: UnsafeMutablePointer<GdkPixbufLoader>
    private let options: LoadOptions
    private let path: String?
    /// The orientation read from the header, if known, so a shrink target can be turned to match.
    private let orientation: Int
    private(set) var refusal: ImageError?
    /// The stored size, once the header has been read.
    private(set) var preparedSize: Size?
    /// Whether to stop once the header is read (for `ImageHeader.read(bytes:)`).
    var stopsAfterHeader = false
    private var truncationCheck = TruncationCheck()
    /// Keeps the metadata blocks as the data streams past (nil for formats read otherwise).
    private var scanner: MetadataScanner?

    /// A decoder for `format` only: the loader is named, never chosen by gdk-pixbuf's sniffing
    /// (see `ImageFormat`).
    init(format: ImageFormat, options: LoadOptions, path: String?, orientation: Int) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let loader = gdk_pixbuf_loader_new_with_type(format.loaderName, &error) else {
            if let error { g_error_free(error) }
            throw ImageError(.unsupported, path: path, reason: "\(format.displayName): this system has no gdk-pixbuf loader for it")
        }
        self.loader = loader
        self.options = options
        self.path = path
        self.orientation = orientation
        scanner = MetadataScanner(format: format)
        let sizePrepared: @convention(c) (UnsafeMutablePointer<GdkPixbufLoader>?, Int32, Int32, gpointer?) -> Void = {
            loader, width, height, context in
            let decoder = Unmanaged<PixbufDecoder>.fromOpaque(context!).takeUnretainedValue()
            decoder.sizePrepared(loader: loader!, stored: Size(Int(width), Int(height)))
        }
        g_signal_connect_data(UnsafeMutableRawPointer(loader), "size-prepared",
                              unsafeBitCast(sizePrepared, to: GCallback.self),
                              Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(rawValue: 0))
    }

    private var isClosed = false

    deinit {
        // gdk-pixbuf insists on a close even for data it was not given in full.
        closeIgnoringErrors()
        g_object_unref(UnsafeMutableRawPointer(loader))
    }

    private func closeIgnoringErrors() {
        if !isClosed { gdk_pixbuf_loader_close(loader, nil) }
        isClosed = true
    }

    private func sizePrepared(loader: UnsafeMutablePointer<GdkPixbufLoader>, stored: Size) {
        preparedSize = stored
        if stopsAfterHeader {
            gdk_pixbuf_loader_set_size(loader, 0, 0) // 0x0 makes the loader stop before allocating (as gdk_pixbuf_get_file_info does)
            return
        }
        if let maxPixels = options.maxPixels, maxPixels > 0, stored.pixelCount > maxPixels {
            refusal = .tooManyPixels(stored, limit: maxPixels, path: path)
            gdk_pixbuf_loader_set_size(loader, 0, 0) // keep the loader from allocating the bomb
        }
    }

    /// The smallest of libjpeg's DCT scalings (1/1, 1/2, 1/4, 1/8, each side rounded up) that is
    /// still at least `atLeast` on both sides. Asking the loader for exactly that size means it
    /// decodes reduced and does not resample again.
    static func jpegReducedSize(stored: Size, atLeast target: Size) -> Size {
        for denominator in jpegDenominators {
            let reduced = stored.reduced(by: denominator)
            if reduced.width >= target.width, reduced.height >= target.height { return reduced }
        }
        return stored
    }

    /// libjpeg's DCT scalings below the full size, smallest first.
    static let jpegDenominators = [8, 4, 2]

    func formatName() -> String? {
        guard let format = gdk_pixbuf_loader_get_format(loader), let name = gdk_pixbuf_format_get_name(format) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// Whether the decoder wants no more data: it refused the picture, or had only the header to read.
    private var isDone: Bool { refusal != nil || (stopsAfterHeader && preparedSize != nil) }

    /// Feeds one chunk; false once the decoder wants no more.
    func write(_ chunk: UnsafeRawBufferPointer) throws -> Bool {
        guard !isDone else { return false }
        try options.checkDeadline(path: path)
        truncationCheck.scan(chunk)
        if !stopsAfterHeader { scanner?.scan(chunk) }
        func feed(_ part: UnsafeRawBufferPointer) throws {
            guard part.count > 0, !isDone else { return }
            try checkGError(.corrupt, path: path) { error in
                gdk_pixbuf_loader_write(loader, part.bindMemory(to: UInt8.self).baseAddress, gsize(part.count), error)
            }
        }
        do {
            try feed(chunk)
        } catch where isDone {
            // Told to make a 0x0 picture once the header was read, the loader gives up: expected.
        }
        return !isDone
    }

    /// A decoder that reads only the header: fed until the loader knows the size, then abandoned.
    static func headerReader(format: ImageFormat, options: LoadOptions, path: String?) throws -> PixbufDecoder {
        let decoder = try PixbufDecoder(format: format, options: LoadOptions(maxPixels: nil, deadline: options.deadline), path: path, orientation: 1)
        decoder.stopsAfterHeader = true
        return decoder
    }

    /// The header once enough data has been written (`headerReader`), and `orientation`.
    func header(format: ImageFormat, orientation: Int, frameCount: Int) throws -> ImageHeader {
        // Some loaders (TIFF, WebP, small pictures in others) parse only at close.
        if preparedSize == nil { closeIgnoringErrors() }
        guard let size = preparedSize, size.width > 0, size.height > 0 else {
            throw ImageError(.corrupt, path: path, reason: "starts like \(format.article) \(format.displayName) but its header cannot be read")
        }
        return ImageHeader(storedSize: size, format: format, orientation: orientation, frameCount: frameCount)
    }

    /// The header of `bytes` as `format`'s loader reads it, fed until it knows the size.
    static func header(of bytes: [UInt8], format: ImageFormat, options: LoadOptions, path: String?) throws -> ImageHeader {
        let decoder = try headerReader(format: format, options: options, path: path)
        var offset = 0
        while offset < bytes.count, decoder.preparedSize == nil {
            let end = min(bytes.count, offset + (1 << 16))
            _ = try bytes[offset..<end].withUnsafeBytes { try decoder.write($0) }
            offset = end
        }
        return try decoder.header(format: format, orientation: 1, frameCount: 1)
    }

    /// Ends the input and returns the decoded picture, turned by its EXIF orientation if asked.
    func finish() throws -> Image {
        var closeError: UnsafeMutablePointer<GError>?
        gdk_pixbuf_loader_close(loader, &closeError)
        isClosed = true
        if let refusal {
            if let closeError { g_error_free(closeError) }
            throw refusal
        }
        try checkGError(.corrupt, path: path) { error in
            error.pointee = closeError
            return closeError == nil ? 1 : 0
        }
        guard let decoded = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw ImageError(.corrupt, path: path, reason: "no picture in the data")
        }
        if options.failOnDamage, let truncation = truncationCheck.truncation(format: formatName()) {
            throw ImageError(.corrupt, path: path, reason: truncation)
        }
        // Turned by the orientation the header read, which the plan was made from: on damaged
        // EXIF data gdk-pixbuf's own reading can disagree (found by `make fuzz`). A sub-pixbuf
        // shares the pixels and has no options of its own to disagree with.
        let turn = options.applyOrientation ? orientation : 1
        let plain = gdk_pixbuf_new_subpixbuf(decoded, 0, 0, gdk_pixbuf_get_width(decoded), gdk_pixbuf_get_height(decoded))!
        if turn != 1 { gdk_pixbuf_set_option(plain, "orientation", String(turn)) }
        let pixbuf = gdk_pixbuf_apply_embedded_orientation(plain)! // a new reference, turned or not
        g_object_unref(UnsafeMutableRawPointer(plain))
        var metadata = scanner?.metadata ?? ImageMetadata()
        if metadata.sourceProfile == nil, !metadata.profileTooLarge { metadata.sourceProfile = Self.embeddedProfile(of: decoded) }
        // A PNG's or WebP's EXIF orientation (JPEG goes through StrictJPEG, TIFF through TIFFDecoder).
        metadata.orientationApplied = turn != 1
        return try Image.colorManaged(Image(adopting: pixbuf), metadata: metadata, options: options, path: path)
    }

    /// The ICC profile a gdk-pixbuf loader attached (the PNG loader does), decoded
    /// from its base64 option.
    private static func embeddedProfile(of pixbuf: OpaquePointer) -> [UInt8]? {
        guard let text = gdk_pixbuf_get_option(pixbuf, "icc-profile") else { return nil }
        var length: gsize = 0
        guard let decoded = g_base64_decode(text, &length) else { return nil }
        defer { g_free(decoded) }
        return Array(UnsafeBufferPointer(start: decoded, count: Int(length)))
    }
}
