extension Plan {
    /// Bytes one run of this plan is expected to hold at its peak, from sizes alone: the decoded
    /// picture (kept for the whole run), the largest stage's input and output side by side with
    /// what it holds beside them (`Step.held`: a text's layout, an overlay), the encoder's copies
    /// of the output, and `workingBytes` for everything else. Every picture is
    /// counted at four bytes a pixel (RGBA), whatever it holds: an estimate that errs high, so
    /// that pictures admitted side by side by a memory budget (`--max-memory`) do fit together.
    public func estimatedPeakBytes(inputBytes: Int = 0) -> Int {
        // Saturating: with --max-pixels 0 a plan's sizes may be absurd, and so is their product.
        func bytes(_ size: Size, times count: Int = 1) -> Int {
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            let (result, overflow2) = pixels.multipliedReportingOverflow(by: 4 * count)
            return overflow || overflow2 ? Int.max / 8 : result
        }
        // A decode that touches only the region the first stage reads holds its rows' pages, and
        // that is all the first stage reads of it.
        let region = regionBytes
        let decoded = region ?? bytes(decodeSize)
        let largestStep = steps.enumerated().map { index, step in
            min(Int.max / 8, (index == 0 ? region ?? bytes(step.input) : bytes(step.input)) + bytes(step.output) + min(Int.max / 8, step.held))
        }.max() ?? 0
        // The encoders write from the finished picture; the one that copies most (PNG's filtered
        // rows and its compressed stream) holds about two more of it.
        let encoding = bytes(outputSize, times: 2)
        return min(Int.max / 8, inputBytes) + decoded + largestStep + encoding + groupBytes + Self.workingBytes
    }

    /// The pages a decode touching only `decodeRegion` writes (`decodeTouchesRegionOnly`): each
    /// of its rows' columns at four bytes a pixel, and a page more a row for where they fall.
    var regionBytes: Int? {
        guard decodeTouchesRegionOnly, let region = decodeRegion else { return nil }
        return region.height * (region.width * 4 + 4096)
    }

    /// What a branch's groups hold beside the picture at the branch: they run one after the
    /// other, so the most that one of them holds (its largest step, its encoding, its own groups).
    var groupBytes: Int {
        groups.map { group in
            let largest = group.steps.map { min(Int.max / 8, 4 * ($0.input.pixelCount + $0.output.pixelCount) + $0.held) }.max() ?? 0
            return min(Int.max / 8, largest + 8 * group.outputSize.pixelCount + group.groupBytes)
        }.max() ?? 0
    }

    /// The step that holds the most beside its pictures, when one holds anything: what a
    /// refusal by the memory budget names when the picture alone is small.
    public var largestHolder: Step? {
        steps.filter { $0.held > 0 }.max { $0.held < $1.held }
    }

    /// What a run holds beside its pictures: libraries' tables, a decoder's buffers, the
    /// threads' stacks. Measured peaks of small pictures stay well under it.
    public static let workingBytes = 32 << 20
}
