import ImagePipe

/// A served picture's address: `/{signature}/{pipeline}/{source}[@{extension}]`.
///
/// The pipeline is the language's text (stages only: the server loads the source and writes the
/// response) in URL-safe base64 without padding (RFC 4648 §5; `resize 300x200` is
/// `cmVzaXplIDMwMHgyMDA`), so that no character of it needs escaping; `-` stands for no stage.
/// The source is a path under the server's root, or an `http://` or `https://` URL under one of
/// the server's `--origin` prefixes; `@webp`, `@avif`, `@jpg`, `@png`, `@gif` after it
/// asks for that format (imgproxy's form). The signature signs the path after it as the server
/// reads it, percent-escapes decoded: for an address without escapes (every one `imagepipe url`
/// writes for plain file names, and imgproxy's) that is the path as sent.
struct ImageURL: Sendable {
    let signature: String
    /// What the signature signs: the address from the `/` after the signature, decoded.
    let signedPath: String
    /// The pipeline's text; empty for the picture as it is.
    let pipeline: String
    /// The source's path under the root, or its URL when `isOrigin`.
    let source: String
    /// Whether the source is an HTTP(S) URL, fetched from its origin.
    let isOrigin: Bool
    /// The format `@extension` asks for: one the server answers in (`ServedFormat`).
    let format: ImageFormat?

    /// The address `path`, its percent-escapes already decoded (libsoup decodes them): nothing
    /// is decoded twice, so `%252e%252e` stays a name and never becomes `..`. imgproxy's forms
    /// are read too: `/SIGNATURE/OPTIONS…/plain/local:///SOURCE[@EXT]` and
    /// `/SIGNATURE/OPTIONS…/BASE64_SOURCE_URL[.EXT]` (`ImgproxyOptions`).
    init(path: String) throws(ServeError) {
        (signature, signedPath) = try Self.signed(path)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let rest = Array(segments.dropFirst())
        // imgproxy's options hold a colon; this form's pipeline (base64 or `-`) never does.
        let optionCount = rest.prefix { $0.contains(":") }.count
        if optionCount > 0 || rest.count == 1 || rest[0] == "plain" {
            let options = try ImgproxyOptions(Array(rest[..<optionCount]))
            var source: String, format: ImageFormat?
            if rest.count > optionCount + 1, rest[optionCount] == "plain" {
                (source, format) = try Self.splitFormat(rest[(optionCount + 1)...].joined(separator: "/"), at: "@")
            } else {
                let encoded: String
                (encoded, format) = try Self.splitFormat(rest[optionCount...].joined(), at: ".")
                guard let bytes = Self.base64URLDecoded(encoded), let text = String(validating: bytes, as: UTF8.self) else {
                    throw ServeError(400, "the source is neither plain/… nor URL-safe base64")
                }
                source = text
            }
            pipeline = options.pipeline
            self.format = format ?? options.format
            isOrigin = Self.isWeb(source)
            guard isOrigin || source.hasPrefix("local:///") else {
                throw ServeError(400, "the source is neither a local:/// file under the root nor an http:// or https:// URL")
            }
            self.source = isOrigin ? source : try Self.checked(String(source.dropFirst("local:///".count)))
            return
        }
        guard segments.count >= 3 else { throw ServeError(404, "no picture here: addresses are /SIGNATURE/PIPELINE/SOURCE") }
        if segments[1] == "-" {
            pipeline = ""
        } else {
            guard let bytes = Self.base64URLDecoded(segments[1]), let text = String(validating: bytes, as: UTF8.self) else {
                throw ServeError(400, "the pipeline segment is not URL-safe base64 of UTF-8 text (imagepipe url writes it)")
            }
            pipeline = text
        }
        let (source, format) = try Self.splitFormat(segments.dropFirst(2).joined(separator: "/"), at: "@")
        self.format = format
        isOrigin = Self.isWeb(source)
        self.source = isOrigin ? source : try Self.checked(source)
    }

    /// Whether `source` is an HTTP(S) URL rather than a path.
    private static func isWeb(_ source: String) -> Bool { source.hasPrefix("http://") || source.hasPrefix("https://") }

    /// The signature segment of `path`, and the rest that it signs: read before anything else
    /// of the address, so that an unsigned request learns nothing of how the rest would be read.
    static func signed(_ path: String) throws(ServeError) -> (signature: String, rest: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), segments.count >= 2 else {
            throw ServeError(404, "no picture here: addresses are /SIGNATURE/PIPELINE/SOURCE")
        }
        return (String(segments.first!), "/" + segments.dropFirst().joined(separator: "/"))
    }

    /// `text` cut at its last `separator` into what comes before and the format named after it.
    private static func splitFormat(_ text: String, at separator: Character) throws(ServeError) -> (String, ImageFormat?) {
        // A bare extension only: `x@2x.png` is a file's name, not `x` as PNG.
        guard let at = text.lastIndex(of: separator) else { return (text, nil) }
        let name = String(text[text.index(after: at)...])
        guard !name.contains("/"), !name.contains(".") else { return (text, nil) }
        return (String(text[..<at]), try ServedFormat(named: name, in: "'\(separator)\(name)'").format)
    }

    /// `source` when it is a path under the root: no segment empty, `.` or `..`, no NUL.
    private static func checked(_ source: String) throws(ServeError) -> String {
        for name in source.split(separator: "/", omittingEmptySubsequences: false)
        where name.isEmpty || name == "." || name == ".." || name.utf8.contains(0) {
            throw ServeError(403, "the source must be a path under the server's root, without empty, '.' or '..' segments")
        }
        return source
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
