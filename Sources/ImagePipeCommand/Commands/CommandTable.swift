/// The top-level usage's list of commands, made from their declarations: each name in a left
/// column as wide as the longest name, its summary two spaces after.
enum CommandTable {
    static func text(_ commands: [CommandDeclaration]) -> String {
        let width = commands.map(\.name.count).max() ?? 0
        return commands.map { "  " + $0.name.padding(to: width + 2) + $0.summary }.joined(separator: "\n")
    }
}
