import CLCMS2
import Dispatch

/// One Little CMS transform from a profile to another for one pixel layout, made once and shared.
///
/// Making a transform parses both profiles and precomputes tables (milliseconds for a matrix
/// profile, tens of milliseconds for a CMYK one): a batch of phone photos, all with the same
/// Display P3 profile, must pay that once. Transforms are cached by the profiles' bytes, layout
/// and intent, and made without Little CMS's one-pixel cache (`cmsFLAGS_NOCACHE`), which is what
/// makes one transform safe to run from several threads at once.
final class ColorTransform: @unchecked Sendable {
    /// How pixels lie in memory on either side of a transform.
    enum Layout: Hashable, Sendable {
        case rgb, rgba, grey, greyInRGB, greyInRGBA, cmyk, lab, labAlpha

        var lcmsFormat: UInt32 {
            switch self {
            case .rgb: imagepipe_type_rgb_8
            case .rgba: imagepipe_type_rgba_8
            case .grey: imagepipe_type_gray_8
            case .greyInRGB: imagepipe_type_gray_in_rgb_8
            case .greyInRGBA: imagepipe_type_gray_in_rgba_8
            case .cmyk: imagepipe_type_cmyk_8
            case .lab: imagepipe_type_lab_8
            case .labAlpha: imagepipe_type_lab_alpha_8
            }
        }

        var bytesPerPixel: Int {
            switch self {
            case .rgb, .greyInRGB, .lab: 3
            case .rgba, .greyInRGBA, .cmyk, .labAlpha: 4
            case .grey: 1
            }
        }
    }

    private struct Key: Hashable {
        var source: [UInt8], target: [UInt8]
        var input: Layout, output: Layout
        var intent: RenderingIntent
    }

    private let handle: cmsHTRANSFORM
    let input: Layout, output: Layout

    private init(handle: cmsHTRANSFORM, input: Layout, output: Layout) {
        self.handle = handle
        self.input = input
        self.output = output
    }

    deinit { cmsDeleteTransform(handle) }

    /// The most transforms kept; a batch rarely holds more than a few distinct profiles.
    private static let capacity = 16
    private static let cache = Locked<[Key: ColorTransform]>([:])

    /// How many times this transform was found in the cache rather than made, for tests of the
    /// cache (a count per transform: tests running beside each other make transforms of their own).
    /// Only read and written under the cache's lock.
    private var reuses = 0

    /// How many times the transform for these profiles and layouts was reused; nil when none is cached.
    static func reuseCount(from source: [UInt8], to target: [UInt8], input: Layout, output: Layout, intent: RenderingIntent) -> Int? {
        cache.withLock { $0[Key(source: source, target: target, input: input, output: output, intent: intent)]?.reuses }
    }

    /// The transform from `source` to `target` for these layouts, from the cache when made before.
    static func make(from source: ICCProfile, to target: ICCProfile, input: Layout, output: Layout,
                     intent: RenderingIntent) throws -> ColorTransform {
        let key = Key(source: source.bytes, target: target.bytes, input: input, output: output, intent: intent)
        // Made under the lock: Little CMS reads a profile's tags lazily, so two transforms made
        // from one shared profile at once would race. Making one is rare; using one is not locked.
        return try cache.withLock { cache in
            if let found = cache[key] {
                found.reuses += 1
                return found
            }
            // Alpha is copied by Little CMS only between layouts with the same extra channels.
            let copiesAlpha = (input == .rgba || input == .labAlpha) && output == .rgba
            var flags = UInt32(cmsFLAGS_NOCACHE) | (copiesAlpha ? UInt32(cmsFLAGS_COPY_ALPHA) : 0)
            // CMYK profiles are 4-D tables: the default precalculated grid left results 2 levels
            // from transicc's; the high-resolution grid keeps them within 1.
            if input == .cmyk { flags |= UInt32(cmsFLAGS_HIGHRESPRECALC) }
            // Lab through any precalculated table left white 254,255,254 and black 1,0,1; the
            // pipeline evaluated for every pixel gives 255 and 0 (some 0.2 s a megapixel a core).
            if input == .lab || input == .labAlpha { flags |= UInt32(cmsFLAGS_NOOPTIMIZE) }
            guard let handle = cmsCreateTransform(source.handle, input.lcmsFormat, target.handle, output.lcmsFormat,
                                                  intent.lcmsValue, flags) else {
                let name = source.name.isEmpty ? "its ICC profile" : "its ICC profile '\(source.name)'"
                throw ImageError(.corrupt, reason: "\(name) cannot be used to convert \(input) pixels")
            }
            let transform = ColorTransform(handle: handle, input: input, output: output)
            if cache.count >= capacity { cache.removeAll() }
            cache[key] = transform
            return transform
        }
    }

    /// Converts `rows` rows of `width` pixels; big pictures in bands on every core.
    func convert(_ source: UnsafePointer<UInt8>, sourceStride: Int, into target: UnsafeMutablePointer<UInt8>,
                 targetStride: Int, width: Int, rows: Int) {
        let bandRows = max(1, 65_536 / max(width, 1))
        let bands = (rows + bandRows - 1) / bandRows
        // Addresses as integers: the bands write disjoint rows, which the compiler cannot see.
        let from = Int(bitPattern: source), to = Int(bitPattern: target), handle = self.handle
        nonisolated(unsafe) let transform = handle
        let run = { @Sendable (band: Int) in
            let first = band * bandRows
            let count = min(bandRows, rows - first)
            cmsDoTransformLineStride(transform, UnsafeRawPointer(bitPattern: from + first * sourceStride),
                                     UnsafeMutableRawPointer(bitPattern: to + first * targetStride),
                                     UInt32(width), UInt32(count), UInt32(sourceStride), UInt32(targetStride), 0, 0)
        }
        if bands == 1 { run(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: run) }
    }
}
