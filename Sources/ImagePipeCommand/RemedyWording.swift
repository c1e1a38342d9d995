import ImagePipe

/// How the command says an error's remedy: by the option that sets it. The library's messages
/// name no option, so what the command prints about an error goes through `text(for:)`.
enum RemedyWording {
    /// What the command adds after the message.
    static func suffix(for remedy: Remedy) -> String {
        switch remedy {
        case .raiseTimeLimit: " (--timeout)"
        case .raisePixelLimit: "; raise the limit with --max-pixels"
        case .raiseFrameLimit: " (--max-frames)"
        case .raiseInputLimit: " (--max-input-bytes)"
        case .allowFormat(let name): "; allow it with --allow-format \(name)"
        case .nameOutputFormat: " (--format)"
        case .nameOutput: " (-o FILE)"
        case .setVariable(let name): ": give it with --set \(name)=VALUE"
        case .listStages: "; `imagepipe stages` lists them all"
        case .raiseMemoryLimit: "; raise it with --max-memory"
        case .allowOverwrite: "; give --overwrite to replace it"
        case .nameOutputFolder: ": give --out-dir DIR, or an output template such as -o '{stem}-small.png'"
        }
    }

    /// `error` as the command prints it: its description, each remedy worded after its message.
    static func text(for error: any Error) -> String {
        if let syntax = error as? PipelineSyntaxError {
            let worded = syntax.diagnostics.map { diagnostic in
                var diagnostic = diagnostic
                if let remedy = diagnostic.remedy { diagnostic.message += suffix(for: remedy) }
                return diagnostic
            }
            return PipelineSyntaxError(worded, omitted: syntax.omitted).description
        }
        guard let remedy = (error as? any ImagePipeError)?.remedy else { return "\(error)" }
        return "\(error)" + suffix(for: remedy)
    }
}
