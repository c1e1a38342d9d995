import CGdkPixbuf

/// Checks an XMP packet before it is copied into a written file.
enum XMPPacket {
    /// Whether `bytes` are well-formed XML (GLib's GMarkup parser, which expands no entities)
    /// with at least one element, every element namespaced as XMP's are (`x:xmpmeta`,
    /// `rdf:Description`, `dc:title`): random bytes or plain HTML (`<script>`) are not XMP.
    static func isWellFormed(_ bytes: [UInt8]) -> Bool {
        // GMarkup keeps a pointer to its parser for the context's life.
        let parser = UnsafeMutablePointer<GMarkupParser>.allocate(capacity: 1)
        defer { parser.deallocate() }
        parser.initialize(to: GMarkupParser())
        parser.pointee.start_element = { _, name, _, _, elements, error in
            elements?.assumingMemoryBound(to: Int.self).pointee += 1
            guard let name, strchr(name, Int32(UInt8(ascii: ":"))) == nil else { return }
            g_set_error_literal(error, g_markup_error_quark(), Int32(G_MARKUP_ERROR_UNKNOWN_ELEMENT.rawValue), "an element without a namespace")
        }
        var elements = 0
        return withUnsafeMutablePointer(to: &elements) { counter in
            guard let context = g_markup_parse_context_new(parser, GMarkupParseFlags(rawValue: 0), counter, nil) else { return false }
            defer { g_markup_parse_context_free(context) }
            let parsed = bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { g_markup_parse_context_parse(context, $0.baseAddress, gssize(buffer.count), nil) != 0 }
            }
            return parsed && g_markup_parse_context_end_parse(context, nil) != 0 && counter.pointee > 0
        }
    }

    /// Whether the packet may hold a GPS position: a property of any namespace whose name
    /// starts with GPS, whatever the case (the EXIF schema's `exif:GPSLatitude`, a drone's
    /// `drone-dji:GpsLatitude`), as an element or an attribute. A plain search, erring on the
    /// side of leaving out: the packet is not rewritten, so one that holds a position is left
    /// out whole.
    static func holdsGPS(_ bytes: [UInt8]) -> Bool {
        let text = Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
        let gps = Array(":gps".utf8)
        guard text.count > gps.count else { return false }
        for index in 1...(text.count - gps.count) where text[index] == gps[0] && text[index..<(index + gps.count)].elementsEqual(gps) {
            // A namespace prefix before the colon: a letter, digit, `-` or `_`.
            let before = text[index - 1]
            if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(before) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(before)
                || before == UInt8(ascii: "-") || before == UInt8(ascii: "_") { return true }
        }
        return false
    }
}
