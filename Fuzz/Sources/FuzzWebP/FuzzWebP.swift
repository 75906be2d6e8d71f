import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.webp)

/// libFuzzer's entry point: decodes the input as a WebP file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
