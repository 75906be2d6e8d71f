import FuzzSupport

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.bmp)

/// libFuzzer's entry point: decodes the input as a BMP file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBMP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
