import Benchmark
import Foundation
import ImageCodecs
import ImagingCore
import QualityAssessment
import QualityGating
import QualityMetrics

/// A 12 MP RGB photo-like image (smooth light, edges, texture, sensor noise) as a JPEG of
/// quality 90: the same bytes on every machine.
let jpeg: [UInt8] = {
    let width = 4000, height = 3000
    var pixels = PixelBuffer<UInt8>(width: width, height: height, channels: 3)
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    pixels.withUnsafeMutableBufferPointer { out in
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let light = 60 + 120 * x / width + 40 * y / height
                let block = ((x / 250) + (y / 190)) % 3 == 0 ? 50 : 0
                let texture = (x * 3 + y * 5) % 17 < 3 ? 30 : 0
                let base = light + block - texture + Int(state >> 61)
                for c in 0..<3 { out[(y * width + x) * 3 + c] = UInt8(clamping: base + 12 * c - 12) }
            }
        }
    }
    return try! JPEGEncoder.encode(pixels, quality: 90)
}()

/// The analysis image the detectors see for that photo (decoded at half size, as `score` does).
let analysisImage: AnalysisImage = {
    let decoder = ImageDecoder(options: QualityAnalyzer().decodeOptions())
    return AnalysisImage(try! decoder.decode(jpeg))
}()

/// The 12 MP PNG and TIFF `Benchmarks/speed.py` makes, when it has run.
func madeBySpeedScript(_ kind: String, _ name: String) -> [UInt8]? {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".work/12mp-\(kind)/\(name)")
    return (try? Data(contentsOf: url)).map(Array.init)
}

// Names without spaces or slashes: package-benchmark writes threshold files under a
// cleaned name and reads them under the name as given.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(3),
        maxIterations: 20,
        // As for the kernels: 60% slower, 15% more allocations or 10% more peak memory is a regression.
        thresholds: [
            .wallClock: .init(relative: [.p50: 60, .p90: 60]),
            .throughput: .init(relative: [.p50: 60, .p90: 60]),
            .mallocCountTotal: .init(relative: [.p50: 15, .p90: 15], absolute: [.p50: 10, .p90: 10]),
            .peakMemoryResident: .init(relative: [.p50: 10, .p90: 10]),
        ])

    // Decoding alone, RGB, full size and at the scales libjpeg reads directly.
    for (label, scale) in [("full", DecodeScale.full), ("half", .reduced(denominator: 2)), ("quarter", .reduced(denominator: 4))] {
        Benchmark("Decode-JPEG-12MP-\(label)") { benchmark in
            let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true, scale: scale))
            for _ in benchmark.scaledIterations { blackHole(try! decoder.decode(jpeg)) }
        }
    }
    for (kind, name) in [("png", "img000.png"), ("tiff", "img000.tif")] {
        guard let bytes = madeBySpeedScript(kind, name) else { continue }
        Benchmark("Decode-\(kind.uppercased())-12MP") { benchmark in
            let decoder = ImageDecoder(options: DecodeOptions(wantsRGB: true))
            for _ in benchmark.scaledIterations { blackHole(try! decoder.decode(bytes)) }
        }
    }

    // Each detector with the shared steps it needs, on the analysis image.
    for kind in DetectorKind.allCases {
        Benchmark("Detector-\(kind.rawValue)") { benchmark in
            let analyzer = QualityAnalyzer(detectors: [kind])
            for _ in benchmark.scaledIterations { blackHole(analyzer.analyze(analysisImage)) }
        }
    }
    Benchmark("Detector-all") { benchmark in
        let analyzer = QualityAnalyzer()
        for _ in benchmark.scaledIterations { blackHole(analyzer.analyze(analysisImage)) }
    }

    // The whole assessment of the JPEG bytes: decode, analysis image, detectors, gate.
    Benchmark("Assess-12MP-JPEG") { benchmark in
        let assessor = Assessor()
        for _ in benchmark.scaledIterations { blackHole(assessor.assess(.encoded(jpeg, name: "photo.jpg"))) }
    }
}
