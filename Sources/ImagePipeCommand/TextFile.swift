import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Reads a pipeline file as UTF-8 text.
enum TextFile {
    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else {
            throw UsageError("cannot read pipeline '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<count]
            if count < chunk.count { break }
            if bytes.count > 1 << 20 { throw UsageError("pipeline '\(path)' is larger than 1 MiB; is it a pipeline file?") }
        }
        if ferror(file) != 0 { throw UsageError("cannot read pipeline '\(path)': \(String(cString: strerror(errno)))") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("pipeline '\(path)' is not UTF-8 text")
        }
        return text
    }
}
