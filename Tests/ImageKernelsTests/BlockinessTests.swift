import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import ImageKernels

@Suite("Blockiness")
struct BlockinessTests {
    /// A smooth ramp cut into flat 8 × 8 blocks (each block the ramp's value at its corner),
    /// as a JPEG too hard compressed keeps only each block's mean.
    func blocks(width: Int, height: Int, offset: Int, period: Int = 8) -> PixelBuffer<UInt8> {
        PixelBuffer<UInt8>.make(width: width, height: height) { x, y in
            let bx = (x + offset) / period * period, by = (y + offset) / period * period
            return 40 + 0.5 * Double(bx) + 0.3 * Double(by)
        }
    }

    @Test func flatBlocksStepOnlyAtTheirGrid() {
        // Steps happen only across block edges: every other phase steps by 0, so the ratio
        // is unbounded and the measure its maximum.
        let plane = blocks(width: 96, height: 64, offset: 0)
        #expect(Blockiness.measure(plane, period: 8) == Blockiness.maximum)
        #expect(Blockiness.measure(PixelBuffer<UInt8>.make(width: 96, height: 64) { _, _ in 90 }, period: 8) == 0, "no step at all")
        // Add a gentle texture that steps at every phase, so the others are not 0.
        let textured = PixelBuffer<UInt8>.make(width: 96, height: 64) { x, y in
            Double(plane[x, y]) + ((x + y) % 2 == 0 ? 1 : 0)
        }
        let value = Blockiness.measure(textured, period: 8)
        #expect(value > 1, "blocky: \(value)")
        // The grid's phase need not be known: shifted by 3 pixels, the same measure.
        let shifted = PixelBuffer<UInt8>.make(width: 96, height: 64) { x, y in
            Double(blocks(width: 96, height: 64, offset: 3)[x, y]) + ((x + y) % 2 == 0 ? 1 : 0)
        }
        #expect(abs(Blockiness.measure(shifted, period: 8) - value) < 0.15 * value)
    }

    @Test func textureAndNoiseStepAlikeAtEveryPhase() {
        let noise = PixelBuffer<UInt8>.random(width: 256, height: 192, seed: 5)
        #expect(abs(Blockiness.measure(noise, period: 8)) < 0.03)
        let waves = PixelBuffer<UInt8>.make(width: 256, height: 192) { x, y in
            120 + 60 * sin(Double(x) * 0.37) + 40 * cos(Double(y) * 0.23) + 20 * sin(Double(x + 2 * y) * 1.3)
        }
        #expect(abs(Blockiness.measure(waves, period: 8)) < 0.05)
    }

    @Test func aHalfSizeDecodeHasAFourPixelGrid() {
        let textured = PixelBuffer<UInt8>.make(width: 96, height: 64) { x, y in
            Double(blocks(width: 96, height: 64, offset: 1, period: 4)[x, y]) + ((x + y) % 2 == 0 ? 1 : 0)
        }
        #expect(Blockiness.measure(textured, period: 4) > 0.3)
        #expect(Blockiness.measure(textured, period: 8) < Blockiness.measure(textured, period: 4))
    }

    @Test func aPlaneUnderTwoPeriodsMeasuresNothing() {
        #expect(Blockiness.measure(PixelBuffer<UInt8>.random(width: 16, height: 100, seed: 1), period: 8) == 0)
    }
}
