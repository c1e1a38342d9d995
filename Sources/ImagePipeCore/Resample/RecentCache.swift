/// The values made lately, the most recently used first, up to a number of bytes in all: a
/// service sees the same picture sizes again and again, and a resampling axis costs thousands of
/// evaluations of its kernel. Bounded by bytes rather than entries, so that it holds many small
/// thumbnails' axes but few of a large output's; shared between threads.
package final class RecentCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let key: Key, value: Value, bytes: Int
    }

    private let entries = Locked<(list: [Entry], bytes: Int)>(([], 0))
    private let limit: Int

    package init(bytes limit: Int) { self.limit = limit }

    /// The value for `key`, made by `make` (and kept, counted as `bytes` of it) when it is not
    /// here; nil when `make` makes none.
    package func value(for key: Key, bytes: (Value) -> Int, make: () -> Value?) -> Value? {
        let found = entries.withLock { state -> Value? in
            guard let index = state.list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = state.list.remove(at: index)
            state.list.insert(entry, at: 0)
            return entry.value
        }
        if let found { return found }
        guard let value = make() else { return nil }
        let entry = Entry(key: key, value: value, bytes: bytes(value))
        entries.withLock { state in
            guard !state.list.contains(where: { $0.key == key }) else { return } // made meanwhile on another thread
            state.list.insert(entry, at: 0)
            state.bytes += entry.bytes
            while state.bytes > limit, state.list.count > 1 { state.bytes -= state.list.removeLast().bytes }
        }
        return value
    }

    /// The keys held, the most recently used first (for the tests).
    package var keys: [Key] { entries.withLock { $0.list.map(\.key) } }
}
