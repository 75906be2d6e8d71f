import Foundation
import ImagingCore

/// Synthetic scenes and degradations with known physical meaning, for detector tests.
public enum Scenes {
    /// A photo-like luma scene: a soft gradient, shapes of many sizes and contrasts, fine texture.
    public static func photo(width: Int = 512, height: Int = 384, seed: UInt64 = 1) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        var pixels = background(width: width, height: height)
        for _ in 0..<60 {
            let cx = Float.random(in: 0..<Float(width), using: &generator), cy = Float.random(in: 0..<Float(height), using: &generator)
            let radius = Float.random(in: 4...60, using: &generator), level = Float.random(in: 10...245, using: &generator)
            let square = Bool.random(using: &generator)
            let x0 = max(0, Int(cx - radius)), x1 = min(width - 1, Int(cx + radius))
            let y0 = max(0, Int(cy - radius)), y1 = min(height - 1, Int(cy + radius))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    let dx = Float(x) - cx, dy = Float(y) - cy
                    if square || dx * dx + dy * dy <= radius * radius { pixels[y * width + x] = level }
                }
            }
        }
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] += 6 * sin(Float(x) * 0.9) * sin(Float(y) * 1.3) }
        }
        return pixels
    }

    /// A scene with the statistics of a photograph and no period: white noise smoothed at
    /// octaves of 1–16 px, each weighted by its scale, so the power falls about as 1/f² as a
    /// photograph's does; standard deviation 40 levels around 128.
    public static func fractal(width: Int, height: Int, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        var sum = [Float](repeating: 0, count: width * height)
        for octave in 0..<5 {
            let sigma = Float(1 << octave)
            let noise = (0..<(width * height)).map { _ in Float.random(in: -1...1, using: &generator) }
            let smooth = gaussian(noise, width: width, height: height, sigma: sigma)
            for i in 0..<sum.count { sum[i] += sigma * smooth[i] }
        }
        let mean = sum.reduce(0, +) / Float(sum.count)
        let deviation = (sum.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(sum.count)).squareRoot()
        return sum.map { 128 + 40 * ($0 - mean) / deviation }
    }

    /// A soft diagonal gradient, the ground of the photo-like scenes.
    public static func background(width: Int, height: Int) -> [Float] {
        var pixels = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { pixels[y * width + x] = 70 + 90 * Float(x) / Float(width) + 30 * Float(y) / Float(height) }
        }
        return pixels
    }

    /// A photo-like scene rendered with soft edges: each shape's edge is a Gaussian
    /// step of `softness` pixels (the scene blurred by σ ≈ `softness`, without convolving).
    public static func softPhoto(width: Int, height: Int, softness: Float, seed: UInt64 = 1) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        var pixels = background(width: width, height: height)
        let scale = Float(width) / 512
        let s = max(softness, 0.3)
        for _ in 0..<60 {
            let cx = Float.random(in: 0..<Float(width), using: &generator), cy = Float.random(in: 0..<Float(height), using: &generator)
            let radius = Float.random(in: 4...60, using: &generator) * scale, level = Float.random(in: 10...245, using: &generator)
            let reach = radius + 3 * s
            let x0 = max(0, Int(cx - reach)), x1 = min(width - 1, Int(cx + reach))
            let y0 = max(0, Int(cy - reach)), y1 = min(height - 1, Int(cy + reach))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    let dx = Float(x) - cx, dy = Float(y) - cy
                    let distance = (dx * dx + dy * dy).squareRoot() - radius
                    // Logistic approximation of the Gaussian edge profile.
                    let coverage = 1 / (1 + exp(1.702 * distance / s))
                    pixels[y * width + x] += coverage * (level - pixels[y * width + x])
                }
            }
        }
        return pixels
    }

    /// A page: paper at `paper`, lines of dark "words" (strokes 3 px wide) at `ink`, 30 px
    /// apart, with a blank line after every `linesPerParagraph` lines when given.
    public static func page(width: Int = 600, height: Int = 800, paper: Float = 245, ink: Float = 25, linesPerParagraph: Int? = nil) -> [Float] {
        var pixels = [Float](repeating: paper, count: width * height)
        var generator = SeededGenerator(seed: 5)
        var y = 40, lines = 0
        while y + 20 < height - 40 {
            var x = 40
            while x < width - 60 {
                let word = Int.random(in: 20...70, using: &generator)
                var sx = x
                while sx < min(x + word, width - 40) {
                    for dy in 0..<14 { for dx in 0..<3 { pixels[(y + dy) * width + sx + dx] = ink } }
                    if Bool.random(using: &generator) { for dx in 0..<7 { for dy in 0..<3 { pixels[(y + dy) * width + sx + dx] = ink } } }
                    sx += 7
                }
                x += word + 12
            }
            y += 30
            lines += 1
            if let linesPerParagraph, lines % linesPerParagraph == 0 { y += 30 }
        }
        return pixels
    }

    /// Separable Gaussian blur of standard deviation `sigma` pixels.
    public static func gaussian(_ pixels: [Float], width: Int, height: Int, sigma: Float) -> [Float] {
        guard sigma > 0 else { return pixels }
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        return convolve(pixels, width: width, height: height, horizontal: kernel, vertical: kernel)
    }

    /// Horizontal motion blur over `length` pixels (a box along x).
    public static func motion(_ pixels: [Float], width: Int, height: Int, length: Int) -> [Float] {
        guard length > 1 else { return pixels }
        let kernel = [Float](repeating: 1 / Float(length), count: length | 1)
        return convolve(pixels, width: width, height: height, horizontal: kernel, vertical: [1])
    }

    /// Motion blur in linear light (gamma 2.2): each pixel becomes the mean of the
    /// `length` samples centred on it along the step (`dx`, `dy`) ∈ {−1, 0, 1}², so a
    /// diagonal step smears over `length`·√2 pixels. Samples past the border are left out.
    /// O(1) per pixel: running sums along each line of the direction.
    public static func motion(_ pixels: [Float], width: Int, height: Int, length: Int, dx: Int, dy: Int) -> [Float] {
        precondition(abs(dx) <= 1 && abs(dy) <= 1 && (dx, dy) != (0, 0))
        guard length > 1 else { return pixels }
        let linear = pixels.map { pow(max(0, $0) / 255, 2.2) }
        func inside(_ x: Int, _ y: Int) -> Bool { x >= 0 && x < width && y >= 0 && y < height }
        // prefix[p] = sum of the line's samples up to and including p, in the step's order.
        var prefix = [Float](repeating: 0, count: pixels.count)
        // Visit pixels so that (x − dx, y − dy) comes first.
        let xs = dx >= 0 ? Array(0..<width) : Array((0..<width).reversed())
        let ys = dy >= 0 ? Array(0..<height) : Array((0..<height).reversed())
        for y in ys {
            for x in xs {
                let previous = inside(x - dx, y - dy) ? prefix[(y - dy) * width + x - dx] : 0
                prefix[y * width + x] = previous + linear[y * width + x]
            }
        }
        let before = (length - 1) / 2, after = length - 1 - before
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                var last = 0, first = 0
                while last < after && inside(x + (last + 1) * dx, y + (last + 1) * dy) { last += 1 }
                while first < before && inside(x - (first + 1) * dx, y - (first + 1) * dy) { first += 1 }
                let ex = x + last * dx, ey = y + last * dy
                let sx = x - (first + 1) * dx, sy = y - (first + 1) * dy
                let sum = prefix[ey * width + ex] - (inside(sx, sy) ? prefix[sy * width + sx] : 0)
                out[y * width + x] = 255 * pow(sum / Float(first + last + 1), 1 / 2.2)
            }
        }
        return out
    }

    public static func convolve(_ pixels: [Float], width: Int, height: Int, horizontal: [Float], vertical: [Float]) -> [Float] {
        let rh = horizontal.count / 2, rv = vertical.count / 2
        var temp = [Float](repeating: 0, count: pixels.count), out = temp
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for (k, w) in horizontal.enumerated() { sum += w * pixels[y * width + min(width - 1, max(0, x + k - rh))] }
                temp[y * width + x] = sum
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for (k, w) in vertical.enumerated() { sum += w * temp[min(height - 1, max(0, y + k - rv)) * width + x] }
                out[y * width + x] = sum
            }
        }
        return out
    }

    /// An exposure shift of `stops` in linear light (sRGB-ish gamma 2.2), clipped.
    public static func exposed(_ pixels: [Float], stops: Float) -> [Float] {
        pixels.map { value in
            let linear = pow(max(0, value) / 255, 2.2) * pow(2, stops)
            return 255 * pow(min(1, linear), 1 / 2.2)
        }
    }

    /// A lens smudge: veiling glare (a lifted, lower-contrast image) plus softening, of
    /// `strength` 0…1, over the whole frame.
    public static func smudged(_ pixels: [Float], width: Int, height: Int, strength: Float) -> [Float] {
        let soft = gaussian(pixels, width: width, height: height, sigma: 3 * strength)
        return soft.map { (1 - 0.5 * strength) * $0 + 0.5 * strength * 235 }
    }

    public static func plane(_ pixels: [Float], width: Int, height: Int) -> PixelBuffer<UInt8> {
        PixelBuffer(width: width, height: height, samples: pixels.map { UInt8(max(0, min(255, $0.rounded()))) })
    }
}
