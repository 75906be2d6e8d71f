import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.tiff)

/// libFuzzer's entry point: decodes the input as a TIFF file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTIFF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
