import Testing
import ImagePipe
@testable import ImagePipeCommand
import TestSupport

/// What format `imagepipe serve` answers in: `Accept` read as RFC 9110 media ranges with
/// weights (not by substring), and only the five formats the service documents, each with its
/// registered media type; an address asking for another is refused (400).
@Suite struct ServeNegotiationTests {
    private func negotiated(_ accept: String?, source: ImageFormat? = .jpeg) -> ImageFormat {
        ServedFormat.negotiated(accept: AcceptHeader(accept), source: source).format
    }

    @Test func weightsAndWholeTypesDecide() {
        // Browsers' headers.
        #expect(negotiated("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8") == .avif)
        #expect(negotiated("image/webp,*/*") == .webp)
        #expect(negotiated("image/avif,image/webp,*/*") == .avif)
        // q=0 is "not acceptable", not a mention.
        #expect(negotiated("image/avif;q=0, image/jpeg") == .jpeg)
        #expect(negotiated("image/avif;q=0, image/webp;q=0, */*", source: .png) == .png)
        // A type is compared whole.
        #expect(negotiated("image/webpx") == .jpeg)
        #expect(negotiated("image/avif2, image/webp-like;q=1") == .jpeg)
        #expect(negotiated("x-image/webp") == .jpeg)
        // The higher weight wins; equal weights go the server's way (AVIF, WebP, own, JPEG).
        #expect(negotiated("image/webp, image/avif;q=0.5") == .webp)
        #expect(negotiated("image/webp;q=0.5, image/avif;q=0.9") == .avif)
        #expect(negotiated("image/webp;q=0.4, image/*;q=0.9", source: .png) == .png)
        #expect(negotiated("image/webp, image/avif") == .avif)
        // Case, spaces and other parameters do not matter.
        #expect(negotiated("IMAGE/WebP ; charset=x ; Q=0.7 , image/jpeg;q=0.5") == .webp)
        // A malformed weight drops that range alone.
        #expect(negotiated("image/avif;q=2, image/webp;q=0.9") == .webp)
        #expect(negotiated("image/avif;q=abc") == .jpeg)
    }

    @Test func wildcardsOfferOnlyWhatEveryClientReads() {
        // curl and older browsers send */* or image/*: the source's own format, else JPEG.
        #expect(negotiated("*/*") == .jpeg)
        #expect(negotiated("image/*", source: .png) == .png)
        #expect(negotiated("*/*", source: .webp) == .webp)
        #expect(negotiated(nil, source: .gif) == .gif)
        #expect(negotiated(nil, source: nil) == .jpeg)
        // A source in a format not served is answered in JPEG.
        #expect(negotiated("*/*", source: .tiff) == .jpeg)
        #expect(negotiated(nil, source: .bmp) == .jpeg)
        // Nothing acceptable: the source's own or JPEG all the same (RFC 9110 lets the server
        // disregard the header).
        #expect(negotiated("text/html", source: .png) == .png)
        #expect(negotiated("image/jpeg;q=0", source: nil) == .jpeg)
        // The own format's weight counts against the modern ones'.
        #expect(negotiated("image/png, image/webp;q=0.5", source: .png) == .png)
    }

    @Test func theMostSpecificRangeGivesTheWeight() {
        let accept = AcceptHeader("*/*;q=0.1, image/*;q=0.5, image/png;q=0.9, image/gif;q=0")
        #expect(accept.quality(of: "image/png", wildcards: true) == 0.9)
        #expect(accept.quality(of: "image/jpeg", wildcards: true) == 0.5)
        #expect(accept.quality(of: "image/gif", wildcards: true) == 0)
        #expect(accept.quality(of: "text/plain", wildcards: true) == 0.1)
        #expect(accept.quality(of: "image/jpeg", wildcards: false) == 0)
        #expect(AcceptHeader("").quality(of: "image/jpeg", wildcards: true) == 0)
        #expect(AcceptHeader("*/png").ranges.isEmpty)
    }

    @Test func onlyTheDocumentedFormatsAreServed() throws {
        #expect(ServedFormat.all.map(\.format) == [.avif, .webp, .jpeg, .png, .gif])
        #expect(ServedFormat.all.map(\.mediaType) == ["image/avif", "image/webp", "image/jpeg", "image/png", "image/gif"])
        for format in [ImageFormat.tiff, .bmp, .ico] { #expect(ServedFormat(format) == nil) }
        // `@extension`: the five served, others refused with a 400 that names what is served.
        for (name, format) in [("jpg", ImageFormat.jpeg), ("jpeg", .jpeg), ("png", .png), ("webp", .webp), ("avif", .avif), ("gif", .gif)] {
            #expect(try ImageURL(path: "/_/-/a.jpg@\(name)").format == format)
        }
        for name in ["tiff", "tif", "bmp", "ico", "xyz"] {
            #expect(throws: ServeError.self) { try ImageURL(path: "/_/-/a.jpg@\(name)") }
            do {
                _ = try ImageURL(path: "/_/-/a.jpg@\(name)")
            } catch {
                #expect(error.status == 400 && error.message.contains("jpg, png, webp, avif or gif"), "\(error.message)")
            }
        }
        // imgproxy's f: and its extension after a base64 source.
        do {
            _ = try ImageURL(path: "/_/w:10/f:bmp/plain/local:///a.jpg")
            Issue.record("f:bmp was served")
        } catch {
            #expect(error.status == 400 && error.message.contains("BMP"), "\(error.message)")
        }
        #expect(throws: ServeError.self) { try ImageURL(path: "/_/w:10/" + URLSignature.base64URL(Array("local:///a.jpg".utf8)) + ".ico") }
        #expect(try ImageURL(path: "/_/w:10/f:webp/plain/local:///a.jpg").format == .webp)
    }

    @Test func urlWritesOnlyServedFormats() throws {
        let refused = try CommandRunner.run(["url", "--unsigned", "resize 10x", "a.jpg", "--format", "tiff"])
        #expect(refused.status == 2 && refused.standardError.contains("jpg, png, webp, avif or gif"), "\(refused.standardError)")
    }
}
