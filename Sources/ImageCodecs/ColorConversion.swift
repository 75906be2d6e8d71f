import ImagingCore

/// How the channels of decoded, stored pixels are to be read.
enum ColorModel: Equatable {
    case gray
    case grayAlpha(premultiplied: Bool)
    case rgb
    case rgba(premultiplied: Bool)
    /// CMYK as stored; `inverted` when an Adobe APP14 marker says 0 means full ink.
    case cmyk(inverted: Bool)

    var channels: Int {
        switch self {
        case .gray: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba, .cmyk: 4
        }
    }
}

/// Integer colour arithmetic shared by 8- and 16-bit samples.
///
/// Luma is ITU-R BT.601 (Y = 0.299 R + 0.587 G + 0.114 B), the weighting JPEG's
/// YCbCr uses, in 16-bit fixed point for 8-bit samples (matching libjpeg's own RGB→Y)
/// and 24-bit fixed point for 16-bit samples.
/// Transparent pixels are composited onto white, as a page or a screenshot is viewed.
enum ColorMath<Sample: FixedWidthInteger & UnsignedInteger & Sendable> {
    @inline(__always) static var full: UInt64 { UInt64(Sample.max) }

    @inline(__always)
    static func lumaOf(_ r: UInt64, _ g: UInt64, _ b: UInt64) -> Sample {
        if Sample.bitWidth == 8 {
            // 16-bit fixed point, as libjpeg computes Y.
            return Sample(truncatingIfNeeded: (19595 &* r &+ 38470 &* g &+ 7471 &* b &+ 32768) >> 16)
        }
        // 24-bit fixed point keeps 16-bit samples within half a code value of the real formula.
        return Sample(truncatingIfNeeded: (5_016_388 &* r &+ 9_848_226 &* g &+ 1_912_602 &* b &+ (1 << 23)) >> 24)
    }

    @inline(__always)
    static func overWhite(_ value: UInt64, alpha: UInt64, premultiplied: Bool) -> UInt64 {
        if premultiplied { return min(value &+ (full &- alpha), full) }
        return (value &* alpha &+ full &* (full &- alpha) &+ full / 2) / full
    }

    /// One minus ink: `inverted` data already stores 255 − ink.
    @inline(__always)
    static func cmykChannel(_ ink: UInt64, black: UInt64, inverted: Bool) -> UInt64 {
        let c = inverted ? ink : full &- ink
        let k = inverted ? black : full &- black
        return (c &* k &+ full / 2) / full
    }

    /// Sixteen bytes as 32-bit lanes, and back (the low byte of each): built from four-lane
    /// conversions, which inline, where the sixteen-lane generic ones stay a call per vector.
    @inline(__always)
    static func widened(_ v: SIMD16<UInt8>) -> SIMD16<UInt32> {
        SIMD16(
            lowHalf: SIMD8(lowHalf: SIMD4(truncatingIfNeeded: v.lowHalf.lowHalf), highHalf: SIMD4(truncatingIfNeeded: v.lowHalf.highHalf)),
            highHalf: SIMD8(lowHalf: SIMD4(truncatingIfNeeded: v.highHalf.lowHalf), highHalf: SIMD4(truncatingIfNeeded: v.highHalf.highHalf)))
    }

    @inline(__always)
    static func narrowed(_ v: SIMD16<UInt32>) -> SIMD16<UInt8> {
        SIMD16(
            lowHalf: SIMD8(lowHalf: SIMD4(truncatingIfNeeded: v.lowHalf.lowHalf), highHalf: SIMD4(truncatingIfNeeded: v.lowHalf.highHalf)),
            highHalf: SIMD8(lowHalf: SIMD4(truncatingIfNeeded: v.highHalf.lowHalf), highHalf: SIMD4(truncatingIfNeeded: v.highHalf.highHalf)))
    }

    /// Luma of the leading pixels of a row of 8-bit RGB, sixteen at a time (`rgbLanes`), with
    /// the integer arithmetic of `lumaOf` in 32 bits.
    /// Returns how many pixels it did, a multiple of 16; the caller does the rest.
    @inline(__always)
    static func lumaOfRGB(_ row: UnsafeRawPointer, into out: UnsafeMutableRawPointer, width: Int) -> Int {
        var x = 0
        while x + 16 <= width {
            let (r, g, b) = rgbLanes(row + 3 * x)
            let y = (19595 &* widened(r) &+ 38470 &* widened(g) &+ 7471 &* widened(b) &+ 32768) &>> 16
            (out + x).storeBytes(of: narrowed(y), as: SIMD16<UInt8>.self)
            x += 16
        }
        return x
    }

