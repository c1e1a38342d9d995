import Testing
import ImagePipe

@Suite struct EdgeModeTests {
    @Test func indicesOutsideMapAsLibvipsEmbed() {
        // A row of 3 pixels a b c, indices −4 … 6.
        let indices = Array(-4...6)
        #expect(indices.map { EdgeMode.copy.source(of: $0, length: 3) } == [0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2])
        #expect(indices.map { EdgeMode.repeat.source(of: $0, length: 3) } == [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
        // …c b a | a b c | c b a…: the edge pixel repeated.
        #expect(indices.map { EdgeMode.mirror.source(of: $0, length: 3) } == [2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0])
        #expect(indices.map { EdgeMode.color.source(of: $0, length: 3) } == [nil, nil, nil, nil, 0, 1, 2, nil, nil, nil, nil])
        #expect((-5...5).allSatisfy { EdgeMode.mirror.source(of: $0, length: 1) == 0 })
    }
}
