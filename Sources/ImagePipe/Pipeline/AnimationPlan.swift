/// What a run does with an animated input, decided before any frame is decoded
/// (`Pipeline.animationPlan`): which frames go through the stages, and whether they are written
/// as an animation or one of them as a still picture.
public struct AnimationPlan: Sendable, Equatable {
    /// How many frames the file holds.
    public let frameCount: Int
    /// The frames decoded and run through the stages, counted from 0.
    public let frames: Range<Int>
    /// Whether the sink writes an animation (GIF or WebP); otherwise `frames` is one frame.
    public let animatedOutput: Bool
}
