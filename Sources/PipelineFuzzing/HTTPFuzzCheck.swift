import ImagePipe
import ImagePipeCommand
import ImagePipeStages

/// What the HTTP fuzzer checks for any bytes, read as what a client sends `imagepipe serve`:
///
/// - as a request head (libsoup's parser, then the path and query as libsoup's server hands them
///   on): Range and If-Range are gone once the server has passed them over; the address is
///   answered with a picture (200) or refused with 400, 403 or 404 and a reason; an answered
///   source is an HTTP(S) URL or a path under the root (no empty, `.` or `..` segment, no NUL),
///   answered in one of the five served formats; the same address signed with the right
///   signature is read the same, and with a wrong one refused (403);
/// - as an Accept header (the head's, and all the bytes as one): the chosen format is one of the
///   five served, has the highest weight of the candidates (so a type given `q=0` is never
///   chosen while another is acceptable; AVIF and WebP only when named), is the source's own or
///   JPEG when none is acceptable, and does not change with the case of ASCII letters;
/// - as the name of a source: the address `imagepipe url` writes for it, sent as a request, is
///   read back by the server as that source, pipeline and format.
public enum HTTPFuzzCheck {
    static let compiler = StandardPlugins.compiler
    static let key = Array("imagepipe-fuzz-key".utf8), salt = Array("imagepipe-fuzz-salt".utf8)
    static let etag = "\"4f1d2c3b4a5968778695a4b3c2d1e0f0\""
    static let served = ImagePipeCommand.servedMediaTypes
    /// A source in another served format, one in WebP (its own format, taken by any range), and
    /// one in no served format (JPEG the fallback).
    static let sourceNames = ["a.png", "a.webp", "a.tiff"]
    static let pipelines = ["", "resize 300x200", "rotate 90 | flip"]
    static let canonical = pipelines.map { try? compiler.compile($0).text }

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let data = Array(bytes)
        if let head = ImagePipeCommand.servedRequestHead(data) {
            precondition(!head.rangesLeft, "a Range or If-Range header is left for libsoup to answer")
            checkAddress(head.path, accept: head.accept, ifNoneMatch: head.ifNoneMatch)
            checkAccept(head.accept)
        }
        let text = String(decoding: data, as: UTF8.self)
        checkAccept(text)
        checkRoundTrip(source: text, choice: data.count)
    }

    static func checkAddress(_ path: String, accept: String?, ifNoneMatch: String?) {
        let decision = ImagePipeCommand.servedDecision(path: path, accept: accept, ifNoneMatch: ifNoneMatch, key: nil, salt: [],
                                                       compiler: compiler, etag: etag)
        let about = path.debugDescription
        guard decision.status == 200 else {
            precondition([400, 403, 404].contains(decision.status), "\(about) refused with \(decision.status)")
            precondition(!(decision.message ?? "").isEmpty, "\(about) refused (\(decision.status)) without a reason")
            checkSignatures(path, unsigned: decision, accept: accept)
            return
        }
        precondition(decision.message == nil, "\(about) answered with a reason")
        guard let source = decision.source, let mediaType = decision.mediaType, decision.pipeline != nil else {
            preconditionFailure("\(about) answered without a source, format or pipeline")
        }
        precondition(served.contains(mediaType), "\(about) answered in \(mediaType)")
        if decision.isOrigin {
            precondition(source.hasPrefix("http://") || source.hasPrefix("https://"), "\(about): an origin source \(source.debugDescription)")
        } else {
            precondition(source.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." && !$0.utf8.contains(0) },
                         "\(about): the source \(source.debugDescription) is not a path under the root")
        }
        if decision.negotiated {
            let name = source.split(separator: "?").first.map(String.init) ?? ""
            precondition(mediaType == ImagePipeCommand.negotiatedMediaType(accept: accept, sourceName: name),
                         "\(about): negotiated \(mediaType), not as Accept \(String(describing: accept)) says")
        }
        checkSignatures(path, unsigned: decision, accept: accept)
    }

    /// The address signed with the right signature reads as unsigned; with a wrong one, 403.
    static func checkSignatures(_ path: String, unsigned: ImagePipeCommand.ServedDecision, accept: String?) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard path.hasPrefix("/"), segments.count >= 3 else { return }
        let rest = "/" + segments.dropFirst(2).joined(separator: "/")
        let right = ImagePipeCommand.servedSignature(of: rest, key: key, salt: salt)
        let signed = ImagePipeCommand.servedDecision(path: "/" + right + rest, accept: accept, ifNoneMatch: "W/\"x\", " + etag, key: key,
                                                     salt: salt, compiler: compiler, etag: etag)
        precondition(signed.notModified == (signed.status == 200), "\(path.debugDescription): If-None-Match naming the entity tag is not 304")
        precondition(signed.status == unsigned.status && signed.source == unsigned.source && signed.pipeline == unsigned.pipeline
                     && signed.mediaType == unsigned.mediaType,
                     "\(path.debugDescription) signed reads as \(signed.status) \(String(describing: signed.message)), unsigned as \(unsigned.status)")
        if segments[1] != right {
            let wrong = ImagePipeCommand.servedDecision(path: path, accept: accept, ifNoneMatch: nil, key: key, salt: salt, compiler: compiler, etag: etag)
            precondition(wrong.status == 403, "\(path.debugDescription) with a wrong signature answered \(wrong.status)")
        }
    }

    static func checkAccept(_ accept: String?) {
        for name in sourceNames {
            let chosen = ImagePipeCommand.negotiatedMediaType(accept: accept, sourceName: name)
            precondition(served.contains(chosen), "Accept \(String(describing: accept)) chose \(chosen)")
            func weight(_ type: String, _ wildcards: Bool) -> Double {
                let value = ImagePipeCommand.acceptWeight(accept, of: type, wildcards: wildcards)
                precondition(value >= 0 && value <= 1, "Accept \(String(describing: accept)) weighs \(type) \(value)")
                return value
            }
            // The candidates: AVIF and WebP when named, the source's own format and JPEG by any range.
            let own = ImagePipeCommand.negotiatedMediaType(accept: "image/*;q=0", sourceName: name)
            let candidates = [("image/avif", weight("image/avif", false)), ("image/webp", weight("image/webp", false)),
                              (own, weight(own, true)), ("image/jpeg", weight("image/jpeg", true))]
            let best = candidates.map(\.1).max()!
            if best > 0 {
                let chosenWeight = candidates.filter { $0.0 == chosen }.map(\.1).max() ?? 0
                precondition(chosenWeight == best, "Accept \(String(describing: accept)) chose \(chosen) (\(chosenWeight)) for \(name) over one weighing \(best)")
            } else {
                precondition(chosen == own, "Accept \(String(describing: accept)) accepts nothing served, and \(chosen) was chosen for \(name), not \(own)")
            }
            if let accept, name == sourceNames[0] {
                let flipped = String(String.UnicodeScalarView(accept.unicodeScalars.map { scalar in
                    guard scalar.isASCII, let letter = Character(scalar).asciiValue, Character(scalar).isLetter else { return scalar }
                    return Unicode.Scalar(letter ^ 0x20)
                }))
                let again = ImagePipeCommand.negotiatedMediaType(accept: flipped, sourceName: name)
                precondition(again == chosen, "Accept \(accept.debugDescription) chose \(chosen), the same in other case \(again)")
            }
        }
    }

    /// The address `imagepipe url` writes for `source`, sent as a request, reads back as it.
    static func checkRoundTrip(source: String, choice: Int) {
        let pipeline = pipelines[choice % 3]
        let format: ImageFormat? = [nil, .webp, .png, .jpeg][choice / 3 % 4]
        let (path, sent) = ImagePipeCommand.servedAddress(pipeline: pipeline, source: source, format: format, key: key, salt: salt)
        let request = Array("GET \(sent) HTTP/1.1\r\nHost: fuzz.example\r\nAccept: image/webp,*/*\r\n\r\n".utf8)
        let about = "the address of \(source.debugDescription) (\(sent))"
        // What libsoup refuses itself (an escaped NUL) or reads otherwise (GLib takes out `.` and
        // `..` segments as it parses the URI): not a round trip.
        guard !source.utf8.contains(0), !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else { return }
        guard let head = ImagePipeCommand.servedRequestHead(request) else { preconditionFailure("\(about) is refused by libsoup") }
        precondition(head.path == path, "\(about) reached the server as \(head.path.debugDescription), not \(path.debugDescription)")
        let decision = ImagePipeCommand.servedDecision(path: head.path, accept: head.accept, ifNoneMatch: nil, key: key, salt: salt,
                                                       compiler: compiler, etag: etag)
        let isWeb = source.hasPrefix("http://") || source.hasPrefix("https://")
        let underRoot = source.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        // An address names its format after its last `@` (`x@webp`): a source so named without a
        // format is read as that format, as documented; not a round trip.
        let tail = source.lastIndex(of: "@").map { source[source.index(after: $0)...] }
        let namesFormat = format == nil && tail.map { !$0.contains("/") && !$0.contains(".") } == true
        guard (isWeb || underRoot) && !namesFormat else {
            precondition(decision.status != 200 || namesFormat, "\(about) answered, its source not under the root")
            return
        }
        precondition(decision.status == 200, "\(about) refused: \(decision.status) \(decision.message ?? "")")
        precondition(decision.source == source, "\(about) read as the source \(String(describing: decision.source))")
        precondition(decision.pipeline == canonical[choice % 3], "\(about) read as the pipeline \(String(describing: decision.pipeline))")
        if let format {
            let expected = ImagePipeCommand.negotiatedMediaType(accept: nil, sourceName: "a." + format.fileExtension)
            precondition(decision.mediaType == expected && !decision.negotiated, "\(about) answered in \(String(describing: decision.mediaType))")
        }
    }
}
