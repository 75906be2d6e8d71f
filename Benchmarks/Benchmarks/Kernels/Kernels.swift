import Benchmark
import ImageKernels
import ImagingCore

/// A 4 000 × 3 000 plane of texture and noise: what a 12 MP photo's luma costs a kernel.
let plane: PixelBuffer<UInt8> = {
    var plane = PixelBuffer<UInt8>(width: 4000, height: 3000)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    plane.withUnsafeMutableBufferPointer { pixels in
        for y in 0..<3000 {
            for x in 0..<4000 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let texture = (x / 7 + y / 5) % 9 * 20
                pixels[y * 4000 + x] = UInt8(truncatingIfNeeded: texture + Int(state >> 60))
            }
        }
    }
    return plane
}()

/// The same pixels as interleaved RGB at a quarter of the size (a 1/2-scale decode's colour).
let rgb: PixelBuffer<UInt8> = {
    var rgb = PixelBuffer<UInt8>(width: 2000, height: 1500, channels: 3)
    for y in 0..<1500 { for x in 0..<2000 { for c in 0..<3 { rgb[x, y, c] = plane[2 * x + c, 2 * y] } } }
    return rgb
}()

let megapixels = 12

// Names without spaces or slashes: package-benchmark writes threshold files under a
// cleaned name and reads them under the name as given.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(3),
        maxIterations: 30,
        // Timing varies with the machine and what else runs on it (runs on a shared 2-core
        // machine differ by up to half): a regression is 60% slower or 60% less throughput;
        // 15% more allocations (a few background ones come and go); 10% more peak memory.
        thresholds: [
            .wallClock: .init(relative: [.p50: 60, .p90: 60]),
            .throughput: .init(relative: [.p50: 60, .p90: 60]),
            .mallocCountTotal: .init(relative: [.p50: 15, .p90: 15], absolute: [.p50: 10, .p90: 10]),
            .peakMemoryResident: .init(relative: [.p50: 10, .p90: 10]),
        ])

    for implementation in KernelImplementation.allCases {
        let name = implementation.rawValue
        // The Laplacian statistics the blur detector reads, on a whole 12 MP plane.
        // Throughput is in planes per second: × 12 for megapixels.
        Benchmark("LaplacianTileMoments-12MP-\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(Stencil.laplacian.tileMoments(plane, tileSize: 64, implementation: implementation))
            }
        }
        Benchmark("Histogram-12MP-\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(Histogram(plane, implementation: implementation)) }
        }
        Benchmark("AreaResample-12MP-to-1024-\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(AreaResample.resize(plane, to: ImageSize(width: 1024, height: 768), implementation: implementation))
            }
        }
        Benchmark("Colourfulness-3MP-RGB-\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(Colourfulness(rgb: rgb, implementation: implementation)) }
        }
        // 192 tiles of 64 × 64, as the smudge detector transforms them: the scalar twin one
        // tile at a time, the SIMD path eight tiles at once, one per lane (`transform2D(lanes:)`).
        Benchmark("FFT-64x64-2D-192tiles-\(name)") { benchmark in
            let fft = FFT(size: 64), n = 64
            var re = [Float](repeating: 0, count: n * n), im = re
            var lanesRe = [SIMD8<Float>](repeating: .zero, count: n * n), lanesIm = lanesRe
            for _ in benchmark.scaledIterations {
                for first in stride(from: 0, to: 192, by: 8) {
                    for tile in first..<(first + 8) {
                        for i in 0..<(n * n) {
                            let value = Float(plane[(tile % 32) * n + i % n, (tile / 32) * n + i / n])
                            if implementation == .scalar { re[i] = value; im[i] = 0 } else { lanesRe[i][tile - first] = value }
                        }
                        if implementation == .scalar { fft.transform2D(real: &re, imaginary: &im, implementation: .scalar) }
                    }
                    if implementation == .simd {
                        for i in 0..<(n * n) { lanesIm[i] = .zero }
                        lanesRe.withUnsafeMutableBufferPointer { r in
                            lanesIm.withUnsafeMutableBufferPointer { m in fft.transform2D(lanes: r.baseAddress!, m.baseAddress!) }
                        }
                    }
                }
                blackHole(re)
                blackHole(lanesRe)
            }
        }
    }
}
