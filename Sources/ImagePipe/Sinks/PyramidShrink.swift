/// How a level's 2×2 pixel boxes become one pixel of the level below (libvips' `region-shrink`).
public enum PyramidShrink: String, CaseIterable, Hashable, Sendable {
    /// The boxes' mean, rounded to nearest (libvips' default): a box filter.
    case mean
    /// The top-left pixel of each box: no new colors (labels, masks, pixel art).
    case nearest
    /// The darkest of each channel: thin dark lines (text, drawings) stay visible far out.
    case min
    /// The lightest of each channel.
    case max

    /// Writes the row made of `top` and `bottom` (rows of `width` pixels of `channels` bytes)
    /// into `into`, `(width + 1) / 2` pixels wide. An odd last column pairs with itself, as
    /// libvips repeats a level's last pixel to make it even.
    func shrink(_ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, width: Int, channels: Int,
                into out: UnsafeMutablePointer<UInt8>) {
        // The switch outside the loops: the mean's loop is the one every pixel of a pyramid goes through.
        let pairs = width / 2
        switch self {
        case .mean:
            for x in 0..<pairs {
                let s = 2 * x * channels, t = x * channels
                for c in 0..<channels {
                    let sum = Int(top[s + c]) + Int(top[s + channels + c]) + Int(bottom[s + c]) + Int(bottom[s + channels + c])
                    out[t + c] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                }
            }
        case .nearest, .min, .max:
            for x in 0..<pairs { pick(top, bottom, left: 2 * x * channels, right: (2 * x + 1) * channels, channels: channels, into: out + x * channels) }
        }
        if width % 2 == 1 { // the last column pairs with itself
            let last = (width - 1) * channels
            if self == .mean {
                for c in 0..<channels {
                    out[pairs * channels + c] = UInt8(truncatingIfNeeded: (2 * Int(top[last + c]) + 2 * Int(bottom[last + c]) + 2) >> 2)
                }
            } else {
                pick(top, bottom, left: last, right: last, channels: channels, into: out + pairs * channels)
            }
        }
    }

    /// One pixel of `nearest`, `min` or `max` from the box whose columns start at `left` and `right`.
    private func pick(_ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>, left: Int, right: Int, channels: Int,
                      into target: UnsafeMutablePointer<UInt8>) {
        for c in 0..<channels {
            let a = top[left + c], b = top[right + c], d = bottom[left + c], e = bottom[right + c]
            target[c] = switch self {
            case .mean, .nearest: a
            case .min: Swift.min(Swift.min(a, b), Swift.min(d, e))
            case .max: Swift.max(Swift.max(a, b), Swift.max(d, e))
            }
        }
    }
}
