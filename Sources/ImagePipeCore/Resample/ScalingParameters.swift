/// The `kernel=` and `linear=` parameters every scaling stage has, declared once.
public enum ScalingParameters {
    /// `kernel=auto|nearest|box|linear|cubic|mitchell|lanczos2|lanczos3`; nil (auto) leaves it
    /// to the run's scaling mode.
    public static func kernel<S>(_ property: WritableKeyPath<S, Kernel?> & Sendable) -> Param<S> {
        Param(property, "kernel", .choice(Kernel.self), auto: true,
              help: "The resampling filter: nearest, box, linear, cubic (Catmull-Rom), mitchell, lanczos2 or lanczos3 (the sharpest); auto is lanczos3.")
    }

    /// `linear=false|true`.
    public static func linearLight<S>(_ property: WritableKeyPath<S, Bool> & Sendable) -> Param<S> {
        Param(property, "linear", .boolean, default: false,
              help: "Scale in linear light (the sRGB curve taken off, then put back), as vips thumbnail --linear: fine bright detail on dark keeps its brightness; slower.")
    }
}
