/// The option section of a command's help, made from its declarations: each option's names and
/// value name in a left column, its help beside them, the help's further lines under it.
enum OptionTable {
    /// The left column's width in the commands' help (`-e, --expression TEXT` and two spaces).
    static let standardWidth = 21

    /// The rows of `options`, `-h, --help` last unless `helpFlag` is false. Options one after another with the same help
    /// share a row (`--key HEX, --salt HEX`); a label too long for its column puts the help on
    /// the next line.
    static func text(_ options: [any OptionDeclaring], width: Int = standardWidth, helpFlag: Bool = true) -> String {
        var rows: [(label: String, help: String)] = []
        for declaration in (options + (helpFlag ? [OptionParser.helpFlag] : [])).map(\.declaration) {
            if let last = rows.last, last.help == declaration.help {
                rows[rows.count - 1].label += ", " + declaration.label
            } else {
                rows.append((declaration.label, declaration.help))
            }
        }
        let indent = String(repeating: " ", count: 2 + width + 2)
        return rows.flatMap { row -> [String] in
            let lines = row.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let head = "  " + row.label
            let first: [String]
            if row.label.count <= width {
                first = [head.padding(to: 2 + width + 2) + lines[0]]
            } else if row.label.count <= width + 4 {
                first = [head + "  " + lines[0]] // a little past the column, as --client-timeout SECONDS
            } else {
                first = [head, indent + lines[0]]
            }
            return first + lines.dropFirst().map { indent + $0 }
        }.joined(separator: "\n")
    }
}
