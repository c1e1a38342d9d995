
/// Where a run writes when the command line says only "into this folder": `--out-dir DIR`
/// without -o, `-o DIR/`, or several inputs. Shared by `run` and `explain`, so a plan shows the
/// names a run will use.
package struct OutputNaming: Sendable {
    /// Whether each input gets a default name (`{dir}/{stem}.EXT`) in the output directory.
    package let usesDefaultName: Bool
    /// What default names start with: `{dir}/`, or `thumbs/{dir}/` for `-o thumbs/ --out-dir D`.
    package let prefix: String
    /// The format the sink or --format asks for, which gives default names their extension.
    package let format: ImageFormat?

    /// Settles `template`'s output and directory for `pipeline`; throws when a batch has nowhere
    /// safe to go (it would fill the current directory, over files of the same names).
    package init(template: inout RunContext, pipeline: Pipeline, batch: Bool) throws {
        let save = pipeline.sink as? Save
        format = save?.format ?? template.outputFormat
        var prefix = "{dir}/"
        if let output = template.output, output != "-", output.utf8.last == UInt8(ascii: "/") || Self.isFolderName(output) {
            // `-o thumbs/`, or `-o thumbs` naming a folder: into that folder, as cp and mv do.
            if template.outputDirectory == nil {
                template.outputDirectory = output.utf8.last == UInt8(ascii: "/") ? String(decoding: output.utf8.dropLast(), as: UTF8.self) : output
            } else {
                prefix = (output.utf8.last == UInt8(ascii: "/") ? output : output + "/") + prefix
            }
            template.output = nil
        }
        self.prefix = prefix
        // `save FILE` wins over -o (`Save.target`), and a last `tee FILE` is the pipeline's sink:
        // say so rather than drop -o without a word.
        if let output = template.output, pipeline.sink is Branch {
            throw UsageError("the run's output '\(output)': the pipeline's branch names its own outputs, one save PATH a group; give them there (templates such as {stem}-640.jpg work in a batch)")
        }
        if let output = template.output, let (stage, path) = save?.path.map({ ("save", $0) }) ?? (pipeline.sink as? Tee).map({ ("tee", $0.save.path ?? "") }) {
            throw UsageError("the run's output '\(output)' and the pipeline's own '\(stage) \(path)' both say where the picture goes: give one of them")
        }
        if batch, template.outputDirectory == nil, template.output == nil, save.map({ $0.path == nil }) ?? false {
            throw UsageError("several inputs need somewhere to go, or the outputs would land in the current folder over files of the same names", remedy: .nameOutputFolder)
        }
        if batch, template.outputDirectory == nil { template.outputDirectory = "." }
        usesDefaultName = save.map { $0.path == nil } ?? false && template.output == nil && (batch || template.outputDirectory != nil)
    }

    /// Whether `-o NAME` can only mean "into the folder NAME": it is an existing directory, and
    /// neither a template nor a name with an image extension (`-o d.png` naming a directory is
    /// refused by `OutputCheck` rather than guessed at).
    package static func isFolderName(_ output: String) -> Bool {
        guard !output.contains("{"), ImageFormat(fileName: output) == nil else { return false }
        return OutputCheck.isDirectory(output)
    }

    /// The output name for `input` when none was given: its stem, and the extension of the
    /// format asked for; else the input's own extension when that format can be written, else
    /// `.png` (a HEIC in a folder is written as PNG rather than failing the batch).
    package static func defaultName(for input: String?, format: ImageFormat?, prefix: String = "{dir}/") -> String {
        if let format { return prefix + "{stem}." + format.fileExtension }
        if let input, input != "-", let own = ImageFormat(fileName: input), own.isWritable { return prefix + "{stem}.{ext}" }
        return prefix + "{stem}." + ImageFormat.png.fileExtension
    }

    /// The output (or template) for one input.
    package func output(for input: String?, in template: RunContext) -> String? {
        usesDefaultName ? Self.defaultName(for: input, format: format, prefix: prefix) : template.output
    }
}
