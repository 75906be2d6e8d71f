import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.jpeg)

/// libFuzzer's entry point: decodes the input as a JPEG file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