    /// Converts stored pixels to a luma plane and, if `rgb` is non-nil, an RGB buffer.
    /// `luma` and `rgb` are reshaped in place so their allocations are reused.
    static func convert(
        _ stored: PixelBuffer<Sample>, model: ColorModel,
        luma: inout PixelBuffer<Sample>, rgb: inout PixelBuffer<Sample>?
    ) {
        let width = stored.width, height = stored.height
        if model == .gray {
            luma = stored
            if rgb != nil {
                rgb!.reshape(width: width, height: height, channels: 3)
                stored.withUnsafeBufferPointer { source in
                    rgb!.withUnsafeMutableBufferPointer { out in
                        for i in 0..<(width * height) {
                            out[3 * i] = source[i]
                            out[3 * i + 1] = source[i]
                            out[3 * i + 2] = source[i]
                        }
                    }
                }
            }
            return
        }
        if model == .rgb && rgb != nil {
            rgb = stored
        }
        luma.reshape(width: width, height: height, channels: 1)
        let wantsRGB = rgb != nil && model != .rgb
        if wantsRGB { rgb!.reshape(width: width, height: height, channels: 3) }
        let channels = model.channels
        let stride = stored.rowStride
        var rgbScratch = PixelBuffer<Sample>()
        if wantsRGB { swap(&rgbScratch, &rgb!) }
        defer { if wantsRGB { swap(&rgbScratch, &rgb!) } }
        if model == .rgb && Sample.bitWidth == 8 {
            // The common case (an RGB JPEG or PNG), without the per-pixel switch: the same
            // arithmetic in 32 bits, which the compiler vectorises.
            stored.withUnsafeBufferPointer { source in
                luma.withUnsafeMutableBufferPointer { lumaOut in
                    for y in 0..<height {
                        let row = source.baseAddress! + y * stride, out = lumaOut.baseAddress! + y * width
                        let x = Sample.bitWidth == 8 ? lumaOfRGB(UnsafeRawPointer(row), into: UnsafeMutableRawPointer(out), width: width) : 0
                        for x in x..<width {
                            let r = UInt32(row[3 * x]), g = UInt32(row[3 * x + 1]), b = UInt32(row[3 * x + 2])
                            out[x] = Sample(truncatingIfNeeded: (19595 &* r &+ 38470 &* g &+ 7471 &* b &+ 32768) >> 16)
                        }
                    }
                }
            }
            return
        }
        stored.withUnsafeBufferPointer { source in
            luma.withUnsafeMutableBufferPointer { lumaOut in
                rgbScratch.withUnsafeMutableBufferPointer { rgbOut in
                    for y in 0..<height {
                        let row = y * stride
                        let outRow = y * width
                        for x in 0..<width {
                            let s = row + x * channels
                            var r: UInt64, g: UInt64, b: UInt64
                            switch model {
                            case .gray:
                                r = UInt64(source[s]); g = r; b = r
                            case .grayAlpha(let premultiplied):
                                r = overWhite(UInt64(source[s]), alpha: UInt64(source[s + 1]), premultiplied: premultiplied)
                                g = r; b = r
                            case .rgb:
                                r = UInt64(source[s]); g = UInt64(source[s + 1]); b = UInt64(source[s + 2])
                            case .rgba(let premultiplied):
                                let a = UInt64(source[s + 3])
                                r = overWhite(UInt64(source[s]), alpha: a, premultiplied: premultiplied)
                                g = overWhite(UInt64(source[s + 1]), alpha: a, premultiplied: premultiplied)
                                b = overWhite(UInt64(source[s + 2]), alpha: a, premultiplied: premultiplied)
                            case .cmyk(let inverted):
                                let k = UInt64(source[s + 3])
                                r = cmykChannel(UInt64(source[s]), black: k, inverted: inverted)
                                g = cmykChannel(UInt64(source[s + 1]), black: k, inverted: inverted)
                                b = cmykChannel(UInt64(source[s + 2]), black: k, inverted: inverted)
                            }
                            lumaOut[outRow + x] = lumaOf(r, g, b)
                            if wantsRGB {
                                let o = 3 * (outRow + x)
                                rgbOut[o] = Sample(truncatingIfNeeded: r)
                                rgbOut[o + 1] = Sample(truncatingIfNeeded: g)
                                rgbOut[o + 2] = Sample(truncatingIfNeeded: b)
                            }
                        }
                    }
                }
            }
        }
    }
}
