import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.png)

/// libFuzzer's entry point: decodes the input as a PNG file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
