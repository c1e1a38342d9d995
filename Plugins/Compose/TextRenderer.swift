import CPangoCairo
import ImagePipe

/// Text drawn with Pango and cairo into straight-alpha RGBA pictures, and fonts checked before
/// anything is drawn.
///
/// Pango lays the text out (HarfBuzz shaping, so any script comes out right; fontconfig finds
/// the fonts), PangoCairo draws it antialiased into a cairo ARGB32 image surface, and the
/// surface's premultiplied native-endian BGRA is turned into the framework's straight RGBA.
/// One cairo font map serves the process at 72 dpi, so a font size in points is that many
/// pixels (sharp's `text` default). Pango objects are not shared across threads safely, so every
/// use holds one lock; a picture drawn once is kept (keyed by everything that shapes it), so a
/// batch draws its caption once.
public enum TextRenderer {
    /// What a font description resolves to.
    public struct Font: Hashable, Sendable {
        /// The family fontconfig chose.
        public var family: String
        /// The size in pixels (= points at 72 dpi).
        public var pixels: Double

        public init(family: String, pixels: Double) {
            self.family = family
            self.pixels = pixels
        }
    }

    /// Family names fontconfig maps to whatever the machine has: asking for one is asking for
    /// a fallback, so it is never refused.
    static let genericFamilies: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "cursive", "fantasy",
                                               "system-ui", "emoji", "math", "ui-sans-serif", "ui-serif", "ui-monospace"]
    /// The largest font size, which bounds the memory one glyph can take.
    public static let maxPixels = 2000.0

    /// The largest side of a cairo image surface.
    public static let maxSide = 32767
    /// Bytes of drawn pictures kept for reuse: a batch's caption is drawn once, and a run of
    /// many different large captions does not keep them all.
    public static let drawnCapacity = 64 << 20

    private struct DrawKey: Hashable {
        var text: String, font: String, color: Color, width: Int?, alignment: TextAlignment
    }

    /// What a layout's size depends on (not the colour).
    private struct LayoutKey: Hashable {
        var text: String, font: String, width: Int?, alignment: TextAlignment
    }

    /// Pango's objects for the process, made on first use under the lock.
    private final class State: @unchecked Sendable {
        var fontMap: UnsafeMutablePointer<PangoFontMap>?
        var context: OpaquePointer?
        var fonts: [String: Result<Font, FontError>] = [:]
        var drawn: [DrawKey: Image] = [:]
        var drawOrder: [DrawKey] = []
        var drawnBytes = 0
        var measured: [LayoutKey: Size] = [:]
        var missing: [LayoutKey: [Unicode.Scalar]] = [:]
    }

    /// Why a font description is refused.
    public struct FontError: Error, Hashable, Sendable {
        public var message: String
    }

    private static let state = Locked(State())

    /// The family and size `description` ("DejaVu Sans Bold 24") resolves to; refused when it
    /// names no size, or a family that is not installed — Pango would silently draw another
    /// (a watermark in the wrong face, found after the batch) — unless it asks for a generic one.
    public static func resolve(_ description: String) -> Result<Font, FontError> {
        state.withLock { state in
            if let known = state.fonts[description] { return known }
            let result = resolveUnlocked(description, state)
            state.fonts[description] = result
            return result
        }
    }

    private static func context(_ state: State) -> OpaquePointer {
        if let context = state.context { return context }
        let fontMap = pango_cairo_font_map_new()!
        pango_cairo_font_map_set_resolution(OpaquePointer(fontMap), 72)
        let context = pango_font_map_create_context(fontMap)!
        // Grey antialiasing (no colour fringes on a picture), outlines unhinted but metrics
        // rounded off: the same shapes at every size and position.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        state.fontMap = fontMap
        state.context = context
        return context
    }

    private static func resolveUnlocked(_ text: String, _ state: State) -> Result<Font, FontError> {
        let context = context(state)
        guard let description = pango_font_description_from_string(text) else {
            return .failure(FontError(message: "cannot read the font '\(text)'"))
        }
        defer { pango_font_description_free(description) }
        let requested = pango_font_description_get_family(description).map { String(cString: $0) } ?? ""
        let families = requested.split(separator: ",").map { name in
            String(name.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()).lowercased()
        }.filter { !$0.isEmpty }
        guard !families.isEmpty else {
            return .failure(FontError(message: "the font '\(text)' names no family: write one, like 'DejaVu Sans 24' or 'Sans 24'"))
        }
        let size = Double(pango_font_description_get_size(description)) / Double(PANGO_SCALE)
        guard size > 0 else {
            return .failure(FontError(message: "the font '\(text)' gives no size: write one in pixels, like '\(requested) 24'"))
        }
        guard size <= maxPixels else {
            return .failure(FontError(message: "the font '\(text)' is \(NumberFormat.short(size)) px, more than the largest, \(NumberFormat.short(maxPixels))"))
        }
        guard let font = pango_font_map_load_font(state.fontMap, context, description) else {
            return .failure(FontError(message: "no font at all can be found for '\(text)' (is fontconfig set up, with a font package such as fonts-dejavu-core?)"))
        }
        defer { g_object_unref(font) }
        let chosen = pango_font_describe(font)
        defer { pango_font_description_free(chosen) }
        let family = pango_font_description_get_family(chosen).map { String(cString: $0) } ?? ""
        if !families.contains(where: genericFamilies.contains), !families.contains(family.lowercased()) {
            return .failure(FontError(message: "no installed font family is called '\(requested)' (Pango would silently draw '\(family)' instead); name an installed family (fc-list : family) or a generic one: sans, serif, monospace"))
        }
        return .success(Font(family: family, pixels: size))
    }

    /// The characters of `text` that no font Pango draws `font` with has (after its fallback
    /// through every installed font): Pango draws each as a box holding its code. Characters
    /// that draw no ink (spaces, controls, joiners, variation selectors) are never missing.
    public static func missingCharacters(in text: String, font: String) -> [Unicode.Scalar] {
        let key = LayoutKey(text: text, font: font, width: nil, alignment: .left)
        return state.withLock { state in
            if let known = state.missing[key] { return known }
            let context = context(state)
            guard let description = pango_font_description_from_string(font) else { return [] }
            defer { pango_font_description_free(description) }
            guard let fontset = pango_font_map_load_fontset(state.fontMap, context, description, pango_language_get_default()) else { return [] }
            defer { g_object_unref(fontset) }
            var seen = Set<Unicode.Scalar>(), missing: [Unicode.Scalar] = []
            for scalar in text.unicodeScalars where seen.insert(scalar).inserted {
                let properties = scalar.properties
                guard !properties.isWhitespace, !properties.isDefaultIgnorableCodePoint, properties.generalCategory != .control else { continue }
                guard let chosen = pango_fontset_get_font(fontset, scalar.value) else {
                    missing.append(scalar)
                    continue
                }
                if pango_font_has_char(chosen, scalar.value) == 0 { missing.append(scalar) }
                g_object_unref(chosen)
            }
            if state.missing.count >= 64 { state.missing.removeAll() }
            state.missing[key] = missing
            return missing
        }
    }

    /// An installed family that has every one of `characters`, by fontconfig's charset match
    /// (the first by name, so the answer does not change from run to run); nil when none has.
    public static func family(having characters: [Unicode.Scalar]) -> String? {
        guard !characters.isEmpty else { return nil }
        return state.withLock { _ in
            guard let charset = FcCharSetCreate(), let pattern = FcPatternCreate(), let objects = FcObjectSetCreate() else { return nil }
            defer {
                FcObjectSetDestroy(objects)
                FcPatternDestroy(pattern)
                FcCharSetDestroy(charset)
            }
            for character in characters { _ = FcCharSetAddChar(charset, character.value) }
            _ = FcPatternAddCharSet(pattern, FC_CHARSET, charset)
            _ = FcObjectSetAdd(objects, FC_FAMILY)
            guard let fonts = FcFontList(nil, pattern, objects) else { return nil }
            defer { FcFontSetDestroy(fonts) }
            var families: [String] = []
            for index in 0..<Int(fonts.pointee.nfont) {
                var name: UnsafeMutablePointer<FcChar8>?
                if FcPatternGetString(fonts.pointee.fonts[index], FC_FAMILY, 0, &name) == FcResultMatch, let name {
                    families.append(String(cString: name))
                }
            }
            return families.min()
        }
    }

    /// The size of the picture `draw` makes of this text (its line boxes and ink), from Pango's
    /// layout alone: nothing is drawn and no surface is made, so a plan or `explain` learns how
    /// large a caption is without paying for it. (0, 0) when there is nothing to draw. Refuses
    /// a text past `TextLimits` before Pango sees it.
    public static func measure(_ text: String, font: String, width: Int?, alignment: TextAlignment) throws -> Size {
        if case let .failure(error) = resolve(font) { throw StageError(error.message) }
        if let problem = TextLimits.problem(in: text) { throw StageError(problem) }
        let key = LayoutKey(text: text, font: font, width: width, alignment: alignment)
        return state.withLock { state in
            if let size = state.measured[key] { return size }
            let size = layout(key, state) { _, box in box.size }
            if state.measured.count >= 64 { state.measured.removeAll() }
            state.measured[key] = size
            return size
        }
    }

    /// `text` drawn in `color` with `font`, wrapped at `width` pixels when given, as a picture
    /// just large enough for its ink and line boxes; nil when there is nothing to draw. A
    /// picture past cairo's sides or `maxPixels` is refused before any surface is made.
    public static func draw(_ text: String, font: String, color: Color, width: Int?, alignment: TextAlignment,
                            maxPixels limit: Int?) throws -> Image? {
        if case let .failure(error) = resolve(font) { throw StageError(error.message) }
        if let problem = TextLimits.problem(in: text) { throw StageError(problem) }
        let key = DrawKey(text: text, font: font, color: color, width: width, alignment: alignment)
        return try state.withLock { state in
            if let image = state.drawn[key] { return image }
            guard let image = try drawUnlocked(key, state, limit: limit) else { return nil }
            let bytes = image.size.pixelCount * 4
            guard bytes <= drawnCapacity else { return image }
            state.drawn[key] = image
            state.drawOrder.append(key)
            state.drawnBytes += bytes
            while state.drawOrder.count > 16 || state.drawnBytes > drawnCapacity {
                if let dropped = state.drawn.removeValue(forKey: state.drawOrder.removeFirst()) {
                    state.drawnBytes -= dropped.size.pixelCount * 4
                }
            }
            return image
        }
    }

    /// Refuses a text picture of `size` that cairo cannot make or the pixel limit forbids.
    public static func checkSize(_ size: Size, limit: Int?) throws {
        guard size.width <= maxSide, size.height <= maxSide else {
            throw StageError("the text would be a \(size) picture, more than cairo's largest side, \(maxSide); make it shorter or smaller, or wrap it with width=")
        }
        if let limit, limit > 0, size.pixelCount > limit {
            throw StageError("the text would be a \(size) picture (\(size.pixelCount) pixels), more than the limit of \(limit); make it shorter or smaller, or wrap it with width=", remedy: .raisePixelLimit)
        }
    }

    /// Where a layout's ink and line boxes lie, in pixels from the layout's origin.
    private struct Box {
        var left: Int, top: Int, size: Size
    }

    /// Lays `key` out with Pango (shaping, no drawing) and gives the layout and its box to `body`.
    private static func layout<T>(_ key: LayoutKey, _ state: State, _ body: (OpaquePointer, Box) throws -> T) rethrows -> T {
        let context = context(state)
        let layout = pango_layout_new(context)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        guard !key.text.isEmpty else { return try body(layout, Box(left: 0, top: 0, size: Size(0, 0))) }
        let description = pango_font_description_from_string(key.font)
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_text(layout, key.text, -1)
        if let width = key.width {
            pango_layout_set_width(layout, Int32(width) * PANGO_SCALE)
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        }
        let alignment = switch key.alignment {
        case .left: PANGO_ALIGN_LEFT
        case .center: PANGO_ALIGN_CENTER
        case .right: PANGO_ALIGN_RIGHT
        }
        pango_layout_set_alignment(layout, alignment)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        // The bitmap holds the line boxes (so placement follows the type, descenders included)
        // and any ink that overhangs them (italics, accents).
        let left = Int(min(ink.x, logical.x)), top = Int(min(ink.y, logical.y))
        let right = Int(max(ink.x + ink.width, logical.x + logical.width)), bottom = Int(max(ink.y + ink.height, logical.y + logical.height))
        let size = right > left && bottom > top ? Size(right - left, bottom - top) : Size(0, 0)
        return try body(layout, Box(left: left, top: top, size: size))
    }

    private static func drawUnlocked(_ key: DrawKey, _ state: State, limit: Int?) throws -> Image? {
        let shape = LayoutKey(text: key.text, font: key.font, width: key.width, alignment: key.alignment)
        return try layout(shape, state) { layout, box in
            try drawn(layout, box, color: key.color, state, limit: limit)
        }
    }

    private static func drawn(_ layout: OpaquePointer, _ box: Box, color: Color, _ state: State, limit: Int?) throws -> Image? {
        let size = box.size, left = box.left, top = box.top
        guard size.width > 0, size.height > 0 else { return nil }
        try checkSize(size, limit: limit)
        let context = context(state)
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height))
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw ImageError(.tooLarge, reason: "cannot make a \(size) surface for the text")
        }
        let cairo = cairo_create(surface)
        cairo_translate(cairo, Double(-left), Double(-top))
        cairo_set_source_rgba(cairo, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255,
                              Double(color.alpha) / 255)
        pango_cairo_update_context(cairo, context)
        pango_layout_context_changed(layout)
        pango_cairo_show_layout(cairo, layout)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        let data = UnsafePointer(cairo_image_surface_get_data(surface)!)
        let stride = Int(cairo_image_surface_get_stride(surface))
        return try Image.make(size: size, hasAlpha: true) { writer in
            for y in 0..<size.height {
                let source = data + y * stride, target = writer.row(y).baseAddress!
                for x in 0..<size.width {
                    // ARGB32 is one native-endian 32-bit word per pixel: B, G, R, A in memory on
                    // little-endian machines. Premultiplied: divide by alpha, rounding.
                    let word = UnsafeRawPointer(source + x * 4).loadUnaligned(as: UInt32.self)
                    let a = Int(word >> 24), r = Int((word >> 16) & 0xFF), g = Int((word >> 8) & 0xFF), b = Int(word & 0xFF)
                    let t = target + x * 4
                    guard a > 0 else {
                        t[0] = 0; t[1] = 0; t[2] = 0; t[3] = 0
                        continue
                    }
                    t[0] = UInt8(min(255, (r * 255 + a / 2) / a))
                    t[1] = UInt8(min(255, (g * 255 + a / 2) / a))
                    t[2] = UInt8(min(255, (b * 255 + a / 2) / a))
                    t[3] = UInt8(a)
                }
            }
        }
    }
}
