#if canImport(Glibc)
import Glibc
#endif

/// Where an encoder puts the bytes it makes: memory, handed back whole, or an open file written
/// as they come (the temporary file of an atomic save), so that a run never holds its output
/// file besides the pixels.
final class EncoderOutput {
    /// The file written to; nil for memory.
    let descriptor: Int32?
    /// Whether the file may be written anywhere in it (a regular file, not a FIFO or a device):
    /// libtiff writes the header last.
    let seekable: Bool
    /// What was written, for memory.
    private(set) var bytes: [UInt8] = []
    /// Bytes written so far.
    private(set) var count = 0

    /// Into memory.
    init() {
        descriptor = nil
        seekable = false
    }

    /// Into the open file `descriptor`, from where it stands.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        seekable = lseek(descriptor, 0, SEEK_CUR) >= 0
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws {
        count += buffer.count
        guard let descriptor else {
            bytes.append(contentsOf: buffer.bindMemory(to: UInt8.self))
            return
        }
        var written = 0
        while written < buffer.count {
            let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            if result < 0 {
                guard errno == EINTR else { throw ImageError(.unwritable, reason: ImageFile.systemMessage()) }
            } else {
                written += result
            }
        }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Says that `size` bytes were written to the file behind this output's back (libtiff's pwrite).
    func wroteDirectly(_ size: Int) {
        count += size
    }
}
