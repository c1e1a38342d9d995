#if canImport(Glibc)
import Glibc
#endif

/// Whole-stream reads and writes on the process's standard input and output, for `-` paths.
package enum StandardStreams {
    package static func writeToStandardOutput(_ bytes: UnsafeRawBufferPointer) throws {
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
    /// (`< /dev/zero` fails within the limit, instead of exhausting memory), and so is a stream
    /// still open after `seconds` (a writer trickling a byte a second would otherwise hold the
    /// run for as long as it likes: the command's `--timeout` starts with the read).
    package static func readStandardInput(limit: Int? = LoadOptions.defaultMaxInputBytes, seconds: Double? = nil) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let clock = ContinuousClock()
        let deadline = seconds.map { clock.now + .milliseconds(Int64($0 * 1000)) }
        while true {
            if let deadline {
                let left = clock.now.duration(to: deadline)
                var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let milliseconds = left <= .zero ? 0 : Int32(min(Int64(Int32.max), left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
                let polled = poll(&ready, 1, milliseconds)
                if polled < 0 && errno == EINTR { continue }
                if polled == 0 {
                    let shown = seconds.map { $0 == $0.rounded() ? "\(Int($0)) s" : "\($0) s" } ?? ""
                    throw ImageError(.timedOut, path: "-", reason: "standard input was still open after \(shown), the time limit, with \(bytes.count) bytes read; nothing written")
                }
            }
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
