
/// How long one picture of a run may take. Without `--timeout`, the limit grows with the work
/// the picture's plan asks for, so that legitimate work is never cut short: a 13-megapixel photo
/// to AVIF at speed 0 takes minutes by itself, a thumbnail a fraction of a second. The limit
/// still ends what hostile input can make a decoder or a library do (a FIFO that stalls, a
/// loader that loops), since the reading alone is bounded by the base.
package enum TimeLimit: Equatable, Sendable {
    /// `--timeout 0`: none.
    case none
    /// `--timeout SECONDS`: the same for every picture.
    case fixed(Double)
    /// The default: `base` seconds, plus `safety` times the work the plan asks for.
    case scaled

    /// The reading (header, bytes from a FIFO or standard input) of every picture, and the
    /// least any picture is given.
    package static let base = 60.0
    /// How many times the work's measured cost the limit allows: a loaded machine (a batch on
    /// every core beside other work) was seen to take 6× the idle time; 10 leaves room beyond it.
    package static let safety = 10.0

    /// Seconds before the plan is known (reading the picture's header and bytes).
    package var readingSeconds: Double? {
        switch self {
        case .none: nil
        case let .fixed(seconds): seconds
        case .scaled: Self.base
        }
    }

    /// Seconds for a picture with this plan (nil: not known, the base applies); an animation's
    /// frames each do the plan's work.
    package func seconds(for plan: Plan?, frames: Int = 1, pipeline: Pipeline, context: RunContext) -> Double? {
        switch self {
        case .none: return nil
        case let .fixed(seconds): return seconds
        case .scaled:
            guard let plan else { return Self.base }
            return (Self.base + Self.safety * Double(frames) * Self.workSeconds(plan, pipeline: pipeline, context: context)).rounded(.up)
        }
    }

    /// The work's cost in seconds on an idle two-core machine (Debian 12, 2026), per megapixel,
    /// measured with `/usr/bin/time imagepipe run` on photos of 1 to 13 megapixels: decoding
    /// 0.05–0.3; a stage 0.1–0.25 (resize, rotate by an angle, sharpen); an area stage about
    /// 0.03 more per pixel of radius (`median 31`: 0.42); encoders in `encoderSeconds`.
    package static func workSeconds(_ plan: Plan, pipeline: Pipeline, context: RunContext) -> Double {
        func megapixels(_ size: Size) -> Double { Double(size.pixelCount) / 1_000_000 }
        var seconds = 0.3 * megapixels(plan.decodeWorkSize)
        for step in plan.steps {
            let pixels = max(megapixels(step.input), megapixels(step.output))
            var perMegapixel = 0.25
            if case let .area(radius) = step.stage.stageClass { perMegapixel += 0.03 * Double(radius) }
            seconds += perMegapixel * pixels
            if let tee = step.stage as? Tee { seconds += encoderSeconds(tee.save, context: context) * megapixels(step.output) }
        }
        if let save = pipeline.sink as? Save { seconds += encoderSeconds(save, context: context) * megapixels(plan.outputSize) }
        // A branch's groups, each from the picture at the branch (nothing decoded again).
        for (group, groupPlan) in zip((pipeline.sink as? Branch)?.groups ?? [], plan.groups) {
            seconds += workSeconds(groupPlan, pipeline: group, context: context) - 0.3 * megapixels(groupPlan.decodeWorkSize)
        }
        return seconds
    }

    /// An encoder's seconds per megapixel, idle, on two cores (`Codec.encoderSeconds`): AVIF at
    /// speed 0 12.9, speed 2 5.3, speed 5 0.4; lossless WebP at effort 6 0.7, lossy 0.18; PNG at
    /// compression 9 1.1; JPEG 0.05.
    package static func encoderSeconds(_ save: Save, context: RunContext) -> Double {
        Codecs.of((try? save.target(in: context).format) ?? .png).encoderSeconds(options: save.options)
    }
}
