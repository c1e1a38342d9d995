/// `save [path] [format=auto] [quality=90] [compression=6] [background=white]`: encodes the
/// picture and writes it atomically; the last stage of a pipeline.
public struct Save: Sink, DeclaredStage {
    public static let declaration = StageDeclaration(
        "save", summary: "Write the picture to a file (png, jpeg, tiff, bmp, ico, webp)", example: "save avatar.jpg quality=85",
        start: Save(), [
            Param(\.path, "path", .path, positional: true,
                  help: "The file to write; without it, the output given with -o. `-` writes to standard output."),
            // `auto` is one of the choices (not a missing value): the schema has always shown it so.
            Param(\.format, "format", .choice([("auto", nil)] + ImageFormat.allCases.map { ($0.rawValue, $0) }), default: nil,
                  help: "The file format; auto takes it from --format, else from the file's extension."),
            Param(\.options.quality, "quality", .integer(1...100), default: SaveOptions().quality,
                  help: "JPEG and WebP quality."),
            Param(\.options.compression, "compression", .integer(0...9), default: SaveOptions().compression,
                  help: "PNG zlib compression level: 0 none, 9 smallest."),
            Param(\.options.background, "background", .color, default: SaveOptions().background,
                  help: "The color a picture with alpha is flattened onto for JPEG, which has no alpha."),
        ])

    public var path: String?
    public var format: ImageFormat?
    public var options: SaveOptions

    public init(path: String? = nil, format: ImageFormat? = nil, options: SaveOptions = SaveOptions()) {
        self.path = path
        self.format = format
        self.options = options
    }

    public func destination(in context: RunContext) throws -> String { try target(in: context).path }

    /// Where the picture goes and in which format, before anything is encoded.
    public func target(in context: RunContext) throws -> (path: String, format: ImageFormat) {
        guard let written = path ?? context.output else {
            throw StageError("no output: give -o FILE, or give \(Self.schema.name) a path")
        }
        let path = try context.resolveOutput(written)
        let named = path == "-" ? nil : ImageFormat(fileName: path)
        if let asked = format ?? context.outputFormat, let named, asked != named {
            // A .png file holding JPEG bytes fools every program that trusts the name.
            let by = format != nil ? "\(Self.schema.name)'s format=" : "--format"
            throw StageError("'\(path)' is named as \(named.rawValue), but \(by) says \(asked.rawValue); make the extension and the format agree, or give only one")
        }
        guard let format = format ?? context.outputFormat ?? named else {
            throw StageError(path == "-"
                ? "writing to standard output needs a format: --format or save format=…"
                : "cannot tell the format of '\(path)' from its extension; use .png, .jpg, .tif, .bmp, .ico or .webp, or save format=…")
        }
        guard format.isAvailable else {
            throw StageError("this system has no \(format.rawValue) saver (for WebP install webp-pixbuf-loader)")
        }
        return (path, format)
    }

    public func write(_ image: Image, in context: RunContext) throws -> String {
        let (path, format) = try target(in: context)
        if let root = context.outputDirectory, path != "-" { try ImageFile.createParentDirectories(of: path, within: root) }
        if format == .jpeg, image.hasAlpha {
            context.warn("\(path): JPEG has no alpha; flattened onto \(options.background)")
        }
        let bytes: [UInt8]
        do {
            try context.cancellation?.check(path: path)
            bytes = try image.encoded(as: format, options: options, cancellation: context.cancellation)
            try context.cancellation?.check(path: path)
        } catch var error as ImageError {
            error.path = path
            throw error
        }
        try bytes.withUnsafeBytes { buffer in
            if path == "-" {
                try StandardStreams.writeToStandardOutput(buffer)
            } else {
                try ImageFile.writeAtomically(buffer, to: path, gate: context.outputGate)
            }
        }
        return path
    }
}
