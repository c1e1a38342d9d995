/// What a person can do about an error, named apart from its message so that each front end
/// words it in its own terms: the library's messages never name a command-line option, and the
/// `imagepipe` command adds its option (`--timeout`, `--max-pixels`, …) when it prints one. An
/// embedding program reads `ImagePipeError.remedy` to say it in its own interface's words.
public enum Remedy: Hashable, Sendable {
    /// The run's time limit stopped the work; a longer one would let it finish.
    case raiseTimeLimit
    /// A picture would have more pixels than the run's pixel limit (`StageContext.maxPixels`).
    case raisePixelLimit
    /// An animation has more frames than the run's frame limit.
    case raiseFrameLimit
    /// An input has more bytes than the run's input limit.
    case raiseInputLimit
    /// The format, by its name in the language, is refused unless the run allows it.
    case allowFormat(String)
    /// The run needs an output format it was not given.
    case nameOutputFormat
    /// The run has nowhere to write: neither the run nor `save` names a file.
    case nameOutput
    /// The pipeline text uses a variable that was not given a value.
    case setVariable(String)
    /// A stage name is unknown; the registry's list has the known ones.
    case listStages
    /// A run's memory limit is less than one picture needs.
    case raiseMemoryLimit
    /// An output would replace a file the run is not allowed to replace (its input, a folder
    /// of other files); the run may be allowed to.
    case allowOverwrite
    /// Several inputs have nowhere to go but the current folder: an output folder, or a
    /// template that names each output after its input.
    case nameOutputFolder
}
