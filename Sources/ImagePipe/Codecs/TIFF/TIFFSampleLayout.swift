import CTiffCodec

/// How a TIFF's samples lie, when `TIFFDecoder` reads them itself: unsigned 8- or 16-bit samples
/// of gray, RGB, CMYK (four inks) or CIELab, with or without alpha, in strips or tiles, one plane or one
/// per sample. nil for every other kind, which goes through libtiff's RGBA interface.
struct TIFFSampleLayout {
    /// The color samples each pixel starts with.
    enum Model: Equatable {
        /// CIELab (PHOTOMETRIC_CIELAB): L* unsigned, a* and b* signed (two's complement).
        case gray, rgb, cmyk, lab

        var samples: Int {
            switch self {
            case .gray: 1
            case .rgb, .lab: 3
            case .cmyk: 4
            }
        }
    }

    var color: Model
    var samplesPerPixel: Int
    /// 8 or 16.
    var bits: Int
    /// Which sample is alpha (after the color samples), if any.
    var alpha: Int?
    /// Whether color was multiplied by alpha (EXTRASAMPLE_ASSOCALPHA).
    var associatedAlpha: Bool
    /// Gray where 0 is white (PHOTOMETRIC_MINISWHITE).
    var minIsWhite: Bool
    /// One plane per sample (PLANARCONFIG_SEPARATE) rather than samples side by side.
    var separate: Bool
    var tiled: Bool
    var tileWidth: Int, tileLength: Int, rowsPerStrip: Int
    /// How many strips or tiles the directory lists.
    var chunkCount: Int

    /// `jpegRGB`: libjpeg was asked to give JPEG-compressed YCbCr as RGB.
    init?(_ fields: imagepipe_tiff_fields, jpegRGB: Bool) {
        guard fields.sample_format == SAMPLEFORMAT_UINT, fields.bits_per_sample == 8 || fields.bits_per_sample == 16,
              fields.compression != COMPRESSION_OJPEG else { return nil }
        let samples = Int(fields.samples_per_pixel)
        switch Int32(fields.photometric) {
        case PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_MINISWHITE: color = .gray
        case PHOTOMETRIC_RGB: color = .rgb
        case PHOTOMETRIC_YCBCR where jpegRGB: color = .rgb
        case PHOTOMETRIC_SEPARATED where fields.ink_set == INKSET_CMYK && samples - Int(fields.extra_samples) == 4: color = .cmyk
        // L*a*b*; an L*-only file (one sample) goes through the RGBA interface.
        case PHOTOMETRIC_CIELAB where samples - Int(fields.extra_samples) == 3: color = .lab
        default: return nil
        }
        guard samples >= color.samples else { return nil }
        samplesPerPixel = samples
        bits = Int(fields.bits_per_sample)
        let alphaSample = color.samples + Int(fields.alpha_index)
        alpha = fields.alpha_kind != 0 && alphaSample < samples ? alphaSample : nil
        associatedAlpha = fields.alpha_kind == EXTRASAMPLE_ASSOCALPHA
        minIsWhite = fields.photometric == PHOTOMETRIC_MINISWHITE
        separate = fields.planar_config == PLANARCONFIG_SEPARATE
        tiled = fields.tiled != 0
        tileWidth = Int(fields.tile_width)
        tileLength = Int(fields.tile_length)
        rowsPerStrip = Int(fields.rows_per_strip)
        chunkCount = Int(fields.chunk_count)
        if tiled ? tileWidth == 0 || tileLength == 0 : rowsPerStrip == 0 { return nil }
    }

    /// Whether a streamed run can take the rows as they are read (`TIFFDecoder.decodeRows`): RGB
    /// or gray in one plane, without alpha. CMYK and CIELab are converted whole by Little CMS.
    var streams: Bool { (color == .rgb || color == .gray) && alpha == nil && !separate }

    /// The pixels of one strip (the picture's width, at most its height) or one tile.
    func chunkSize(of picture: Size) -> Size {
        tiled ? Size(tileWidth, tileLength) : Size(picture.width, min(rowsPerStrip, picture.height))
    }
}
