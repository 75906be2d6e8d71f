import ImagingCore

/// The connected pieces of a binary plane (row-major, `width × height`), numbered in
/// raster order of their first pixel.
public enum ConnectedComponents {
    /// A piece's bounding box and pixel count.
    public struct Component: Sendable, Equatable {
        public var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        public var area = 0
        public var width: Int { maxX - minX + 1 }
        public var height: Int { maxY - minY + 1 }
        public var box: PixelRect { PixelRect(x: minX, y: minY, width: width, height: height) }
        public init() {}
    }

    /// 8-connected components of the set pixels by union–find over one pass, then a
    /// relabelling pass: each pixel's component number + 1 (0 where unset), and the
    /// components.
    public static func label(_ ink: [Bool], width: Int, height: Int) -> ([Int32], [Component]) {
        var parent: [Int32] = [0]
        var labels = [Int32](repeating: 0, count: width * height)
        func find(_ label: Int32) -> Int32 {
            var root = label
            while parent[Int(root)] != root { root = parent[Int(root)] }
            var node = label
            while parent[Int(node)] != root {
                let next = parent[Int(node)]
                parent[Int(node)] = root
                node = next
            }
            return root
        }
        func union(_ a: Int32, _ b: Int32) -> Int32 {
            let ra = find(a), rb = find(b)
            if ra == rb { return ra }
            let (low, high) = ra < rb ? (ra, rb) : (rb, ra)
            parent[Int(high)] = low
            return low
        }
        for y in 0..<height {
            for x in 0..<width where ink[y * width + x] {
                var current: Int32 = 0
                // The neighbours already visited: left, and the three above.
                func join(_ neighbour: Int32) {
                    guard neighbour != 0 else { return }
                    current = current == 0 ? find(neighbour) : union(current, neighbour)
                }
                if x > 0 { join(labels[y * width + x - 1]) }
                if y > 0 {
                    if x > 0 { join(labels[(y - 1) * width + x - 1]) }
                    join(labels[(y - 1) * width + x])
                    if x + 1 < width { join(labels[(y - 1) * width + x + 1]) }
                }
                if current == 0 {
                    current = Int32(parent.count)
                    parent.append(current)
                }
                labels[y * width + x] = current
            }
        }
        var number = [Int32](repeating: 0, count: parent.count)
        var components: [Component] = []
        for y in 0..<height {
            for x in 0..<width {
                let label = labels[y * width + x]
                guard label != 0 else { continue }
                let root = Int(find(label))
                if number[root] == 0 {
                    components.append(Component())
                    number[root] = Int32(components.count)
                }
                let index = Int(number[root])
                labels[y * width + x] = Int32(index)
                components[index - 1].minX = min(components[index - 1].minX, x)
                components[index - 1].maxX = max(components[index - 1].maxX, x)
                components[index - 1].minY = min(components[index - 1].minY, y)
                components[index - 1].maxY = max(components[index - 1].maxY, y)
                components[index - 1].area += 1
            }
        }
        return (labels, components)
    }
}
