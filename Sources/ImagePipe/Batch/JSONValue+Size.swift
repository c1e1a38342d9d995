extension JSONValue {
    /// A size as the commands' JSON writes it, `[width, height]`, or null when unknown: one
    /// shape for `run --json`, the ledger and `explain --json`, which tools read alike. (The
    /// editor's page reads `{"width":…,"height":…}` objects: `size(_:)`.)
    package static func dimensions(_ size: Size?) -> JSONValue {
        size.map { .array([.number(Double($0.width)), .number(Double($0.height))]) } ?? .null
    }
}
