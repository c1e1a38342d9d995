#if canImport(Glibc)
import Glibc
#endif

/// Messages for people on standard error, results on standard output. Writes go straight to
/// the file descriptors: C's `stderr`/`stdout` globals are not concurrency-safe in Swift 6.
enum Console {
    static func error(_ message: String) { write("imagepipe: \(message)\n", to: STDERR_FILENO) }
    static func warning(_ message: String) { write("imagepipe: warning: \(message)\n", to: STDERR_FILENO) }
    static func diagnostics(_ text: String) { write(text + "\n", to: STDERR_FILENO) }
    static func output(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            bytes = bytes.dropFirst(count)
        }
    }
}
