/// An image's samples: `height` rows of `width` pixels of `channels` interleaved
/// samples each, rows `rowStride` samples apart.
///
/// A value type (copy on write). Reshaping keeps the allocation when it is large
/// enough, so one buffer can be reused across many images of similar size.
public struct PixelBuffer<Sample: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable, Equatable {
    @usableFromInline var _width: Int
    @usableFromInline var _height: Int
    @usableFromInline var _channels: Int
    @usableFromInline var _rowStride: Int
    @usableFromInline var _samples: [Sample]

    @inlinable public var width: Int { _width }
    @inlinable public var height: Int { _height }
    @inlinable public var channels: Int { _channels }
    /// Samples from the start of one row to the start of the next (≥ `width × channels`).
    @inlinable public var rowStride: Int { _rowStride }
    /// The storage: `rowStride × height` samples.
    @inlinable public var samples: [Sample] { _samples }

    /// A zero-filled buffer with tightly packed rows.
    @inlinable
    public init(width: Int, height: Int, channels: Int = 1) {
        precondition(width >= 0 && height >= 0 && channels > 0, "invalid buffer shape")
        _width = width
        _height = height
        _channels = channels
        _rowStride = width * channels
        let count = width * channels * height
        // Zero bytes are the sample 0 of every sample type: one fill of the bytes, where an
        // unspecialised `Array(repeating:count:)` copies sample by sample through the type's
        // value witness (callers in other modules reach this initialiser unspecialised).
        // The bytes are bound back to the sample type once zeroed.
        _samples = [Sample](unsafeUninitializedCapacity: count) { buffer, initialized in
            let bytes = UnsafeMutableRawBufferPointer(buffer)
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
            _ = bytes.bindMemory(to: Sample.self)
            initialized = count
        }
    }

    /// A buffer over existing samples with tightly packed rows.
    @inlinable
    public init(width: Int, height: Int, channels: Int = 1, samples: [Sample]) {
        precondition(samples.count == width * height * channels, "sample count does not match the shape")
        _width = width
        _height = height
        _channels = channels
        _rowStride = width * channels
        _samples = samples
    }

    /// An empty buffer, ready to be reshaped.
    @inlinable
    public init() {
        self.init(width: 0, height: 0)
    }

    @inlinable public var size: ImageSize { ImageSize(width: _width, height: _height) }

    /// Bits per sample: 8 or 16.
    public static var bitDepth: Int { Sample.bitWidth }

    /// The largest sample value (255 or 65535).
    public static var maxValue: Sample { Sample.max }

    /// Changes the shape, keeping the allocation when it is large enough.
    /// Sample values after a reshape are unspecified.
    @inlinable
    public mutating func reshape(width: Int, height: Int, channels: Int) {
        precondition(width >= 0 && height >= 0 && channels > 0, "invalid buffer shape")
        _width = width
        _height = height
        _channels = channels
        _rowStride = width * channels
        let needed = _rowStride * height
        if _samples.count < needed {
            if _samples.capacity >= needed {
                _samples.append(contentsOf: repeatElement(0, count: needed - _samples.count))
            } else {
                _samples = Array(repeating: 0, count: needed)
            }
        } else if _samples.count > needed {
            _samples.removeLast(_samples.count - needed)
        }
    }

    /// The sample at column `x`, row `y`, channel `channel` (top-left origin).
    @inlinable
    public subscript(x: Int, y: Int, channel: Int = 0) -> Sample {
        get { _samples[y * _rowStride + x * _channels + channel] }
        set { _samples[y * _rowStride + x * _channels + channel] = newValue }
    }

    /// Calls `body` with the storage.
    @inlinable
    public func withUnsafeBufferPointer<R, E: Error>(_ body: (UnsafeBufferPointer<Sample>) throws(E) -> R) throws(E) -> R {
        var result: Result<R, E>!
        _samples.withUnsafeBufferPointer { pointer in
            do throws(E) { result = .success(try body(pointer)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// Calls `body` with mutable storage.
    @inlinable
    public mutating func withUnsafeMutableBufferPointer<R, E: Error>(
        _ body: (UnsafeMutableBufferPointer<Sample>) throws(E) -> R
    ) throws(E) -> R {
        var result: Result<R, E>!
        _samples.withUnsafeMutableBufferPointer { pointer in
            do throws(E) { result = .success(try body(pointer)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// The pixels of `rect` (every channel), copied row by row into a tightly packed buffer.
    /// - Precondition: `rect` lies inside the buffer.
    public func cropped(to rect: PixelRect) -> PixelBuffer {
        precondition(
            rect.x >= 0 && rect.y >= 0 && rect.width >= 0 && rect.height >= 0 && rect.x + rect.width <= _width
                && rect.y + rect.height <= _height, "crop outside the buffer")
        var crop = PixelBuffer(width: rect.width, height: rect.height, channels: _channels)
        let from = _rowStride, to = crop.rowStride, first = rect.x * _channels
        withUnsafeBufferPointer { source in
            crop.withUnsafeMutableBufferPointer { target in
                for y in 0..<rect.height {
                    (target.baseAddress! + y * to).update(from: source.baseAddress! + (rect.y + y) * from + first, count: to)
                }
            }
        }
        return crop
    }
}

/// A pixel buffer of 8- or 16-bit samples, as decoders produce them.
public enum AnyPixelBuffer: Sendable, Equatable {
    case uint8(PixelBuffer<UInt8>)
    case uint16(PixelBuffer<UInt16>)

    public var width: Int {
        switch self {
        case .uint8(let b): b.width
        case .uint16(let b): b.width
        }
    }

    public var height: Int {
        switch self {
        case .uint8(let b): b.height
        case .uint16(let b): b.height
        }
    }

    public var channels: Int {
        switch self {
        case .uint8(let b): b.channels
        case .uint16(let b): b.channels
        }
    }

    public var size: ImageSize { ImageSize(width: width, height: height) }

    /// 8 or 16.
    public var bitDepth: Int {
        switch self {
        case .uint8: 8
        case .uint16: 16
        }
    }

    /// The sample at (x, y, channel) scaled to 0…1.
    public func normalized(x: Int, y: Int, channel: Int = 0) -> Double {
        switch self {
        case .uint8(let b): Double(b[x, y, channel]) / 255
        case .uint16(let b): Double(b[x, y, channel]) / 65535
        }
    }

    /// The samples at 8 bits (16-bit values are rounded: `(v + 128) / 257`).
    public var eightBit: PixelBuffer<UInt8> {
        switch self {
        case .uint8(let b):
            return b
        case .uint16(let b):
            let samples = b.samples.map { UInt8((UInt32($0) + 128) / 257) }
            return PixelBuffer(width: b.width, height: b.height, channels: b.channels, samples: samples)
        }
    }
}
