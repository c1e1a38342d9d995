/// One frame of an animation as a viewer shows it: the whole canvas after the frame is drawn
/// (disposal, transparency and offsets applied), and how long it stays on screen.
public struct AnimationFrame: Sendable {
    public let image: Image
    /// Milliseconds, as the file says (GIF counts hundredths of a second).
    public let delay: Int

    public init(image: Image, delay: Int) {
        self.image = image
        self.delay = delay
    }
}
