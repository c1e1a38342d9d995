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

    /// Whether the packet holds a GPS position: an `exif:GPS…` property (the EXIF schema's
    /// GPSLatitude, GPSLongitude and the rest), as an element or an attribute, whatever prefix
    /// the packet binds the EXIF namespace to. A plain search, since the packet is not rewritten:
    /// one that holds a position is left out whole.
    static func holdsGPS(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        var prefixes: Set<String> = ["exif"]
        // xmlns:NAME="http://ns.adobe.com/exif/1.0/"
        for part in text.split(separator: "xmlns:", omittingEmptySubsequences: false).dropFirst() {
            let name = part.prefix { $0 != "=" }
            if part.dropFirst(name.count).prefix(40).contains("http://ns.adobe.com/exif/1.0/") { prefixes.insert(String(name)) }
        }
        return prefixes.contains { text.contains("<\($0):GPS") || text.contains(" \($0):GPS") || text.contains("\n\($0):GPS") || text.contains("\t\($0):GPS") }
    }
}
