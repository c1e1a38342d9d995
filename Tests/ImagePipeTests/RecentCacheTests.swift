import Testing
@testable import ImagePipeCore

/// `RecentCache`: a value is made once and found again, the least recently used goes first when
/// the bytes run over, and what could not be made is not kept.
struct RecentCacheTests {
    @Test func keepsTheMostRecentlyUsedWithinItsBytes() {
        let cache = RecentCache<Int, String>(bytes: 30)
        var made = 0
        func value(_ key: Int) -> String? {
            cache.value(for: key, bytes: { _ in 10 }) {
                made += 1
                return "value \(key)"
            }
        }
        #expect(value(1) == "value 1" && value(2) == "value 2" && value(3) == "value 3")
        #expect(made == 3 && cache.keys == [3, 2, 1])
        #expect(value(1) == "value 1" && made == 3, "found, not made again")
        #expect(cache.keys == [1, 3, 2], "used: now the most recent")
        _ = value(4) // 40 bytes: the least recently used, 2, goes
        #expect(made == 4 && cache.keys == [4, 1, 3])
        // A cycle over more keys than fit keeps only the latest: nothing of it stays past its use.
        for key in 10..<20 { _ = value(key) }
        #expect(cache.keys == [19, 18, 17])
    }

    @Test func whatCannotBeMadeIsNotKept() {
        let cache = RecentCache<Int, String>(bytes: 100)
        var tries = 0
        for _ in 0..<2 {
            #expect(cache.value(for: 7, bytes: { _ in 1 }) { tries += 1; return nil } == nil)
        }
        #expect(tries == 2 && cache.keys.isEmpty)
    }

    /// One value larger than the whole budget is still kept, alone, until the next.
    @Test func aValueLargerThanTheBudgetIsKeptAlone() {
        let cache = RecentCache<Int, String>(bytes: 10)
        _ = cache.value(for: 1, bytes: { _ in 5 }) { "small" }
        _ = cache.value(for: 2, bytes: { _ in 50 }) { "large" }
        #expect(cache.keys == [2])
    }
}
