/// How a picture is decoded.
public struct LoadOptions: Hashable, Sendable {
    /// Turn the picture as its EXIF orientation tag says (what every viewer shows).
    public var applyOrientation: Bool
    /// Refuse pictures with more pixels than this, judged from the header before decoding;
    /// nil for no limit. The default equals Pillow's decompression-bomb error threshold.
    public var maxPixels: Int?
    /// Let the decoder shrink while decoding so that the (oriented) picture is no smaller than
    /// this on either side: JPEG decodes at 1/2, 1/4 or 1/8 in the DCT. nil decodes at full size.
    public var atLeast: Size?

    /// Whether a plan may decode reduced when its first stage only shrinks (`Pipeline.plan`).
    public var shrinkOnLoad: Bool
    /// Whether damaged data (truncated, corrupt JPEG entropy data) is an error, as libvips'
    /// `fail` option; false takes whatever the decoder makes of it.
    public var failOnDamage: Bool
    /// The speed/quality choice: how far shrink-on-load goes and the kernel stages default to.
    public var scaling: ScalingMode

    public static let defaultMaxPixels = 178_956_970

    public init(applyOrientation: Bool = true, maxPixels: Int? = LoadOptions.defaultMaxPixels, atLeast: Size? = nil,
                shrinkOnLoad: Bool = true, failOnDamage: Bool = true, scaling: ScalingMode = .good) {
        self.scaling = scaling
        self.shrinkOnLoad = shrinkOnLoad
        self.failOnDamage = failOnDamage
        self.applyOrientation = applyOrientation
        self.maxPixels = maxPixels
        self.atLeast = atLeast
    }
}
