#if canImport(Glibc)
import Glibc
#endif

/// Whole-stream reads and writes on the process's standard input and output, for `-` paths.
public enum StandardStreams {
    public static func writeToStandardOutput(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let result = write(STDOUT_FILENO, bytes.baseAddress! + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw ImageError(.unwritable, path: "-", reason: ImageFile.systemMessage())
            }
            written += result
        }
    }

    /// Every byte of standard input; more than `limit` is an error as soon as it is read
    /// (`< /dev/zero` fails within the limit, instead of exhausting memory).
    public static func readStandardInput(limit: Int? = LoadOptions.defaultMaxInputBytes) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ImageError(.unreadable, path: "-", reason: ImageFile.systemMessage())
            }
            if count == 0 { return bytes }
            if let limit, bytes.count + count > limit { throw ImageError.tooManyBytes(limit: limit, path: "-") }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
