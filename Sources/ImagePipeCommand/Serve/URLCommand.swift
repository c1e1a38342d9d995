import ImagePipe

/// `imagepipe url PIPELINE SOURCE`: the address `imagepipe serve` answers with that picture,
/// signed with the server's key and salt.
struct URLCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe url (--key HEX --salt HEX [--signature-size N] | --unsigned) [--format EXT] PIPELINE SOURCE
               imagepipe url … -e 'TEXT' SOURCE

        Prints the path `imagepipe serve` answers with SOURCE (a path under its --root) through
        PIPELINE (its text, stages only; '' or - for none): /SIGNATURE/PIPELINE/SOURCE[@EXT], the
        pipeline in URL-safe base64. The pipeline is checked first. With --unsigned the
        signature segment is `_`.

        Options:
        """ + "\n" + OptionTable.text(options)

    static let declaration = CommandDeclaration("url", summary: "Write (and sign) the address serve answers with a picture",
                                                help: help, options: options) { try URLCommand(registry: $0).main($1) }

    static let format = CommandOption("--format", value: "EXT", kind: .choices(["jpg", "png", "webp", "avif", "gif"]), help: """
        The format to answer in (jpg, png, webp, avif, gif); without it the
        server negotiates from the request's Accept header
        """) { name in
        guard let format = ImageFormat(outputName: name).flatMap(ServedFormat.init) else {
            throw UsageError("--format: '\(name)' is not a format imagepipe serve answers in; it answers in \(ServedFormat.names)")
        }
        return format.format
    }
    static let options: [any OptionDeclaring] = [
        PipelineArguments.expression.describing("The pipeline text, as run takes it (then SOURCE alone follows)"),
        ServeCommand.key.describing("The server's key and salt (else IMAGEPIPE_KEY and IMAGEPIPE_SALT)"),
        ServeCommand.salt.describing("The server's key and salt (else IMAGEPIPE_KEY and IMAGEPIPE_SALT)"),
        ServeCommand.signatureSize.describing("Signature bytes, 8 to 32 (default 32), as the server's"),
        ServeCommand.unsigned.describing("For a server run with --unsigned"),
        format,
    ]

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        // `-e TEXT` as run takes it, or the text as the first name.
        let names = (parser.text(of: PipelineArguments.expression).map { [$0] } ?? []) + parser.positionals
        guard names.count == 2 else {
            let shape = parser.has(PipelineArguments.expression) ? "-e 'resize 300x' photos/a.jpg: with -e, the source alone follows" : "'resize 300x' photos/a.jpg"
            throw UsageError("url takes a pipeline and a source: imagepipe url \(shape) --key … --salt …")
        }
        let text = names[0] == "-" ? "" : names[0]
        _ = try PipelineCompiler(registry: registry).compile(text, file: "pipeline")
        let format = try parser.value(of: Self.format)
        let path = ImageURL.unsignedPath(pipeline: text, source: names[1], format: format)
        let signature = try ServeCommand.signature(parser)
        Console.output((signature.map { "/" + $0.sign(path.signed) } ?? "/_") + path.sent)
        return 0
    }
}
