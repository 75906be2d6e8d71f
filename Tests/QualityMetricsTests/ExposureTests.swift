import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@testable import QualityMetrics

@Suite("Exposure measures")
struct ExposureTests {
    @Test func stopsAreLog2OfLinearLightOverMidGrey() {
        // Level 118 is 18 % linear (sRGB), white is log₂(1 / 0.18) stops above it.
        #expect(abs(stops(118)) < 0.02)
        #expect(abs(stops(255) - log2(1 / 0.18)) < 1e-9)
        // One stop down halves the linear light: level 118 → 0.09 linear ≈ level 84.
        #expect(abs(stops(84) + 1) < 0.03)
        #expect(stops(0).isFinite && stops(0) < -10)
    }

    @Test func aFlatPlaneHasNoDetail() {
        let tones = DetailTones(PixelBuffer(width: 40, height: 30, samples: [UInt8](repeating: 90, count: 1200)))
        #expect(tones.total == 0)
        #expect(tones.percentile(0.9) == nil)
        #expect(tones.highlightShare == 0)
    }

    /// A vertical step from `dark` to `bright`: every gradient sits on the two columns beside
    /// the step, whose 3 × 3 means are (2·dark + bright)/3 and (dark + 2·bright)/3.
    @Test func detailLiesAtTheLocalLevelOfTheEdges() {
        let width = 20, height = 10
        var samples = [UInt8](repeating: 30, count: width * height)
        for y in 0..<height { for x in 10..<width { samples[y * width + x] = 210 } }
        let tones = DetailTones(PixelBuffer(width: width, height: height, samples: samples))
        // Interior rows only: 8 rows × 2 columns, each of magnitude (210 − 30) / 2.
        #expect(abs(tones.total - 8 * 2 * 90) < 1e-9)
        #expect(tones.weights[90] == 8 * 90 && tones.weights[150] == 8 * 90)
        #expect(tones.percentile(0.5) == 90 && tones.percentile(0.9) == 150)
        // Every edge pixel has a dark neighbour: none of the detail is highlight detail.
        #expect(tones.highlightShare == 0)
    }

