/// How finely JPEG and AVIF keep color against brightness.
public enum ChromaSubsampling: String, CaseIterable, Hashable, Sendable {
    /// 4:4:4 at quality 90 and above, else 4:2:0, as libvips chooses (sharp always takes 4:2:0,
    /// which smears red edges at any quality).
    case auto
    /// Color at half resolution both ways: the smallest files.
    case c420 = "420"
    /// Color at half resolution across.
    case c422 = "422"
    /// Color at full resolution.
    case c444 = "444"

    /// The choice `auto` stands for at `quality`.
    func resolved(quality: Int) -> ChromaSubsampling {
        self != .auto ? self : quality >= 90 ? .c444 : .c420
    }
}
