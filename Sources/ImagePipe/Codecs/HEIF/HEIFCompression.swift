import CHeif

/// The coding inside a HEIF container, as libheif names it, and the Debian package of the libheif
/// plugin that decodes it: each codec that reads through libheif says which it holds.
struct HEIFCompression: Sendable {
    let libheif: heif_compression_format
    /// `AV1`, `HEVC`.
    let name: String
    let plugin: String
}
