import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.heif, .avif)

/// libFuzzer's entry point: decodes the input as a HEIF or AVIF file (inputs that are neither
/// are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
