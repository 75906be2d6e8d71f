/// Disjoint sets over the items `0..<count` (union–find with path halving): the groups that
/// chains of links make, as a line of text is the characters its neighbours link.
///
/// ```swift
/// var sets = DisjointSets(count: 4)
/// sets.union(0, 1)
/// sets.union(1, 3)
/// sets.root(3) == sets.root(0)   // true; 2 is alone
/// ```
public struct DisjointSets: Sendable {
    @usableFromInline var parent: [Int]

    @inlinable
    public init(count: Int) { parent = Array(0..<count) }

    /// The representative of `item`'s set: the smallest item that `union` kept as one.
    @inlinable
    public mutating func root(_ item: Int) -> Int {
        var item = item
        while parent[item] != item {
            parent[item] = parent[parent[item]]
            item = parent[item]
        }
        return item
    }

    /// Joins the sets of `a` and `b`; the smaller representative stays.
    @inlinable
    public mutating func union(_ a: Int, _ b: Int) {
        let (ra, rb) = (root(a), root(b))
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}
