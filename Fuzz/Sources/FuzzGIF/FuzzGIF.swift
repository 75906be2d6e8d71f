import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.gif)

/// libFuzzer's entry point: decodes the input as a GIF file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
