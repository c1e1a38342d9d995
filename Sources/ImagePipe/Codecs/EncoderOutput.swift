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
        guard let descriptor else {
            bytes.append(contentsOf: buffer.bindMemory(to: UInt8.self))
            return
        }
        if let failure = ImageFile.writeAll(buffer, to: descriptor) { throw ImageError(.unwritable, reason: failure) }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}
