import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// The streak cue against scenes whose answer is known: parallel flare lines of a known
/// angle over a photo-like scene, and textures with no preferred direction.
@Suite("Streak cue")
struct StreakTests {
    let width = 512, height = 384

    /// Soft bright lines (a Gaussian profile of σ 1.2 px, `amplitude` levels at the centre),
    /// every `spacing` px, running at `degrees` counter-clockwise from horizontal as displayed.
    func streaked(_ pixels: [Float], degrees: Double, amplitude: Float = 40, spacing: Double = 21) -> [Float] {
        let theta = degrees * Double.pi / 180
        // The lines' normal in pixel coordinates (y down): their direction is (cos θ, −sin θ).
        let nx = sin(theta), ny = cos(theta)
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let s = Double(x) * nx + Double(y) * ny
                let d = s - spacing * (s / spacing).rounded()
                out[y * width + x] += amplitude * Float(exp(-d * d / (2 * 1.2 * 1.2)))
            }
        }
        return out
    }

    func smudge(_ pixels: [Float]) -> SmudgeObservation {
        SmudgeDetector().analyze(AnalysisImage(luma: Scenes.plane(pixels, width: width, height: height), fullSize: ImageSize(width: width, height: height)))
    }

    /// The smallest difference between two line angles (which repeat every 180°).
    func angleBetween(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 180)
        return min(d, 180 - d)
    }

    @Test(arguments: [15.0, 60, 105, 150])
    func streaksOfAKnownAngleAreFound(degrees: Double) {
        let scene = Scenes.photo(width: width, height: height, seed: 31)
        let clean = smudge(scene), streaks = smudge(streaked(scene, degrees: degrees))
        #expect(angleBetween(streaks.streakAngle, degrees) < 3, "found \(streaks.streakAngle)° for \(degrees)°")
        #expect(streaks.streakAlignment > clean.streakAlignment + 0.3, "\(clean.streakAlignment) → \(streaks.streakAlignment)")
    }

    /// Fainter streaks align the frame less: the cue grows with their contrast.
    @Test func strongerStreaksAlignTheFrameMore() {
        let scene = Scenes.photo(width: width, height: height, seed: 32)
        let ladder = [0, 5, 10, 20, 40].map { smudge(streaked(scene, degrees: 40, amplitude: Float($0))).streakAlignment }
        for (a, b) in zip(ladder, ladder.dropFirst()) { #expect(b > a, "\(ladder)") }
    }

    /// Texture with no preferred direction (smoothed noise, and dots on a grey ground) leaves
    /// the tiles' moments pointing every way: the mean moment stays short.
    @Test func textureWithoutADirectionIsNotAStreak() {
        var generator = SeededGenerator(seed: 33)
        let noise = (0..<(width * height)).map { _ in Float(128) + Float.random(in: -60...60, using: &generator) }
        let smooth = Scenes.gaussian(noise, width: width, height: height, sigma: 1.5)
        #expect(smudge(smooth).streakAlignment < 0.1, "\(smudge(smooth).streakAlignment)")
        var dots = [Float](repeating: 120, count: width * height)
        for _ in 0..<900 {
            let cx = Int.random(in: 0..<width, using: &generator), cy = Int.random(in: 0..<height, using: &generator)
            for y in max(0, cy - 3)...min(height - 1, cy + 3) {
                for x in max(0, cx - 3)...min(width - 1, cx + 3) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= 9 {
                    dots[y * width + x] = 30
                }
            }
        }
        #expect(smudge(dots).streakAlignment < 0.1, "\(smudge(dots).streakAlignment)")
    }

    /// The frame's moment is the mean of the tiles' moments: two tiles at right angles cancel,
    /// two alike keep their length and angle.
    @Test func theFrameMomentIsTheMeanOfTheTiles() {
        let crossed = SmudgeDetector.streaks([.init(x: 1, y: 0), .init(x: -1, y: 0)])
        #expect(abs(crossed.alignment) < 1e-12)
        // (cos 2θ, sin 2θ) for θ = 30°.
        let tile = SmudgeDetector.TileOrientation(x: cos(Double.pi / 3), y: sin(Double.pi / 3))
        let alike = SmudgeDetector.streaks([tile, tile])
        #expect(abs(alike.alignment - 1) < 1e-12 && abs(alike.angle - 30) < 1e-9)
        let none = SmudgeDetector.streaks([])
        #expect(none.alignment == 0 && none.angle == 0)
    }
}
