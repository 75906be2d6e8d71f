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

    /// Which neighbours join pixels into one piece.
    public enum Connectivity: Sendable {
        /// The four that share a side: a region bounded by a line one pixel wide, even a
        /// diagonal one, does not leak through it.
        case four
        /// The eight that share a side or a corner: a stroke drawn diagonally is one piece.
        case eight
    }

    /// The connected components of the set pixels by union–find over one pass, then a
    /// relabelling pass: each pixel's component number + 1 (0 where unset), and the
    /// components, numbered in raster order of their first pixel.
    ///
    /// 8-connected, a set pixel is joined to the set neighbours already visited that the scan
    /// has not joined yet: the one above alone when it is set (the left, the upper left and
    /// the upper right touch it, so they were joined to it already), else the left one and the
    /// upper right, else the upper left and the upper right. 4-connected, to the one above and
    /// the left one.
    public static func label(_ ink: [Bool], width: Int, height: Int, connectivity: Connectivity = .eight) -> ([Int32], [Component]) {
        var labels = [Int32](repeating: 0, count: width * height)
        // A scan per connectivity, each with the joins written out, so that neither tests
        // the connectivity at every pixel. The union–find forest is the scan's own variable,
        // returned at its end: captured from outside, each join would be checked for
        // exclusive access at run time.
        var parent = ink.withUnsafeBufferPointer { ink in
            labels.withUnsafeMutableBufferPointer { labels in
                var parent: [Int32] = [0]
                switch connectivity {
                case .eight:
                    for y in 0..<height {
                        let row = y * width, above = row - width
                        for x in 0..<width where ink[row + x] {
                            var current: Int32 = 0
                            func join(_ neighbour: Int32) {
                                guard neighbour != 0 else { return }
                                current = current == 0 ? find(neighbour, &parent) : union(current, neighbour, &parent)
                            }
                            let up = y > 0 ? labels[above + x] : 0
                            if up != 0 {
                                join(up)
                            } else {
                                let left = x > 0 ? labels[row + x - 1] : 0
                                join(left != 0 ? left : (y > 0 && x > 0 ? labels[above + x - 1] : 0))
                                if y > 0 && x + 1 < width { join(labels[above + x + 1]) }
                            }
                            if current == 0 {
                                current = Int32(parent.count)
                                parent.append(current)
                            }
                            labels[row + x] = current
                        }
                    }
                case .four:
                    for y in 0..<height {
                        let row = y * width, above = row - width
                        for x in 0..<width where ink[row + x] {
                            let up = y > 0 ? labels[above + x] : 0, left = x > 0 ? labels[row + x - 1] : 0
                            var current: Int32
                            if up != 0 && left != 0 {
                                current = union(up, left, &parent)
                            } else if up != 0 || left != 0 {
                                current = find(up != 0 ? up : left, &parent)
                            } else {
                                current = Int32(parent.count)
                                parent.append(current)
                            }
                            labels[row + x] = current
                        }
                    }
                }
                return parent
            }
        }
        // Components numbered in raster order of their first pixel; a run of pixels with one
        // label shares its root.
        var number = [Int32](repeating: 0, count: parent.count)
        var components: [Component] = []
        labels.withUnsafeMutableBufferPointer { labels in
            var (lastLabel, lastIndex): (Int32, Int) = (0, 0)
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    let label = labels[row + x]
                    guard label != 0 else { continue }
                    if label != lastLabel {
                        let root = Int(find(label, &parent))
                        if number[root] == 0 {
                            components.append(Component())
                            number[root] = Int32(components.count)
                        }
                        (lastLabel, lastIndex) = (label, Int(number[root]))
                    }
                    let index = lastIndex
                    labels[row + x] = Int32(index)
                    components[index - 1].minX = min(components[index - 1].minX, x)
                    components[index - 1].maxX = max(components[index - 1].maxX, x)
                    components[index - 1].minY = min(components[index - 1].minY, y)
                    components[index - 1].maxY = max(components[index - 1].maxY, y)
                    components[index - 1].area += 1
                }
            }
        }
        return (labels, components)
    }

    /// The root of `label`'s tree, each node on the way pointed at it.
    @inline(__always)
    static func find(_ label: Int32, _ parent: inout [Int32]) -> Int32 {
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

    /// The two trees made one under the lower root, which is returned.
    @inline(__always)
    static func union(_ a: Int32, _ b: Int32, _ parent: inout [Int32]) -> Int32 {
        let ra = find(a, &parent), rb = find(b, &parent)
        if ra == rb { return ra }
        let (low, high) = ra < rb ? (ra, rb) : (rb, ra)
        parent[Int(high)] = low
        return low
    }
}

extension ConnectedComponents {
    /// The pieces of `plane` (one channel) brighter than its Otsu threshold, 8-connected, as
    /// `label` gives them, with the plane's samples row after row (`levels`, `width × height`):
    /// where a sheet of paper is looked for, the largest of them.
    public static func brightPieces(of plane: PixelBuffer<UInt8>) -> (levels: [UInt8], labels: [Int32], components: [Component]) {
        let (width, height) = (plane.width, plane.height)
        var levels = [UInt8](repeating: 0, count: width * height)
        plane.withUnsafeBufferPointer { pixels in
            for y in 0..<height { for x in 0..<width { levels[y * width + x] = pixels[y * plane.rowStride + x] } }
        }
        let threshold = Histogram(plane).otsuThreshold
        let (labels, components) = label(levels.map { Int($0) > threshold }, width: width, height: height)
        return (levels, labels, components)
    }
}
