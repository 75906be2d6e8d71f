import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.raw)

/// libFuzzer's entry point: decodes the input as a camera raw file (LibRaw) (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRaw(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
