import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Reads a pipeline file as UTF-8 text.
enum TextFile {
    /// The text of the pipeline file at `path` (at most 1 MiB), read without waiting on a FIFO
    /// that nobody writes to. A picture given where the pipeline goes is answered with
    /// `converting`, the command line that converts it.
    static func read(_ path: String, converting: @autoclosure () -> String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try ImageFile.readAll(path: path, limit: 1 << 20)
        } catch let error as ImageError where error.kind == .tooLarge {
            try refusePicture(ImageFile.leadingBytes(path: path), path: path, converting: converting())
            throw UsageError("pipeline '\(path)' is larger than 1 MiB; is it a pipeline file?")
        } catch let error as ImageError {
            throw UsageError("cannot read pipeline '\(path)': \(error.reason)")
        }
        try refusePicture(bytes, path: path, converting: converting())
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("pipeline '\(path)' is not UTF-8 text")
        }
        return text
    }

    /// Refuses `bytes` that begin as a picture does (`run photo.gif -o x.webp`: every name after
    /// the pipeline is an input, so the picture was taken for the pipeline).
    private static func refusePicture(_ bytes: [UInt8], path: String, converting: String) throws {
        guard let format = ImageFormat.sniff(bytes) else { return }
        throw UsageError("'\(path)' is \(format.article) \(format.displayName) picture, not a pipeline: to convert it, run \(converting)")
    }
}
