/// Sixteen pixels of interleaved 8-bit RGB (48 bytes from `pixels`) split into their
/// channels, one vector each: three 16-byte loads, then constant picks that the compiler
/// turns into byte shuffles. The loops over RGB rows that are not the colour conversion use
/// it too, so each reads a row sixteen pixels at a time instead of one.
@inlinable @inline(__always)
public func rgbLanes(_ pixels: UnsafeRawPointer) -> (r: SIMD16<UInt8>, g: SIMD16<UInt8>, b: SIMD16<UInt8>) {
    let v0 = pixels.loadUnaligned(as: SIMD16<UInt8>.self)
    let v1 = pixels.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
    let v2 = pixels.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
    let r = SIMD16<UInt8>(
        v0[0], v0[3], v0[6], v0[9], v0[12], v0[15], v1[2], v1[5],
        v1[8], v1[11], v1[14], v2[1], v2[4], v2[7], v2[10], v2[13])
    let g = SIMD16<UInt8>(
        v0[1], v0[4], v0[7], v0[10], v0[13], v1[0], v1[3], v1[6],
        v1[9], v1[12], v1[15], v2[2], v2[5], v2[8], v2[11], v2[14])
    let b = SIMD16<UInt8>(
        v0[2], v0[5], v0[8], v0[11], v0[14], v1[1], v1[4], v1[7],
        v1[10], v1[13], v2[0], v2[3], v2[6], v2[9], v2[12], v2[15])
    return (r, g, b)
}
