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
        let name = SourceFormat(rawValue: header.format)?.displayName ?? header.format
        let holdsFrames = { (format: ImageFormat?) in format.map(AnimationEncoding.formats.contains) == true }
        let output = (sink as? Save).flatMap { try? $0.target(in: context).format }
        let stillTee = transforms.lazy.compactMap { $0 as? Tee }.map { try? $0.save.target(in: context).format }.first { !holdsFrames($0) }
        // What keeps the frames from being written, nil when every file written holds them: the
        // save's and each tee's.
        let oneFrame: String? = sink is Branch ? "branch writes one picture"
            : stillTee.map { "tee's \($0?.rawValue.uppercased() ?? "output") holds one picture" }
            ?? (holdsFrames(output) ? nil : output.map { "\($0.rawValue.uppercased()) holds one picture" } ?? "no GIF, WebP or AVIF output is named")
        let frames: Range<Int>
        switch load.frames {
        case nil:
            guard count > 1 else { return nil }
            if let oneFrame {
                context.warn("\(path): an animated \(name) of \(count) frames: only the first frame is used (\(oneFrame); write .gif, .webp or .avif for every frame, or say load frames=first)")
                return nil
            }
            frames = 0..<count
        case let selection?:
            guard let selected = selection.frames(of: count) else {
                throw located(StageError("frames=\(selection): \(path) has \(count == 1 ? "1 frame (0)" : "\(count) frames (0–\(count - 1))")"), stage: 0)
            }
            if selected == 0..<1 { return nil }
            if selected.count > 1, let oneFrame {
                throw located(StageError("frames=\(selection) decodes \(selected.count) frames, but \(oneFrame); write .gif, .webp or .avif, or take one frame (frames=N)"),
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
    /// to the animation encoder, or writes the one frame asked for as a still picture.
    func runAnimated(_ animation: AnimationPlan, in context: RunContext, prepared: PreparedRun, writing: Bool,
                     observe: ((StageEvent) throws -> Void)?) throws -> RunResult {
        guard let load = source as? Load else { throw StageError("only load reads an animation's frames") }
        let end = transforms.count + 1
        guard let format = prepared.description.header.flatMap({ SourceFormat(rawValue: $0.format) }) else {
            throw StageError("the input's format is not known from its header")
        }
        let decoder = try withLocation(stage: 0) { try load.animation(in: context, format: format, canvas: prepared.description.header?.storedSize) }
        // Frames are turned as the still picture would be (a WebP's EXIF orientation).
        let orientation = prepared.description.orientation
        let shown = (5...8).contains(orientation) ? decoder.canvas.transposed : decoder.canvas
        guard shown == prepared.plan.sourceSize else {
            throw ImageError(.corrupt, path: context.input, reason: "the frames' canvas is \(shown), the header said \(prepared.plan.sourceSize)")
        }
        var encoder: (any AnimationEncoder)?
        var destination: (path: String, format: ImageFormat)?
        if writing, animation.animatedOutput, let save = sink as? Save {
            destination = try withLocation(stage: end) { try save.target(in: context) }
        }
        /// An encoder's error names its stage and the file it was writing.
        func encoding<T>(at stage: Int, writing path: String?, _ body: () throws -> T) throws -> T {
            try withLocation(stage: stage) {
                do { return try body() } catch var error as ImageError {
                    error.path = error.path ?? path
                    throw error
                }
            }
        }
        // One frame alone is written as a still picture, by the sink and any tee on the way.
        let single = writing && !animation.animatedOutput
        let decisions = FrameDecisions()
        var index = 0
        var last: Image?
        var notes: [Int: [StageNote]] = [:]
        var outputs: [WrittenFile] = []
        // Each tee's file, picture size and encoder (by stage), made at the first frame.
        var teeAnimations: [Int: (tee: Tee, path: String, size: Size, encoder: any AnimationEncoder)] = [:]
        var framed = StageContext.current
        framed.frameDecisions = decisions
        try framed.bound {
            while index < animation.frames.upperBound, let frame = try withLocation(stage: 0, { try decoder.next() }) {
                defer { index += 1 }
                guard animation.frames.contains(index) else { continue }
                try context.cancellation?.check(path: context.input)
                let first = index == animation.frames.lowerBound
                // A trace shows the first frame's way through the stages.
                let image = frame.image.orientedByExif(orientation)
                if first { try observe?(StageEvent(index: 0, stage: source, image: image, seconds: 0)) }
                let teeFrame: TeeFrame? = destination == nil ? nil : { stage, tee, image in
                    if teeAnimations[stage] == nil {
                        let (path, format) = try tee.save.target(in: context)
                        guard let encoder = AnimationEncoding.encoder(for: format, options: tee.save.options, plays: decoder.plays) else {
                            throw StageError("\(format.rawValue.uppercased()) holds one picture")
                        }
                        teeAnimations[stage] = (tee, path, image.size, encoder)
                    }
                    guard let animation = teeAnimations[stage] else { return }
                    try encoding(at: stage, writing: animation.path) { try animation.encoder.add(image, delay: frame.delay) }
                }
                let made = try transform(ReducedImage(image), context: single ? context : nil, observe: first ? observe : nil, teeFrame: teeFrame)
                if first { (notes, outputs) = (made.notes, made.outputs) }
                if let (_, format) = destination, let save = sink as? Save {
                    // Made at the first frame: a GIF's loop count comes before it, not in the header.
                    let adding = encoder ?? AnimationEncoding.encoder(for: format, options: save.options, plays: decoder.plays)
                    encoder = adding
                    try encoding(at: end, writing: destination?.path) { try adding?.add(made.image, delay: frame.delay) }
                }
                last = made.image
            }
        }
        guard let last, index > animation.frames.lowerBound else {
            throw ImageError(.corrupt, path: context.input, reason: "frame \(animation.frames.lowerBound) cannot be found (the file ends after \(index) frames)")
        }
        guard writing else { return RunResult(plan: prepared.plan, written: [], outputSize: last.size, notes: notes) }
        guard let encoder, let (path, _) = destination, let save = sink as? Save else {
            let written = try write(last, in: context, emit: observe, observe: observe, numbering: EventNumbering(next: transforms.count + 2), path: [])
            return RunResult(plan: prepared.plan, written: outputs + written.files, outputSize: last.size, notes: notes, groupNotes: written.groupNotes)
        }
        // Every file finished before any is written.
        let tees = try teeAnimations.sorted { $0.key < $1.key }.map { stage, animation in
            (stage, animation, try encoding(at: stage, writing: animation.path) { try animation.encoder.finish() })
        }
        let bytes = try encoding(at: end, writing: path) { try encoder.finish() }
        try context.cancellation?.check(path: path)
        // (A file that cannot be written takes back those written before it: `OutputGate`.)
        var written: [WrittenFile] = []
        for (stage, animation, teeBytes) in tees {
            let stored = try withLocation(stage: stage) { try animation.tee.save.store(teeBytes, at: animation.path, in: context) }
            written.append(WrittenFile(path: stored, size: animation.size))
        }
        written.append(WrittenFile(path: try withLocation(stage: end) { try save.store(bytes, at: path, in: context) }, size: last.size))
        try observe?(StageEvent(index: end, stage: sink, image: last, seconds: 0))
        return RunResult(plan: prepared.plan, written: written, outputSize: last.size, notes: notes)
    }
}
