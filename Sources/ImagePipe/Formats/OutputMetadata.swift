/// The blocks an encoder embeds beside the pixels.
struct OutputMetadata: Sendable {
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?
}
