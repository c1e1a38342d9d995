/// File paths as the kernel sees them: bytes, split at the byte `/`, compared byte for byte.
///
/// Swift's `String` splits and compares by Character under canonical equivalence: `"/\u{200D}"`
/// (a slash and a joiner) is one Character that is not `"/"`, so `"../\u{200D}x"` does not split
/// into `..`; and `"café"` composed equals `"café"` decomposed, while to the file system they are
/// two different names. Every check that decides where a file goes uses these functions instead.
/// The byte `/` (and `.`) never occurs inside a multi-byte UTF-8 sequence, so cutting there always
/// leaves valid text.
package enum PathBytes {
    package static let slash = UInt8(ascii: "/")
    static let dot = UInt8(ascii: ".")

    /// The components between slashes, empty ones (from `//` or an end slash) dropped.
    package static func components(_ path: String) -> [String] {
        path.utf8.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the path starts at the root directory.
    package static func isAbsolute(_ path: String) -> Bool { path.utf8.first == slash }

    /// The file name: everything after the last slash.
    package static func lastComponent(_ path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slashIndex = bytes.lastIndex(of: slash) else { return path }
        return String(decoding: bytes[(slashIndex + 1)...], as: UTF8.self)
    }

    /// Everything up to and including the last slash; empty when there is none.
    package static func directoryPrefix(_ path: String) -> String {
        let bytes = Array(path.utf8)
        guard let slashIndex = bytes.lastIndex(of: slash) else { return "" }
        return String(decoding: bytes[...slashIndex], as: UTF8.self)
    }

    /// A file name split at its last dot: `IMG_1.jpg` → (`IMG_1`, `jpg`); a leading dot (`.profile`)
    /// does not start an extension.
    package static func splitExtension(_ name: String) -> (stem: String, ext: String?) {
        let bytes = Array(name.utf8)
        guard let dotIndex = bytes.lastIndex(of: dot), dotIndex > 0 else { return (name, nil) }
        return (String(decoding: bytes[..<dotIndex], as: UTF8.self), String(decoding: bytes[(dotIndex + 1)...], as: UTF8.self))
    }

    /// Whether two paths are the same bytes (not merely canonically equivalent text).
    package static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// The part of `path` below `directory`, when `path` starts with `directory` and a slash (byte
    /// for byte); nil otherwise.
    package static func relative(_ path: String, below directory: String) -> String? {
        var prefix = Array(directory.utf8)
        if prefix.last != slash { prefix.append(slash) }
        let bytes = Array(path.utf8)
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        return String(decoding: bytes[prefix.count...], as: UTF8.self)
    }

    /// Whether `path` is `directory` itself or lies below it, byte for byte (both canonical, as
    /// `realpath` gives them).
    package static func isWithin(_ path: String, _ directory: String) -> Bool {
        same(path, directory) || directory == "/" && isAbsolute(path) || relative(path, below: directory) != nil
    }

    /// `directory` and `name` joined with one slash.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.utf8.last == slash ? directory + name : directory + "/" + name
    }
}
