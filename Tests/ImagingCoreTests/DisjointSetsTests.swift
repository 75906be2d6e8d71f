import ImagingCore
import Testing

@Suite("Disjoint sets")
struct DisjointSetsTests {
    @Test func chainsOfLinksMakeTheGroupsWithTheirSmallestItemAsRoot() {
        var sets = DisjointSets(count: 7)
        // 5–3, 3–6 and 6–1 chain four items; 2–4 two; 0 stays alone.
        for (a, b) in [(5, 3), (3, 6), (2, 4), (6, 1)] { sets.union(a, b) }
        #expect((0..<7).map { sets.root($0) } == [0, 1, 2, 1, 2, 1, 1])
        // A link inside a group changes nothing.
        sets.union(5, 1)
        #expect((0..<7).map { sets.root($0) } == [0, 1, 2, 1, 2, 1, 1])
    }
}
