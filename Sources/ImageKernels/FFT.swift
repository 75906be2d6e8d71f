import Foundation

/// A radix-2 complex FFT of power-of-two size, and 2-D transforms of square tiles.
///
/// The SIMD path transforms eight sequences at once, one per lane, with exactly the
/// operations the scalar path applies to one sequence, so both give the same bits.
/// Forward transform, no normalisation: X[k] = Σ x[n] e^(−2πi kn/N).
public struct FFT: Sendable {
    public let size: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    /// - Precondition: `size` is a power of two, at least 2.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        cosines = (0..<size / 2).map { Float(cos(-2 * Double.pi * Double($0) / Double(size))) }
        sines = (0..<size / 2).map { Float(sin(-2 * Double.pi * Double($0) / Double(size))) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { index in
            var value = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { value |= 1 << (bits - 1 - bit) }
            return value
        }
    }

    /// Transforms one sequence in place (the scalar reference).
    public func transform(real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        butterflies(real, imaginary)
    }

    /// Transforms eight sequences in place, lane `l` of element `i` being element `i` of sequence `l`.
    public func transform(real: UnsafeMutablePointer<SIMD8<Float>>, imaginary: UnsafeMutablePointer<SIMD8<Float>>) {
        butterflies(real, imaginary)
    }

    /// The transform of one sequence whose elements lie `stride` apart.
    @inline(__always)
    private func butterflies<T: FFTElement>(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>, stride: Int = 1) {
        let n = size
        reversed.withUnsafeBufferPointer { reversed in
            for i in 0..<n {
                let j = reversed[i]
                if j > i {
                    swap(&re[i * stride], &re[j * stride])
                    swap(&im[i * stride], &im[j * stride])
                }
            }
        }
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                var half = 1
                while half < n {
                    let step = n / (2 * half)
                    var start = 0
                    while start < n {
                        for k in 0..<half {
                            let c = T(cosines[k * step]), s = T(sines[k * step])
                            let a = (start + k) * stride, b = a + half * stride
                            let tr = re[b] * c - im[b] * s
                            let ti = re[b] * s + im[b] * c
                            re[b] = re[a] - tr
                            im[b] = im[a] - ti
                            re[a] = re[a] + tr
                            im[a] = im[a] + ti
                        }
                        start += 2 * half
                    }
                    half *= 2
                }
            }
        }
    }

    /// The 2-D transform of a `size × size` row-major tile, in place: rows, then columns.
    public func transform2D(real: inout [Float], imaginary: inout [Float], implementation: KernelImplementation = .current) {
        precondition(real.count == size * size && imaginary.count == size * size)
        let n = size
        switch implementation {
        case .scalar:
            var rowRe = [Float](repeating: 0, count: n), rowIm = [Float](repeating: 0, count: n)
            for pass in 0..<2 {
                for line in 0..<n {
                    for i in 0..<n {
                        let index = pass == 0 ? line * n + i : i * n + line
                        rowRe[i] = real[index]
                        rowIm[i] = imaginary[index]
                    }
                    rowRe.withUnsafeMutableBufferPointer { r in
                        rowIm.withUnsafeMutableBufferPointer { m in transform(real: r.baseAddress!, imaginary: m.baseAddress!) }
                    }
                    for i in 0..<n {
                        let index = pass == 0 ? line * n + i : i * n + line
                        real[index] = rowRe[i]
                        imaginary[index] = rowIm[i]
                    }
                }
            }
        case .simd:
            // Eight lines at a time, one per lane. Rows are gathered with a stride of n;
            // columns are eight adjacent floats of each row, loaded and stored whole.
            var vRe = [SIMD8<Float>](repeating: .zero, count: n), vIm = vRe
            real.withUnsafeMutableBufferPointer { realBuffer in
                imaginary.withUnsafeMutableBufferPointer { imaginaryBuffer in
                    vRe.withUnsafeMutableBufferPointer { lanesRe in
                        vIm.withUnsafeMutableBufferPointer { lanesIm in
                            let re = realBuffer.baseAddress!, im = imaginaryBuffer.baseAddress!
                            let r = lanesRe.baseAddress!, m = lanesIm.baseAddress!
                            for pass in 0..<2 {
                                var first = 0
                                while first < n {
                                    let lanes = min(8, n - first)
                                    Self.gather(re, im, into: r, m, pass: pass, first: first, lanes: lanes, n: n)
                                    transform(real: r, imaginary: m)
                                    Self.scatter(r, m, into: re, im, pass: pass, first: first, lanes: lanes, n: n)
                                    first += 8
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The 2-D transforms of eight `size × size` tiles at once, in place, lane `l` of element
    /// `y · size + x` being pixel (x, y) of tile `l`: rows, then columns, with the operations
    /// `transform2D(real:imaginary:)` applies to one tile, so each lane gets the same bits.
    /// No gathering: a row is `size` adjacent vectors, a column the vectors `size` apart.
    public func transform2D(lanes re: UnsafeMutablePointer<SIMD8<Float>>, _ im: UnsafeMutablePointer<SIMD8<Float>>) {
        let n = size
        for row in 0..<n { butterflies(re + row * n, im + row * n) }
        for column in 0..<n { butterflies(re + column, im + column, stride: n) }
    }

    /// Lines `first..<first + lanes` of a tile into lanes: rows (pass 0) or columns (pass 1).
    @inline(__always)
    private static func gather(
        _ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, into r: UnsafeMutablePointer<SIMD8<Float>>,
        _ m: UnsafeMutablePointer<SIMD8<Float>>, pass: Int, first: Int, lanes: Int, n: Int
    ) {
        if pass == 1 && lanes == 8 {
            for i in 0..<n {
                r[i] = UnsafeRawPointer(re + i * n + first).loadUnaligned(as: SIMD8<Float>.self)
                m[i] = UnsafeRawPointer(im + i * n + first).loadUnaligned(as: SIMD8<Float>.self)
            }
            return
        }
        for i in 0..<n {
            var vr = SIMD8<Float>(), vm = SIMD8<Float>()
            for lane in 0..<lanes {
                let index = pass == 0 ? (first + lane) * n + i : i * n + first + lane
                vr[lane] = re[index]
                vm[lane] = im[index]
            }
            r[i] = vr
            m[i] = vm
        }
    }

    /// The inverse of `gather`.
    @inline(__always)
    private static func scatter(
        _ r: UnsafeMutablePointer<SIMD8<Float>>, _ m: UnsafeMutablePointer<SIMD8<Float>>, into re: UnsafeMutablePointer<Float>,
        _ im: UnsafeMutablePointer<Float>, pass: Int, first: Int, lanes: Int, n: Int
    ) {
        if pass == 1 && lanes == 8 {
            for i in 0..<n {
                UnsafeMutableRawPointer(re + i * n + first).storeBytes(of: r[i], as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(im + i * n + first).storeBytes(of: m[i], as: SIMD8<Float>.self)
            }
            return
        }
        for i in 0..<n {
            let vr = r[i], vm = m[i]
            for lane in 0..<lanes {
                let index = pass == 0 ? (first + lane) * n + i : i * n + first + lane
                re[index] = vr[lane]
                im[index] = vm[lane]
            }
        }
    }
}

/// Float or SIMD8<Float>: what the butterflies need.
protocol FFTElement {
    init(_ value: Float)
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
}

extension Float: FFTElement {}

extension SIMD8: FFTElement where Scalar == Float {
    init(_ value: Float) { self.init(repeating: value) }
}
