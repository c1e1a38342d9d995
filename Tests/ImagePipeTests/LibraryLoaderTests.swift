import CLibraryLoader
import Testing

/// The loader behind the libraries opened on first use (libheif, libavif): a library that is
/// there opens once and stays open; one that is not gives the loader's reason, not a crash.
struct LibraryLoaderTests {
    @Test func aLibraryThatIsThereOpensOnceAndStaysOpen() throws {
        var reason: UnsafePointer<CChar>?
        let first = imagepipe_open_library("libz.so.1", &reason)
        #expect(first != nil && reason == nil)
        #expect(imagepipe_open_library("libz.so.1", &reason) == first)
        let function = imagepipe_library_function("libz.so.1", "zlibVersion")
        typealias Version = @convention(c) () -> UnsafePointer<CChar>
        let version = String(cString: unsafeBitCast(function, to: Version.self)())
        #expect(version.hasPrefix("1."), "\(version)")
    }

    @Test func aMissingLibraryGivesItsReasonEveryTime() {
        for _ in 0..<2 {
            var reason: UnsafePointer<CChar>?
            #expect(imagepipe_open_library("libimagepipe-absent.so.9", &reason) == nil)
            let message = reason.map { String(cString: $0) } ?? ""
            #expect(message.contains("libimagepipe-absent.so.9"), "\(message)")
        }
    }
}
