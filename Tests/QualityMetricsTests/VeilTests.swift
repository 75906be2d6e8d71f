import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

/// The veil cues against scenes whose answer is known: a veil of scattered light added in
/// linear light, and a blur of the same scene, which is not a veil.
@Suite("Veil cues")
struct VeilTests {
    let width = 512, height = 384

    /// `(1 − a)·scene + a·(its mean)` in linear light: a film scattering a share `a` of the light
    /// evenly over the frame (the widest possible halo).
    func veiled(_ pixels: [Float], strength a: Float) -> [Float] {
        let linear = pixels.map { pow(max(0, min(255, $0)) / 255, 2.2) }
        let mean = linear.reduce(0, +) / Float(linear.count)
        return linear.map { 255 * pow((1 - a) * $0 + a * mean, 1 / 2.2) }
    }

    func veil(_ pixels: [Float]) -> VeilAnalysis {
        VeilAnalysis(AnalysisImage(luma: Scenes.plane(pixels, width: width, height: height), fullSize: ImageSize(width: width, height: height)))
    }

    @Test func aStrongerVeilLiftsTheBlacksAndTakesContrastAway() {
        let scene = Scenes.photo(width: width, height: height, seed: 21)
        let ladder = [0, 0.1, 0.2, 0.4, 0.6].map { veil(veiled(scene, strength: Float($0))) }
        for (a, b) in zip(ladder, ladder.dropFirst()) {
            #expect(b.veilFraction > a.veilFraction, "\(ladder.map(\.veilFraction))")
            #expect(b.localContrast < a.localContrast, "\(ladder.map(\.localContrast))")
        }
        #expect(ladder[0].veilFraction < 0.05 && ladder[4].veilFraction > 0.3, "\(ladder.map(\.veilFraction))")
    }

    /// Blur spreads edges but keeps the blacks: the veil fraction of a blurred scene (σ up to
    /// 3 px) stays below that of a veil scattering a tenth of the light.
    @Test func blurIsNotAVeil() {
        let scene = Scenes.photo(width: width, height: height, seed: 22)
        let light = veil(veiled(scene, strength: 0.1))
        for sigma: Float in [1.5, 3] {
            let blurred = veil(Scenes.gaussian(scene, width: width, height: height, sigma: sigma))
            #expect(blurred.veilFraction < light.veilFraction, "σ \(sigma): \(blurred.veilFraction) vs veil 0.1: \(light.veilFraction)")
        }
    }

    /// A flat grey wall (±1 level of noise) has no tone to lift: no tile is textured enough
    /// to judge, and the veil fraction stays 0.
    @Test func aFlatWallHoldsNothingToVeil() {
        var generator = SeededGenerator(seed: 23)
        let wall = (0..<(width * height)).map { _ in Float(200) + Float.random(in: -1...1, using: &generator) }
        #expect(veil(wall).veilFraction == 0)
    }

    /// A lamp: a disc of white (radius 20 px) on a dark, textured ground (levels 10–40).
    func lamp(seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        return (0..<(width * height)).map { i in
            let dx = Double(i % width - width / 2), dy = Double(i / width - height / 2)
            return dx * dx + dy * dy <= 400 ? 255 : Float.random(in: 10...40, using: &generator)
        }
    }

    /// `scene + a·(scene blurred by σ 25 px)` in linear light: a film scattering a share `a`
    /// of the light into a glow around each bright source.
    func glowing(_ pixels: [Float], strength a: Float) -> [Float] {
        let linear = pixels.map { pow(max(0, min(255, $0)) / 255, 2.2) }
        let glow = Scenes.gaussian(linear, width: width, height: height, sigma: 25)
        return zip(linear, glow).map { 255 * pow(min(1, $0 + a * $1), 1 / 2.2) }
    }

    @Test func aGlowAroundTheHighlightsRaisesTheHalo() {
        let scene = lamp(seed: 24)
        let ladder = [0, 0.05, 0.1, 0.2, 0.4].map { veil(glowing(scene, strength: Float($0))).halo }
        for (a, b) in zip(ladder, ladder.dropFirst()) { #expect(b > a, "\(ladder)") }
        #expect(abs(ladder[0]) < 0.002, "\(ladder)")
    }

    /// Blur spreads the lamp's edge by a few pixels; the glow of a film reaches far further.
    @Test func blurIsNotAHalo() {
        let scene = lamp(seed: 25)
        let light = veil(glowing(scene, strength: 0.05)).halo
        for sigma: Float in [1.5, 3] {
            let blurred = veil(Scenes.gaussian(scene, width: width, height: height, sigma: sigma)).halo
            #expect(blurred < light, "σ \(sigma): \(blurred) vs glow 0.05: \(light)")
        }
    }

    /// Without highlights there is no source to scatter: the halo is 0, as it is when they
    /// fill most of the frame.
    @Test func noHighlightsNoHalo() {
        let scene = Scenes.photo(width: width, height: height, seed: 26).map { min($0, 200) }
        #expect(veil(scene).halo == 0)
        let white = lamp(seed: 27).map { _ in Float(250) }
        #expect(veil(white).halo == 0)
    }

    /// The exact values on a plane of two levels per tile: darkest over brightest in linear light.
    @Test func theVeilFractionIsDarkOverBrightInLinearLight() {
        // Every tile holds levels 60 and 200 in equal parts (vertical stripes).
        let samples = (0..<(64 * 64)).map { UInt8(($0 % 64) % 2 == 0 ? 60 : 200) }
        let plane = PixelBuffer(width: 64, height: 64, samples: samples)
        let veil = VeilAnalysis(AnalysisImage(luma: plane, fullSize: plane.size))
        let expected = VeilAnalysis.linear[60] / VeilAnalysis.linear[200]
        #expect(abs(veil.veilFraction - expected) < 1e-12)
        // Each 8-pixel block: half at each level, so the deviation is half the log difference.
        let stops = (VeilAnalysis.logLuminance[200] - VeilAnalysis.logLuminance[60]) / 2
        #expect(abs(veil.localContrast - stops) < 1e-9)
    }
}
