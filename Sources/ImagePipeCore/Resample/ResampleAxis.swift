/// One axis of a resampling: the integer box pre-shrink, the stretch of source pixels the work
/// reads, and the weights from that stretch to the output.
///
/// When the reduction is large, averaging `box × box` blocks first and filtering only the last
/// factor (at least `gap`) keeps the cost linear in the input, as libvips' `gap` does; the
/// kernel then still sees at least `gap` working pixels per output pixel, so the result stays
/// close to filtering the whole way.
struct ResampleAxis {
    /// Source pixels averaged into one working pixel.
    let box: Int
    /// The source pixel where working pixel 0 starts.
    let origin: Int
    /// The source length (working blocks stop at the picture's edge).
    let sourceLength: Int
    let table: WeightTable
    /// The working pixels the table reads.
    let span: Range<Int>

    init(kernel: Kernel, sourceLength: Int, outputLength: Int, start: Double, extent: Double, gap: Double) {
        let step = extent / Double(outputLength)
        let box = kernel == .nearest || kernel == .box ? 1 : max(1, Int((step / gap).rounded(.down)))
        // Read only what the window and the kernel's reach need: a crop of a huge picture costs
        // the crop.
        let reach = kernel.support * max(1, step) + Double(box)
        var low = max(0, Int((start - reach).rounded(.down)))
        var high = min(sourceLength, Int((start + extent + reach).rounded(.up)))
        if low >= high { // the window lies wholly off the picture: its nearest edge pixel
            low = min(max(Int(start.rounded(.down)), 0), sourceLength - 1)
            high = low + 1
        }
        let length = (high - low + box - 1) / box
        self.box = box
        origin = low
        self.sourceLength = sourceLength
        table = WeightTable(kernel: kernel, inputLength: length, outputLength: outputLength,
                            start: (start - Double(low)) / Double(box), extent: extent / Double(box))
        span = table.inputSpan
    }

    /// The source pixels that working pixel `index` averages.
    func sources(of index: Int) -> Range<Int> {
        let first = origin + index * box
        return first..<min(sourceLength, first + box)
    }
}
