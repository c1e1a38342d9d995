/// JPEG recompression into JPEG XL, as `cjxl` does it by default for a JPEG: `load photo.jpg`
/// then `save photo.jxl lossless=true`, with no stage between, writes the JPEG's own DCT
/// coefficients into the JPEG XL file (16 % smaller for Samples/images/boats.jpg) with the data libjxl needs to give
/// the JPEG back bit for bit (`djxl photo.jxl photo.jpg`). The JPEG's markers, its EXIF, XMP and
/// ICC profile among them, go with it whatever `keep=` says: the JPEG given back is the file that
/// came in.
///
/// Anything more (a stage, `profile=` asking for converted colors, a JPEG libjxl cannot take,
/// such as an arithmetic-coded one, or the EXIF turn applied on load where a recompressed file
/// can only keep the stored pixels) decodes and codes the pixels losslessly instead.
extension Pipeline {
    /// The run's result when it is a JPEG recompression; nil when it is not one.
    func runJPEGRecompressionIfAsked(in context: RunContext, prepared: PreparedRun, observed: Bool) throws -> RunResult? {
        guard !observed, transforms.isEmpty, let load = source as? Load, let save = sink as? Save, save.options.lossless == true,
              let header = prepared.description.header, header.format == .jpeg,
              let target = try? save.target(in: context), target.format == .jxl,
              [.auto, .keep].contains(save.options.profile) else { return nil }
        let options = load.loadOptions(in: context)
        // libjxl keeps the stored coefficients; a turn asked on load would be lost.
        guard !options.applyOrientation || header.orientation == 1 else { return nil }
        try header.checkPixels(limit: options.maxPixels, path: try? load.resolvedPath(in: context))
        let bytes = try context.inputBytes ?? ImageFile.readAll(path: load.resolvedPath(in: context), limit: options.maxInputBytes, deadline: options.deadline)
        let recompressed: [UInt8]
        do {
            recompressed = try JXLRecompression.recompress(bytes, effort: save.options.effort(for: .jxl))
        } catch {
            return nil // a JPEG libjxl cannot take: its pixels are coded losslessly instead
        }
        try context.cancellation?.check(path: target.path)
        let written = try withLocation(stage: transforms.count + 1) { try save.store(recompressed, at: target.path, in: context) }
        return RunResult(plan: prepared.plan, written: [WrittenFile(path: written, size: prepared.plan.outputSize)], outputSize: prepared.plan.outputSize)
    }
}
