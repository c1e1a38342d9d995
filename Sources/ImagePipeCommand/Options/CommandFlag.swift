/// An option that takes no value: given or not.
struct CommandFlag: OptionDeclaring {
    let declaration: OptionDeclaration

    init(_ names: String..., help: String) {
        declaration = OptionDeclaration(names: names, valueName: nil, help: help)
    }

    private init(declaration: OptionDeclaration) { self.declaration = declaration }

    /// The same flag with another help (see `OptionDeclaration.describing`).
    func describing(_ help: String) -> CommandFlag { CommandFlag(declaration: declaration.describing(help)) }
}
