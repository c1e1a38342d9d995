import CSpng

/// How a PNG's rows are asked of libspng (`PNGDecoder`) and placed in the picture.
struct PNGRowLayout {
    let width: Int
    let sixteen: Bool
    let alpha: Bool
    var channels: Int { alpha ? 4 : 3 }
    /// 16-bit samples come as RGBA16 and are rounded here; the rest as libspng's RGB8 or RGBA8.
    var format: Int32 { Int32((sixteen ? SPNG_FMT_RGBA16 : alpha ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8).rawValue) }
    var flags: Int32 { alpha ? Int32(SPNG_DECODE_TRNS.rawValue) : 0 }
    /// Bytes of one row as libspng writes it.
    var rowBytes: Int { sixteen ? width * 8 : width * channels }

    /// Rounds a row of RGBA16 samples (host order) into `channels` bytes a pixel.
    func round(_ samples: UnsafePointer<UInt16>, into row: UnsafeMutablePointer<UInt8>) {
        let channels = channels
        for x in 0..<width {
            for c in 0..<channels {
                row[x * channels + c] = UInt8((UInt32(samples[x * 4 + c]) * 255 + 32_767) / 65_535)
            }
        }
    }
}
