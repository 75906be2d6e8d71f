import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.jxl)

/// libFuzzer's entry point: decodes the input as a JPEG XL file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJXL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
