/// Everything wrong with a pipeline text, in the order it was written: the first
/// `maxDiagnostics` of them, and how many more there were (text made of errors, such as a line of
/// 100,000 `$`, must not make 100,000 messages each quoting the line).
public struct PipelineSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public static let maxDiagnostics = 20

    public var diagnostics: [Diagnostic]
    /// Diagnostics found beyond the first `maxDiagnostics`, not kept.
    public var omitted: Int

    public init(_ diagnostics: [Diagnostic], omitted: Int = 0) {
        self.diagnostics = diagnostics
        self.omitted = omitted
    }

    public var description: String {
        let more = omitted > 0 ? ["… and \(omitted) more error\(omitted == 1 ? "" : "s")"] : []
        return (diagnostics.map(\.description) + more).joined(separator: "\n")
    }
}
