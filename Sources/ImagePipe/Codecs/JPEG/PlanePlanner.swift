import CJPEGStrict
import ImagePipeCore

/// What a JPEG decode that resamples in its planes (`LoadOptions.decodeResampling`) asks once
/// libjpeg knows the planes' sizes: each plane's weights (`PlaneAxis`), held here until the
/// decoder has copied them.
final class PlanePlanner {
    private let resampling: WholeResampling
    private let kernel: Kernel
    /// The weights handed to the decoder, freed with the planner.
    private var held: [UnsafeMutableRawPointer] = []

    init(resampling: WholeResampling) {
        self.resampling = resampling
        kernel = resampling.kernel ?? ScalingMode.good.defaultKernel
    }

    deinit { held.forEach { $0.deallocate() } }

    /// The C form of the planner, valid while it lives.
    var interface: imagepipe_jpeg_resampling {
        imagepipe_jpeg_resampling(context: Unmanaged.passUnretained(self).toOpaque()) { context, count, _, width, height, denominator, lumaWidth, lumaHeight, planes in
            let planner = Unmanaged<PlanePlanner>.fromOpaque(context!).takeUnretainedValue()
            return planner.plan(count: Int(count), picture: Size(Int(width), Int(height)), denominator: Int(denominator),
                                decode: Size(Int(lumaWidth), Int(lumaHeight)), planes: planes!) ? 1 : 0
        }
    }

    /// Fills each plane's weights: the picture's whole extent in the decode (its size over the
    /// DCT's denominator) resampled to the output, read from the plane's own samples.
    private func plan(count: Int, picture: Size, denominator: Int, decode: Size, planes: UnsafeMutablePointer<imagepipe_plane>) -> Bool {
        let output = resampling.size
        for index in 0..<count {
            let plane = planes[index]
            guard let x = PlaneAxis.cached(kernel: kernel, decodeLength: decode.width, planeLength: Int(plane.width), outputLength: output.width,
                                    extent: Double(picture.width) / Double(denominator)),
                  let y = PlaneAxis.cached(kernel: kernel, decodeLength: decode.height, planeLength: Int(plane.height), outputLength: output.height,
                                    extent: Double(picture.height) / Double(denominator)) else { return false }
            planes[index].x = hold(x)
            planes[index].y = hold(y)
        }
        return true
    }

    private func hold(_ axis: PlaneAxis) -> imagepipe_axis_weights {
        imagepipe_axis_weights(outputs: Int32(axis.first.count), taps: Int32(axis.taps), first: hold(axis.first), used: hold(axis.used),
                               weights: hold(axis.weights))
    }

    private func hold<T>(_ values: [T]) -> UnsafePointer<T> {
        let copy = UnsafeMutablePointer<T>.allocate(capacity: max(1, values.count))
        copy.initialize(from: values, count: values.count)
        held.append(UnsafeMutableRawPointer(copy))
        return UnsafePointer(copy)
    }
}
