
/// Hands a batch's inputs to the worker threads one at a time: from the expanded command line,
/// or streamed from a manifest, keeping only this shard's. Nothing but the current entry of a
/// manifest is held, so a shard's memory does not grow with the list.
package final class InputFeed: Sendable {
    /// One input to process, or one that cannot be (a manifest entry that is not a usable name).
    package struct Item: Sendable {
        package let context: RunContext
        package let problem: String?
    }

    /// Where the inputs come from.
    package enum Source: Sendable {
        /// Contexts already made (and checked) for this shard, from a list of `total` inputs;
        /// `problems` holds, by `RunContext.index`, why an input cannot be run.
        case contexts([RunContext], total: Int, problems: [Int: String] = [:])
        /// A manifest, with the directory its relative names are resolved against.
        case manifest(ManifestReader, base: String)
    }

    private struct State: Sendable {
        var source: Source
        var taken = 0
        /// Entries seen in the whole list, every shard's, so far.
        var positions = 0
        var exhausted = false
        var failure: String?
    }

    private let state: Locked<State>
    private let template: RunContext
    private let shard: Shard?
    /// Gives a manifest's inputs their default output names.
    private let naming: OutputNaming?
    /// Whether this is a batch (names the input in messages, one trace directory per input).
    package let batch: Bool

    package init(_ source: Source, template: RunContext, shard: Shard?, batch: Bool, naming: OutputNaming? = nil) {
        self.naming = naming
        var initial = State(source: source)
        if case let .contexts(_, total, _) = source {
            initial.positions = total
            initial.exhausted = true
        }
        state = Locked(initial)
        self.template = template
        self.shard = shard
        self.batch = batch
    }

    /// Entries in the whole list (all shards), once known: a manifest's when read to the end.
    package var total: Int? { state.withLock { $0.exhausted ? $0.positions : nil } }

    /// Why reading the list stopped early, if it did.
    package var failure: String? { state.withLock { $0.failure } }

    /// The next input of this shard, or nil when there are no more.
    package func next() -> Item? {
        state.withLock { state in
            switch state.source {
            case let .contexts(contexts, _, problems):
                guard state.taken < contexts.count else { return nil }
                state.taken += 1
                let context = contexts[state.taken - 1]
                return Item(context: context, problem: problems[context.index])
            case let .manifest(reader, base):
                while true {
                    let entry: ManifestReader.Entry?
                    do { entry = try reader.next() } catch {
                        state.failure = "\(error)"
                        return nil
                    }
                    guard let entry else {
                        state.exhausted = true
                        return nil
                    }
                    let position = state.positions
                    state.positions += 1
                    guard shard?.contains(position: position) ?? true else { continue }
                    var context = template
                    context.input = PathBytes.isAbsolute(entry.path) ? entry.path : PathBytes.join(base, entry.path)
                    if let naming { context.output = naming.output(for: context.input, in: template) }
                    context.inputRoot = base
                    context.index = position + 1
                    state.taken += 1
                    return Item(context: context, problem: entry.problem)
                }
            }
        }
    }
}
