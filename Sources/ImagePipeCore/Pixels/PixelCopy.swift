/// Copies pixels between rows of 3 or 4 channels: the same layout in one copy, RGB into RGBA
/// with alpha 255 (an opaque picture placed on a translucent canvas), RGBA into RGB without
/// its alpha.
package enum PixelCopy {
    package static func copy(_ count: Int, from source: UnsafePointer<UInt8>, channels inChannels: Int,
                             to target: UnsafeMutablePointer<UInt8>, channels outChannels: Int) {
        guard inChannels != outChannels else {
            target.update(from: source, count: count * inChannels)
            return
        }
        for x in 0..<count {
            let s = source + x * inChannels, t = target + x * outChannels
            t[0] = s[0]; t[1] = s[1]; t[2] = s[2]
            if outChannels == 4 { t[3] = 255 }
        }
    }
}
