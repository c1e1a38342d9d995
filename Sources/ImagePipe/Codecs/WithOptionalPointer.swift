/// `body` given a pointer to `value`, or nil without one: an optional C argument
/// (`const struct … *`) from a Swift optional.
func withOptionalPointer<T, R>(_ value: T?, _ body: (UnsafePointer<T>?) -> R) -> R {
    guard var value else { return body(nil) }
    return withUnsafePointer(to: &value) { body($0) }
}
