/// What a `Batch` tells its progress callback, from the worker thread the input runs on: an
/// input started, or ended (written, failed or passed over) with its outcome.
public enum BatchProgress: Sendable {
    case started(input: String)
    case finished(FileOutcome)
}
