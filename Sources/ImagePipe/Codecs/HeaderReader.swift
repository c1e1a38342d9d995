/// Reads a file's header from its first chunks as they are read, taking only what its format
/// needs (`Codec.headerReader`): a JPEG's segments up to the frame header, a PNG's chunks
/// before its image data, a GIF's blocks to count its frames, nothing at all of a TIFF or WebP
/// file (their readers go where they need to), the whole file for a format read from memory.
protocol HeaderReader {
    /// Takes the next chunk of the file; false once no more is needed.
    mutating func take(_ chunk: UnsafeRawBufferPointer) throws -> Bool
    /// The header, from what was taken; `path` names the file in errors.
    func finished(path: String) throws -> ImageHeader
}
