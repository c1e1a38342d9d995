/// `tee PATH [format=auto] [quality=90] …`: writes the picture as it is at this point and passes
/// it on unchanged, so one decode gives several outputs (ImageMagick's `-write`). It takes the
/// same parameters as `save`, with the path required.
public struct Tee: Transform, Sink, DeclaredStage {
    public static let declaration = StageDeclaration(
        "tee", summary: "Write the picture as it is here, and go on with it (one decode, several outputs)",
        example: "tee preview.jpg quality=80", start: Tee(Save()),
        Save.declaration.parameters.map { param in
            param.name == "path"
                ? Param(\.save.path, "path", .path, required: true, positional: true,
                        help: "The file to write; a template like {stem}-preview.jpg in a batch.")
                : param.lifted(to: \.save)
        })

    public var save: Save

    public init(_ save: Save) { self.save = save }

    public func outputSize(for input: Size) -> Size { input }
    public func makeRows(_ rows: Range<Int>, from input: StageInput) -> Image { input.pixels }
    public func destination(in context: RunContext) throws -> String { try save.destination(in: context) }
    public func write(_ image: Image, in context: RunContext) throws -> String { try save.write(image, in: context) }
}