    /// Lit windows in a dark night scene keep the detail bright; the same frame with its
    /// lights darkened as well (under-exposed as a whole) does not.
    @Test func aNightSceneWithLightsIsLessUnderExposedThanADarkenedOne() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 12)
        let dark = Scenes.exposed(photo, stops: -4)
        var night = dark
        for window in 0..<6 {
            let x0 = 40 + window * 75, y0 = 120
            for y in y0..<(y0 + 60) { for x in x0..<(x0 + 40) { night[y * width + x] = photo[y * width + x] } }
        }
        let lit = analyze(night, width: width, height: height).exposure!
        let darkened = analyze(dark, width: width, height: height).exposure!
        #expect(lit.detailP90 > darkened.detailP90 + 50, "\(lit.detailP90) vs \(darkened.detailP90)")
        #expect(lit.underEvidence < darkened.underEvidence - 2, "\(lit.underEvidence) vs \(darkened.underEvidence)")
        #expect(darkened.direction == .under)
    }

    /// The row-vectorised measure gives the bits of the pixel-by-pixel definition: weights
    /// added in pixel order, on a random plane whose width leaves a tail after the vectors.
    @Test func detailTonesMatchThePixelByPixelDefinition() {
        let width = 61, height = 23
        var generator = SeededGenerator(seed: 7)
        let samples = (0..<(width * height)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var weights = [Double](repeating: 0, count: 256), bright = 0.0
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let at = { (dx: Int, dy: Int) in Int(samples[(y + dy) * width + x + dx]) }
                let gx = Double(at(1, 0) - at(-1, 0)) / 2, gy = Double(at(0, 1) - at(0, -1)) / 2
                let magnitude = (gx * gx + gy * gy).squareRoot()
                guard magnitude > 0 else { continue }
                var sum = 0, darkest = 255
                for dy in -1...1 { for dx in -1...1 { sum += at(dx, dy); darkest = min(darkest, at(dx, dy)) } }
                weights[(sum + 4) / 9] += magnitude
                if darkest > DetailTones.brightFloor { bright += magnitude }
            }
        }
        let tones = DetailTones(PixelBuffer(width: width, height: height, samples: samples))
        #expect(tones.weights == weights)
        #expect(tones.brightWeight == bright)
        #expect(tones.total == weights.reduce(0, +))
    }

    /// Clipping counted sixteen pixels at a time gives the per-pixel count: random RGB
    /// around the 250 threshold, a width that leaves a tail.
    @Test func clippedShareMatchesThePixelByPixelCount() {
        var generator = SeededGenerator(seed: 9)
        let width = 53, height = 7
        let samples = (0..<(3 * width * height)).map { _ in UInt8(240 + generator.next() % 16) }
        let expected = (0..<(width * height)).filter { max(samples[3 * $0], samples[3 * $0 + 1], samples[3 * $0 + 2]) >= 250 }.count
        let share = ExposureDetector.clippedShare(rgb: PixelBuffer(width: width, height: height, channels: 3, samples: samples))
        #expect(share == Double(expected) / Double(width * height))
        #expect(expected > 0 && expected < width * height)
    }

    /// Texture between 205 and 245 is all highlight detail.
    @Test func faintTextureInTheHighlightsIsHighlightDetail() {
        let width = 16, height = 16
        // Vertical stripes two pixels wide, so central differences see every transition.
        let samples = (0..<(width * height)).map { UInt8(205 + 40 * (($0 % width) / 2 % 2)) }
        #expect(DetailTones(PixelBuffer(width: width, height: height, samples: samples)).highlightShare == 1)
    }

    /// Detail pushed into the highlights (+2.5 stops) counts as highlight detail; a clipped
    /// flat sky over a well-exposed scene clips without moving the detail up.
    @Test func overExposureMovesDetailIntoTheHighlights() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 13)
        var sky = photo
        for y in 0..<(height / 5) { for x in 0..<width { sky[y * width + x] = 255 } }
        let bright = analyze(Scenes.exposed(photo, stops: 2.5), width: width, height: height).exposure!
        let clippedSky = analyze(sky, width: width, height: height).exposure!
        #expect(bright.highlightDetail > 2 * clippedSky.highlightDetail, "\(bright.highlightDetail) vs \(clippedSky.highlightDetail)")
        #expect(clippedSky.highlightClip > 0.15)
        #expect(bright.direction == .over)
        #expect(clippedSky.overEvidence < bright.overEvidence)
        #expect(bright.detailP90 > clippedSky.detailP90 + 30, "\(bright.detailP90) vs \(clippedSky.detailP90)")
    }

    /// Over-exposure is judged by where the detail sits and how much clips: a white sky over
    /// a tenth of a well-exposed scene is not over-exposed; the scene itself two stops
    /// brighter is (the camera corpus's defective range starts at +1.5), its detail moved up
    /// into the highlights.
    @Test func aWhiteSkyIsNotOverExposureButBrightDetailIs() {
        let width = 512, height = 384
        let photo = Scenes.exposed(Scenes.photo(width: width, height: height, seed: 14), stops: -0.5)
        var sky = photo
        for y in 0..<(height / 10) { for x in 0..<width { sky[y * width + x] = 255 } }
        let clippedSky = analyze(sky, width: width, height: height).exposure!
        let brighter = analyze(Scenes.exposed(photo, stops: 2.5), width: width, height: height).exposure!
        #expect(clippedSky.highlightClip > 0.09)
        #expect(clippedSky.direction == .ok, "\(clippedSky.overEvidence)")
        #expect(brighter.direction == .over, "\(brighter.overEvidence)")
        #expect(brighter.detailP90 > clippedSky.detailP90 + 20, "\(brighter.detailP90) vs \(clippedSky.detailP90)")
    }

    /// A flash photo: a lit subject on a ground beyond the flash's reach. Without the EXIF
    /// flag its median (the black ground) reads as badly exposed; with it, the photo is lit
    /// from the front and judged by the detail the flash lit: well exposed. A flash too
    /// weak for the subject still reads as under-exposed.
    @Test func aFlashPhotoIsJudgedByTheSubjectItLit() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 15)
        func flashShot(subject stops: Float) -> [Float] {
            let lit = Scenes.exposed(photo, stops: stops)
            var frame = [Float](repeating: 2, count: width * height)
            for y in 96..<288 { for x in 160..<352 { frame[y * width + x] = lit[y * width + x] } }
            return frame
        }
        func exposure(_ pixels: [Float], flash: Bool) -> ExposureObservation {
            let plane = Scenes.plane(pixels, width: width, height: height)
            var image = AnalysisImage(luma: plane, fullSize: plane.size)
            image.flashFired = flash
            return ExposureDetector().analyze(image)
        }
        let shot = flashShot(subject: 0)
        let noFlag = exposure(shot, flash: false), flagged = exposure(shot, flash: true)
        #expect(noFlag.direction != .ok, "\(noFlag.underEvidence) \(noFlag.backlitEvidence)")
        #expect(flagged.direction == .ok && flagged.flash, "\(flagged.underEvidence)")
        let weak = exposure(flashShot(subject: -3), flash: true)
        #expect(weak.direction == .under, "\(weak.underEvidence)")
    }

    /// A subject in shadow against a bright background (the light behind it set the
    /// exposure) is backlit; the same subject exposed for itself against the same bright
    /// background is not, and neither is the frame darkened as a whole (under-exposed).
    @Test func aSubjectInShadowAgainstABrightBackgroundIsBacklit() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 21)
        func frame(subject: Float, background: Float) -> [Float] {
            let lit = Scenes.exposed(photo, stops: subject)
            // The upper third is an even bright sky; the subject fills the rest.
            return (0..<(width * height)).map { i in i / width < height / 3 ? background : lit[i] }
        }
        func exposure(_ pixels: [Float]) -> ExposureObservation {
            let plane = Scenes.plane(pixels, width: width, height: height)
            return ExposureDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        }
        let backlit = exposure(frame(subject: -3, background: 240))
        let exposedForSubject = exposure(frame(subject: 0, background: 240))
        #expect(backlit.direction == .backlit, "\(backlit.backlitEvidence) median \(backlit.median) p90 \(backlit.p90)")
        #expect(exposedForSubject.direction == .ok, "\(exposedForSubject.backlitEvidence)")
        #expect(backlit.backlitEvidence > exposedForSubject.backlitEvidence + 3)
        let darkened = exposure(Scenes.exposed(photo, stops: -4))
        #expect(darkened.direction == .under, "\(darkened.underEvidence) vs backlit \(darkened.backlitEvidence)")
    }

    /// A low-key scene, as the camera corpus makes them: a subject in a spot of light metered
    /// at mid-grey, its surroundings five stops down with their texture, passes, though its
    /// median is dark and its brightest tones are the subject's; the same scene with its upper
    /// third a stop and a half up and the rest three and a half down (the light behind the
    /// subject set the exposure) is backlit.
    @Test func aLowKeySceneIsNotBacklit() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 23)
        let radius = 0.16 * Float(width * width + height * height).squareRoot()
        func shot(_ stops: (Int, Int) -> Float) -> ExposureObservation {
            let pixels = (0..<(width * height)).map { i in
                let linear = pow(max(0, photo[i]) / 255, 2.2) * pow(2, stops(i % width, i / width))
                return 255 * pow(min(1, linear), 1 / 2.2)
            }
            let plane = Scenes.plane(pixels, width: width, height: height)
            return ExposureDetector().analyze(AnalysisImage(luma: plane, fullSize: plane.size))
        }
        let lowKey = shot { x, y in
            let dx = Float(x) - Float(width) / 2, dy = Float(y) - Float(height) / 2
            return -5 * (1 - exp(-0.5 * (dx * dx + dy * dy) / (radius * radius)))
        }
        let backlit = shot { _, y in y < height / 3 ? 1.5 : -3.5 }
        let threshold = ModelSet.bundled.threshold("exposure", of: "exposure")
        #expect(lowKey.confidence < threshold && lowKey.backlitEvidence < backlit.backlitEvidence - 2,
                "\(lowKey.backlitEvidence) median \(lowKey.median) p90 \(lowKey.p90) detail \(lowKey.detailP90)")
        #expect(backlit.direction == .backlit && backlit.confidence > threshold,
                "\(backlit.backlitEvidence) median \(backlit.median) p90 \(backlit.p90) detail \(backlit.detailP90)")
    }

    /// A high-key scene (bright, flat shadows, nothing clipped: the display values raised to
    /// the power 0.55, as the camera corpus's high-key scenes are made) is not over-exposed;
    /// the same scene pushed two stops up in linear light, clipping, is.
    @Test func aHighKeySceneIsNotOverExposure() {
        let width = 512, height = 384
        let photo = Scenes.photo(width: width, height: height, seed: 22)
        let highKey = photo.map { 255 * 0.97 * pow(max(0, $0) / 255, 0.55) }
        let key = analyze(highKey, width: width, height: height).exposure!
        let pushed = analyze(Scenes.exposed(photo, stops: 2), width: width, height: height).exposure!
        #expect(key.highlightClip == 0)
        #expect(key.direction == .ok, "\(key.overEvidence) median \(key.median)")
        #expect(pushed.direction == .over, "\(pushed.overEvidence) clip \(pushed.colourClip)")
    }

    /// A saturated colour pushed up clips in one channel while its luma stays near
    /// mid-grey: the clipped share counts the brightest channel.
    @Test func colourClipCountsTheBrightestChannel() {
        var rgb = [UInt8](repeating: 0, count: 4 * 4 * 3)
        for i in 0..<16 { rgb[3 * i] = i < 6 ? 255 : 200; rgb[3 * i + 1] = 90; rgb[3 * i + 2] = 20 }
        let plane = PixelBuffer(width: 4, height: 4, channels: 3, samples: rgb)
        #expect(ExposureDetector.clippedShare(rgb: plane) == 6.0 / 16)
    }
}
