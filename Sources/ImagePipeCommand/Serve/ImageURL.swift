import ImagePipe

/// A served picture's address: `/{signature}/{pipeline}/{source}[@{extension}]`.
///
/// The pipeline is the language's text (stages only: the server loads the source and writes the
/// response) in URL-safe base64 without padding (RFC 4648 §5; `resize 300x200` is
/// `cmVzaXplIDMwMHgyMDA`), so that no character of it needs escaping; `-` stands for no stage.
/// The source is a path under the server's root; `@webp`, `@avif`, `@jpg`, `@png`, `@gif` after it
/// asks for that format (imgproxy's form). The signature signs the path after it as the server
/// reads it, percent-escapes decoded: for an address without escapes (every one `imagepipe url`
/// writes for plain file names, and imgproxy's) that is the path as sent.
struct ImageURL: Sendable, Equatable {
    let signature: String
    /// What the signature signs: the address from the `/` after the signature, decoded.
    let signedPath: String
    /// The pipeline's text; empty for the picture as it is.
    let pipeline: String
    /// The source's path under the root.
    let source: String
    /// The format `@extension` asks for.
    let format: ImageFormat?

    /// The address `path`, its percent-escapes already decoded (libsoup decodes them): nothing
    /// is decoded twice, so `%252e%252e` stays a name and never becomes `..`.
    init(path: String) throws(ServeError) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard path.hasPrefix("/"), segments.count >= 3 else {
            throw ServeError(404, "no picture here: addresses are /SIGNATURE/PIPELINE/SOURCE")
        }
        signature = segments[0]
        signedPath = "/" + segments.dropFirst().joined(separator: "/")
        if segments[1] == "-" {
            pipeline = ""
        } else {
            guard let bytes = Self.base64URLDecoded(segments[1]), let text = String(validating: bytes, as: UTF8.self) else {
                throw ServeError(400, "the pipeline segment is not URL-safe base64 of UTF-8 text (imagepipe url writes it)")
            }
            pipeline = text
        }
        var sourceSegments = Array(segments.dropFirst(2))
        var format: ImageFormat?
        if let last = sourceSegments.last, let at = last.lastIndex(of: "@") {
            let name = String(last[last.index(after: at)...])
            guard let asked = ImageFormat(fileName: "x." + name) else {
                throw ServeError(415, "'@\(name)' names no format this server writes; use @jpg, @png, @webp, @avif or @gif")
            }
            format = asked
            sourceSegments[sourceSegments.count - 1] = String(last[..<at])
        }
        self.format = format
        // The root confines every source: nothing climbs out, and no segment is empty.
        for name in sourceSegments where name.isEmpty || name == "." || name == ".." || name.utf8.contains(0) {
            throw ServeError(403, "the source must be a path under the server's root, without empty, '.' or '..' segments")
        }
        source = sourceSegments.joined(separator: "/")
    }

    /// The address of `source` through `pipeline` (empty: none) after the signature segment:
    /// `signed` is what a signature signs, `sent` the same with the source's bytes that are not
    /// letters, digits or `-._~/` percent-escaped.
    static func unsignedPath(pipeline: String, source: String, format: ImageFormat?) -> (signed: String, sent: String) {
        let stages = pipeline.trimmingSpaces().isEmpty ? "-" : URLSignature.base64URL(Array(pipeline.utf8))
        let suffix = format.map { "@" + $0.rawValue } ?? ""
        return ("/" + stages + "/" + source + suffix, "/" + stages + "/" + encode(source) + suffix)
    }

    /// Every byte but letters, digits and `-._~/` as `%XX`.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// URL-safe base64, with or without padding, or nil.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var bits = 0, count = 0
        var bytes: [UInt8] = []
        for character in text.utf8 where character != UInt8(ascii: "=") {
            let value: Int
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = Int(character) - 65
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = Int(character) - 71
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(character) + 4
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            bits = bits << 6 | value
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8((bits >> count) & 0xFF))
            }
        }
        return bytes
    }
}
