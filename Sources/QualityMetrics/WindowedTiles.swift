import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Square tiles of a plane, each less its mean and Hann-windowed, transformed eight at a time,
/// one per lane (`FFT.transform2D(lanes:)`): the frequency-domain view of the frame that the
/// smudge detector's spectra and the blur detector's cepstrum read.
struct WindowedTiles {
    let size: Int
    let fft: FFT
    /// The Hann window, 0.5 − 0.5·cos(2π(i + ½)/size), applied along both axes.
    let window: [Float]

    init(size: Int) {
        self.size = size
        fft = FFT(size: size)
        window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(size))) }
    }

    /// Transforms `tiles` (origins and means) of `plane` eight at a time and hands `body` each
    /// batch: the number of tiles in it and their transforms (`size × size` vectors,
    /// row-major; lane `l` holds the transform of the batch's tile `l`), batches in order.
    func forEachBatch(
        of tiles: [(x: Int, y: Int, mean: Float)], in plane: PixelBuffer<UInt8>,
        _ body: (_ count: Int, _ re: UnsafeMutableBufferPointer<SIMD8<Float>>, _ im: UnsafeMutableBufferPointer<SIMD8<Float>>) -> Void
    ) {
        var re = [SIMD8<Float>](repeating: .zero, count: size * size), im = re
        plane.withUnsafeBufferPointer { pixels in
            re.withUnsafeMutableBufferPointer { re in
                im.withUnsafeMutableBufferPointer { im in
                    for first in stride(from: 0, to: tiles.count, by: 8) {
                        let batch = tiles[first..<min(first + 8, tiles.count)]
                        transform(batch, of: pixels, rowStride: plane.rowStride, re: re, im: im)
                        body(batch.count, re, im)
                    }
                }
            }
        }
    }

    /// Transforms `batch` (at most eight tiles: origin and mean) of `pixels`, a plane of
    /// `rowStride`, into `re` and `im` (`size × size` vectors, row-major): lane `l` holds tile
    /// `l`'s transform, unused lanes the transform of zero.
    func transform(
        _ batch: ArraySlice<(x: Int, y: Int, mean: Float)>, of pixels: UnsafeBufferPointer<UInt8>, rowStride: Int,
        re: UnsafeMutableBufferPointer<SIMD8<Float>>, im: UnsafeMutableBufferPointer<SIMD8<Float>>
    ) {
        let n = size
        precondition(batch.count <= 8, "at most eight tiles a batch")
        for (lane, tile) in batch.enumerated() {
            let origin = pixels.baseAddress! + tile.y * rowStride + tile.x
            for y in 0..<n {
                for x in 0..<n {
                    re[y * n + x][lane] = (Float(origin[y * rowStride + x]) - tile.mean) * window[x] * window[y]
                }
            }
        }
        for lane in batch.count..<8 { for i in 0..<(n * n) { re[i][lane] = 0 } }
        im.update(repeating: .zero)
        fft.transform2D(lanes: re.baseAddress!, im.baseAddress!)
    }

    /// The rounded distance of each bin of an `n × n` spectrum from zero frequency, or 0
    /// beyond `n / 2` (the corners, which radial profiles leave out).
    static func radii(size n: Int) -> [Int32] {
        let half = n / 2
        var radii = [Int32](repeating: 0, count: n * n)
        for v in 0..<n {
            let fy = v <= half ? v : v - n
            for u in 0..<n {
                let fx = u <= half ? u : u - n
                let radius = Int((Double(fx * fx + fy * fy)).squareRoot().rounded())
                if radius <= half { radii[v * n + u] = Int32(radius) }
            }
        }
        return radii
    }
}
