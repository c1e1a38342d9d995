/// Where something was written in pipeline text: 1-based line and column, and how many
/// characters it spans (for the underline).
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file name, or `<inline>` for text given with `-e`.
    public var file: String
    public var line: Int
    public var column: Int
    public var length: Int

    public init(file: String, line: Int, column: Int, length: Int = 1) {
        self.file = file
        self.line = line
        self.column = column
        self.length = max(1, length)
    }

    /// `FILE:LINE:COLUMN`
    public var description: String { "\(file):\(line):\(column)" }
}
