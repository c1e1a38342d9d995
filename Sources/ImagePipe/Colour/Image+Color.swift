import CGdkPixbuf

extension Image {
    /// The picture with its pixels moved from the profile `source` to `target`.
    ///
    /// RGB and grey sources only (CMYK pixels are never held in an `Image`: see
    /// `fromCMYK`); a grey source is read from the first channel of each pixel, as a grey
    /// picture expanded to RGB holds it. Alpha is carried over unchanged.
    /// With `rect`, only its pixels are converted and the rest of the new picture is left as
    /// allocated: a decode of a region has nothing elsewhere, and its other pages stay unwritten.
    package func converted(from source: ICCProfile, to target: ICCProfile, intent: RenderingIntent, within rect: Rect? = nil) throws -> Image {
        guard target.space == .rgb else {
            throw ImageError(.unwritable, reason: "the profile '\(target.name)' is \(target.space.rawValue), but only RGB output profiles can be used")
        }
        let input: ColorTransform.Layout
        switch source.space {
        case .rgb: input = hasAlpha ? .rgba : .rgb
        case .grey: input = hasAlpha ? .greyInRGBA : .greyInRGB
        case .cmyk, .other:
            throw ImageError(.corrupt, reason: "its ICC profile '\(source.name)' is for \(source.space.rawValue) pixels, but the picture is RGB")
        }
        let transform = try ColorTransform.make(from: source, to: target, input: input, output: hasAlpha ? .rgba : .rgb, intent: intent)
        let area = rect.map { (0..<width).clamped(to: $0.x..<($0.x + $0.width)) } ?? 0..<width
        let rows = rect.map { (0..<height).clamped(to: $0.y..<($0.y + $0.height)) } ?? 0..<height
        let channels = hasAlpha ? 4 : 3
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            guard !area.isEmpty, !rows.isEmpty else { return }
            transform.convert(rowStart(rows.lowerBound) + area.lowerBound * channels, sourceStride: rowStride,
                              into: writer.base + rows.lowerBound * writer.rowStride + area.lowerBound * channels, targetStride: writer.rowStride,
                              width: area.count, rows: rows.count)
            guard input == .greyInRGBA else { return }
            // Little CMS copies alpha only between layouts with the same extra channels.
            for y in rows {
                let from = rowStart(y), to = writer.base + y * writer.rowStride
                for x in area { to[x * 4 + 3] = from[x * 4 + 3] }
            }
        }
    }

    /// An RGB picture from CMYK pixels (4 bytes each, 0 = no ink) in rows of `stride` bytes:
    /// through `profile` to sRGB when there is one, else by the plain formula every reader
    /// without a profile uses (R = (1 − C)(1 − K), as ImageMagick and gdk-pixbuf convert).
    package static func fromCMYK(_ pixels: UnsafePointer<UInt8>, size: Size, stride: Int, profile: ICCProfile?,
                         intent: RenderingIntent) throws -> Image {
        if let profile, profile.space == .cmyk {
            let transform = try ColorTransform.make(from: profile, to: .sRGB, input: .cmyk, output: .rgb, intent: intent)
            return try Image.make(size: size, hasAlpha: false) { writer in
                transform.convert(pixels, sourceStride: stride, into: writer.base, targetStride: writer.rowStride,
                                  width: size.width, rows: size.height)
            }
        }
        return try Image.make(size: size, hasAlpha: false) { writer in
            for y in 0..<size.height {
                let from = pixels + y * stride, to = writer.base + y * writer.rowStride
                for x in 0..<size.width {
                    let white = 255 - Int(from[x * 4 + 3])
                    for channel in 0..<3 {
                        to[x * 3 + channel] = UInt8(((255 - Int(from[x * 4 + channel])) * white + 127) / 255)
                    }
                }
            }
        }
    }
}
