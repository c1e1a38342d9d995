/// "Did you mean …?" by edit distance.
package enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a likely typo: one edit per
    /// three letters (at least one), and fewer edits than the word has letters, so that `v` never
    /// "means" `e` (every one-letter word is one edit from every other).
    package static func closest(to word: String, in candidates: [String]) -> String? {
        let limit = min(max(1, word.count / 3), word.count - 1)
        guard limit > 0 else { return nil }
        // The distance is at least the difference in length: skip candidates that cannot be close
        // (a megabyte-long word would otherwise cost a megabyte-sized table per candidate).
        let scored = candidates.filter { abs($0.count - word.count) <= limit }.map { ($0, distance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored, score <= limit else { return nil }
        return best
    }

    /// Damerau–Levenshtein (optimal string alignment) distance: swapped letters count once.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
