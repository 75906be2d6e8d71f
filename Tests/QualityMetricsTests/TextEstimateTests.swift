import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// The text estimate's row measures, read 64 pixels to a word, against their one-pixel
/// definitions.
@Suite("Text estimate measures")
struct TextEstimateTests {
    /// Stroke-like dark runs on random rows: every width from 1 to 150 (words, partial words,
    /// runs across word boundaries, runs at the edges), thresholds below, inside and above
    /// the levels.
    @Test func darkRunsMatchTheOnePixelDefinition() {
        var generator = SeededGenerator(seed: 3)
        for width in [1, 2, 63, 64, 65, 100, 128, 150] {
            let height = 9
            // Runs of random length (1–80) alternating dark (0–99) and light (100–255).
            var samples: [UInt8] = []
            var dark = generator.next() % 2 == 0
            while samples.count < width * height {
                let length = Int(generator.next() % 80) + 1
                for _ in 0..<length { samples.append(UInt8(dark ? generator.next() % 100 : 100 + generator.next() % 156)) }
                dark.toggle()
            }
            samples.removeLast(samples.count - width * height)
            let detail = PixelBuffer<UInt8>(width: width, height: height, samples: samples)
            for threshold in [-1, 0, 60, 99, 180, 255, 300] {
                var runs = [Int](repeating: 0, count: 65), count = 0
                var profile = [Double](repeating: 0, count: height)
                for y in 0..<height {
                    var length = 0, touchesEdge = true
                    for x in 0..<width {
                        if Int(samples[y * width + x]) <= threshold {
                            length += 1
                            profile[y] += 1
                        } else {
                            if length > 0 && !touchesEdge && length <= 64 {
                                runs[length] += 1
                                count += 1
                            }
                            length = 0
                            touchesEdge = false
                        }
                    }
                }
                let measured = TextDetector.darkRuns(detail, threshold: threshold)
                #expect(measured.runs == runs, "width \(width), threshold \(threshold)")
                #expect(measured.count == count && measured.profile == profile, "width \(width), threshold \(threshold)")
            }
        }
    }

    /// Text lines 23 rows apart give a pitch of 23; the four-lags-at-once autocorrelation
    /// agrees with one lag at a time to the bit (the regularity is its peak's value).
    @Test func linePitchOfAPeriodicProfile() {
        var generator = SeededGenerator(seed: 8)
        let profile = (0..<700).map { y in Double(y % 23 < 9 ? 300 + Int(generator.next() % 40) : Int(generator.next() % 20)) }
        let (pitch, regularity) = TextDetector.linePitch(profile: profile)
        #expect(abs(pitch - 23) < 0.5)
        let mean = profile.reduce(0, +) / Double(profile.count)
        let centred = profile.map { $0 - mean }
        let energy = centred.reduce(0) { $0 + $1 * $1 }
        let lag = Int(pitch.rounded())
        var sum = 0.0
        for y in 0..<(profile.count - lag) { sum += centred[y] * centred[y + lag] }
        #expect(regularity == sum / energy)
    }
}

/// The page rule's guard: characters make a page only when lines took more than 8% of the
/// character-like marks, by either branch that counts them.
@Suite("The page rule")
struct PageRuleTests {
    @Test(arguments: [(0.90, true), (0.95, false)])
    func manyCharactersMakeAPageWhenLinesTookTheirMarks(ungrouped: Double, page: Bool) {
        var text = TextObservation()
        text.characters = 150
        text.ungrouped = ungrouped
        #expect(text.showsPage == page)
    }

    @Test(arguments: [(0.5, true), (0.95, false)])
    func inkOnPaperMakesAPageWhenLinesTookItsMarks(ungrouped: Double, page: Bool) {
        var text = TextObservation()
        text.detected = true
        text.characters = 40
        text.extent = 0.2
        text.ungrouped = ungrouped
        #expect(text.showsPage == page)
    }
}
