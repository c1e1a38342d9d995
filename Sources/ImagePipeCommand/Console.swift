import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Messages for people on standard error, results on standard output. Writes go straight to
/// the file descriptors: C's `stderr`/`stdout` globals are not concurrency-safe in Swift 6.
enum Console {
    /// An error on one line. Messages name files and quote what files said, anyone's text: it is
    /// shown through `TerminalText`, so an ESC or a line feed in it is printed as an escape.
    static func error(_ message: String) { write("imagepipe: \(TerminalText.escaped(message))\n", to: STDERR_FILENO) }
    /// A warning on one line, shown as `error` shows its message.
    static func warning(_ message: String) { write("imagepipe: warning: \(TerminalText.escaped(message))\n", to: STDERR_FILENO) }
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
