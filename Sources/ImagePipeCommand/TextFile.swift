import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Reads a pipeline file as UTF-8 text.
enum TextFile {
    /// The text of the pipeline file at `path` (at most 1 MiB), read without waiting on a FIFO
    /// that nobody writes to.
    static func read(_ path: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try ImageFile.readAll(path: path, limit: 1 << 20)
        } catch let error as ImageError where error.kind == .tooLarge {
            throw UsageError("pipeline '\(path)' is larger than 1 MiB; is it a pipeline file?")
        } catch let error as ImageError {
            throw UsageError("cannot read pipeline '\(path)': \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("pipeline '\(path)' is not UTF-8 text")
        }
        return text
    }
}
