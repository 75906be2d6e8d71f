import ImagingCore

/// A 256-bin histogram of 8-bit samples, with percentiles.
public struct Histogram: Sendable, Equatable {
    public var counts: [Int]

    public init(counts: [Int]) {
        precondition(counts.count == 256)
        self.counts = counts
    }

    /// Counts every sample of `plane` (one channel).
    ///
    /// The SIMD-era variant keeps four sub-histograms so consecutive equal samples do
    /// not serialise on one counter; it is exact, like the scalar reference, which counts
    /// the whole plane as `init(_:in:)` counts a rectangle.
    public init(_ plane: PixelBuffer<UInt8>, implementation: KernelImplementation = .current) {
        guard implementation == .simd else {
            self.init(plane, in: PixelRect(x: 0, y: 0, width: plane.width, height: plane.height))
            return
        }
        var counts = [Int](repeating: 0, count: 256)
        let width = plane.width, stride = plane.rowStride
        plane.withUnsafeBufferPointer { pixels in
            counts.withUnsafeMutableBufferPointer { bins in
                var sub = [Int32](repeating: 0, count: 4 * 256)
                sub.withUnsafeMutableBufferPointer { s in
                    for y in 0..<plane.height {
                        let row = pixels.baseAddress! + y * stride
                        var x = 0
                        while x + 4 <= width {
                            s[Int(row[x])] &+= 1
                            s[256 + Int(row[x + 1])] &+= 1
                            s[512 + Int(row[x + 2])] &+= 1
                            s[768 + Int(row[x + 3])] &+= 1
                            x += 4
                        }
                        while x < width {
                            s[Int(row[x])] &+= 1
                            x += 1
                        }
                        // Flush before an Int32 counter could overflow.
                        if y % 4096 == 4095 {
                            for i in 0..<256 { bins[i] += Int(s[i]) + Int(s[256 + i]) + Int(s[512 + i]) + Int(s[768 + i]) }
                            for i in 0..<1024 { s[i] = 0 }
                        }
                    }
                    for i in 0..<256 { bins[i] += Int(s[i]) + Int(s[256 + i]) + Int(s[512 + i]) + Int(s[768 + i]) }
                }
            }
        }
        self.init(counts: counts)
    }

    /// Counts every `step`-th sample of every `step`-th row of `plane` (one channel), from
    /// the first: a quarter of the work at step 2, for what the shape of the levels decides
    /// (a threshold) rather than exact counts.
    public init(_ plane: PixelBuffer<UInt8>, step: Int) {
        precondition(step >= 1)
        var counts = [Int](repeating: 0, count: 256)
        plane.withUnsafeBufferPointer { pixels in
            counts.withUnsafeMutableBufferPointer { bins in
                for y in Swift.stride(from: 0, to: plane.height, by: step) {
                    let row = pixels.baseAddress! + y * plane.rowStride
                    for x in Swift.stride(from: 0, to: plane.width, by: step) { bins[Int(row[x])] += 1 }
                }
            }
        }
        self.counts = counts
    }

    /// Counts the samples of `plane` (one channel) inside `rect`, clipped to the plane; an
    /// empty histogram when nothing of it lies inside.
    public init(_ plane: PixelBuffer<UInt8>, in rect: PixelRect) {
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(plane.width, rect.x + rect.width), y1 = min(plane.height, rect.y + rect.height)
        var counts = [Int](repeating: 0, count: 256)
        if x1 > x0, y1 > y0 {
            // Counted through the buffers' pointers: an array's `+=` checks its bounds and that
            // its storage is unshared at every sample.
            plane.withUnsafeBufferPointer { pixels in
                counts.withUnsafeMutableBufferPointer { bins in
                    let bins = bins.baseAddress!
                    for y in y0..<y1 {
                        let row = pixels.baseAddress! + y * plane.rowStride
                        for x in x0..<x1 { bins[Int(row[x])] += 1 }
                    }
                }
            }
        }
        self.counts = counts
    }

    public var total: Int { counts.reduce(0, +) }

    /// The number of samples ≤ `value` (`value` taken within 0…255).
    public func count(atOrBelow value: Int) -> Int {
        counts[0...max(0, min(255, value))].reduce(0, +)
    }

    /// The smallest value v such that at least `fraction` of the samples are ≤ v (0…255).
    public func percentile(_ fraction: Double) -> Int {
        let total = self.total
        guard total > 0 else { return 0 }
        let target = max(1, Int((fraction * Double(total)).rounded(.up)))
        var running = 0
        for (value, count) in counts.enumerated() {
            running += count
            if running >= target { return value }
        }
        return 255
    }

    /// The fraction of samples ≤ `value`.
    public func fraction(atOrBelow value: Int) -> Double {
        let total = self.total
        guard total > 0 else { return 0 }
        return Double(count(atOrBelow: value)) / Double(total)
    }

    /// The fraction of samples ≥ `value`.
    public func fraction(atOrAbove value: Int) -> Double {
        let total = self.total
        guard total > 0 else { return 0 }
        return Double(counts[max(0, min(255, value))...].reduce(0, +)) / Double(total)
    }

    /// Otsu's threshold: the level that maximises the variance between the samples at or
    /// below it and those above it (the first such level); 127 when no level splits the
    /// samples in two (all of one level, or none).
    public var otsuThreshold: Int {
        let total = Double(self.total)
        let sum = Double(counts.enumerated().reduce(0) { $0 + $1.offset * $1.element })
        var weight0 = 0.0, sum0 = 0.0, best = 0.0, threshold = 127
        for t in 0..<255 {
            weight0 += Double(counts[t])
            guard weight0 > 0 else { continue }
            let weight1 = total - weight0
            guard weight1 > 0 else { break }
            sum0 += Double(t * counts[t])
            let m0 = sum0 / weight0, m1 = (sum - sum0) / weight1
            let between = weight0 * weight1 * (m0 - m1) * (m0 - m1)
            if between > best {
                best = between
                threshold = t
            }
        }
        return threshold
    }

    public var mean: Double {
        let total = self.total
        guard total > 0 else { return 0 }
        return Double(counts.enumerated().reduce(0) { $0 + $1.offset * $1.element }) / Double(total)
    }
}
