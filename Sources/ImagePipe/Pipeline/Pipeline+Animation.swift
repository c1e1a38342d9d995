/// Animated inputs: the frames go through the stages one at a time, from the decoder's canvas to
/// the encoder, so memory holds the canvas, one frame's stages and the encoder's state, not the
/// animation.
extension Pipeline {
    /// What the run does with an animated input of `description`: nil for a still picture, or
    /// when only the first frame is used (which the still path decodes, and says so).
    func animationPlan(for description: SourceDescription, in context: RunContext) throws -> AnimationPlan? {
        guard let header = description.header, let load = source as? Load else { return nil }
        let count = header.frameCount
        guard count > 1 || load.frames != nil else { return nil }
        let path = context.input ?? load.path ?? "the input"
        let name = header.format.displayName
        let oneFrame = stillOutput(in: context)
        let frames: Range<Int>
        switch load.frames {
        case nil:
            guard count > 1 else { return nil }
            if let oneFrame {
                context.warn("\(path): an animated \(name) of \(count) frames: only the first frame is used (\(oneFrame); write .gif, .webp, .avif or .png for every frame, or say load frames=first)")
                return nil
            }
            frames = 0..<count
        case let selection?:
            guard let selected = selection.frames(of: count) else {
                throw located(StageError("frames=\(selection): \(path) has \(count == 1 ? "1 frame (0)" : "\(count) frames (0–\(count - 1))")"), stage: 0)
            }
            if selected == 0..<1 { return nil }
            if selected.count > 1, let oneFrame {
                throw located(StageError("frames=\(selection) decodes \(selected.count) frames, but \(oneFrame); write .gif, .webp, .avif or .png, or take one frame (frames=N)"),
                              stage: 0)
            }
            frames = selected
        }
        let options = load.loadOptions(in: context)
        if let limit = options.maxFrames, frames.count > limit {
            throw ImageError(.tooLarge, path: path, reason: "an animation of \(frames.count) frames to decode, more than the limit of \(limit)", remedy: .raiseFrameLimit)
        }
        if let limit = options.maxPixels, frames.count * description.size.pixelCount > limit {
            throw ImageError(.tooLarge, path: path, reason: "\(frames.count) frames of \(description.size) are \(frames.count * description.size.pixelCount) pixels, more than the limit of \(limit), which counts an animation's frames together", remedy: .raisePixelLimit)
        }
        return AnimationPlan(frameCount: count, frames: frames, animatedOutput: frames.count > 1)
    }

    /// Decodes the planned frames one at a time, runs each through the stages (the decisions
    /// stages make from the pixels made on the first and kept, `FrameDecisions`), and hands them
    /// to the animation encoders of every file written (`AnimationOutputs`), or writes the one
    /// frame asked for as a still picture.
    func runAnimated(_ animation: AnimationPlan, in context: RunContext, prepared: PreparedRun, writing: Bool,
                     observe: ((StageEvent) throws -> Void)?) throws -> RunResult {
        guard let load = source as? Load else { throw StageError("only load reads an animation's frames") }
        let end = transforms.count + 1
        guard let format = prepared.description.header?.format else {
            throw StageError("the input's format is not known from its header")
        }
        let decoder = try withLocation(stage: 0) { try load.animation(in: context, format: format, canvas: prepared.description.header?.storedSize) }
        // Frames are turned as the still picture would be (a WebP's EXIF orientation).
        let orientation = prepared.description.orientation
        let shown = (5...8).contains(orientation) ? decoder.canvas.transposed : decoder.canvas
        guard shown == prepared.plan.sourceSize else {
            throw ImageError(.corrupt, path: context.input, reason: "the frames' canvas is \(shown), the header said \(prepared.plan.sourceSize)")
        }
        // One frame alone is written as a still picture, by the sink and any tee on the way.
        let single = writing && !animation.animatedOutput
        let outputs = AnimationOutputs(self, plays: { decoder.plays }, writing: writing)
        let numbering = EventNumbering(next: end + 1)
        var index = 0
        var last: Image?
        var still: (outputs: [WrittenFile], notes: [Int: [StageNote]]) = ([], [:])
        while index < animation.frames.upperBound, let frame = try withLocation(stage: 0, { try decoder.next() }) {
            defer { index += 1 }
            guard animation.frames.contains(index) else { continue }
            try context.cancellation?.check(path: context.input)
            let first = index == animation.frames.lowerBound
            // A trace shows the first frame's way through the stages.
            let image = frame.image.orientedByExif(orientation)
            if first { try observe?(StageEvent(index: 0, stage: source, image: image, seconds: 0)) }
            if single {
                let made = try transform(ReducedImage(image), context: context, observe: observe)
                (last, still) = (made.image, (made.outputs, made.notes))
            } else {
                last = try outputs.add(image, delay: frame.delay, first: first, in: context, emit: observe, observe: observe, numbering: numbering)
            }
        }
        guard let last, index > animation.frames.lowerBound else {
            throw ImageError(.corrupt, path: context.input, reason: "frame \(animation.frames.lowerBound) cannot be found (the file ends after \(index) frames)")
        }
        if single {
            let written = try write(last, in: context, emit: observe, observe: observe, numbering: numbering, path: [])
            return RunResult(plan: prepared.plan, written: still.outputs + written.files, outputSize: last.size, notes: still.notes, groupNotes: written.groupNotes)
        }
        guard writing else { return RunResult(plan: prepared.plan, written: [], outputSize: last.size, notes: outputs.notes, groupNotes: outputs.groupNotes) }
        let written = try outputs.write(in: context)
        return RunResult(plan: prepared.plan, written: written, outputSize: last.size, notes: outputs.notes, groupNotes: outputs.groupNotes)
    }

    /// Why the files this pipeline writes (each tee's and the save's, or its groups') cannot all
    /// hold an animation; nil when they can.
    func stillOutput(in context: RunContext) -> String? {
        let holdsFrames = { (format: ImageFormat?) in format.map(AnimationEncoding.formats.contains) == true }
        for tee in transforms.compactMap({ $0 as? Tee }) {
            let format = try? tee.save.target(in: context).format
            if !holdsFrames(format) { return "tee's \(format?.rawValue.uppercased() ?? "output") holds one picture" }
        }
        if let branch = sink as? Branch { return branch.groups.lazy.compactMap { $0.stillOutput(in: context) }.first }
        if let save = sink as? Save, save.writesPyramid(in: context) { return "a tile pyramid holds one picture" }
        let output = (sink as? Save).flatMap { try? $0.target(in: context).format }
        return holdsFrames(output) ? nil : output.map { "\($0.rawValue.uppercased()) holds one picture" } ?? "no GIF, WebP, AVIF or PNG output is named"
    }
}
