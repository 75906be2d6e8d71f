import FuzzSupport
import _CFuzzerHooks

nonisolated(unsafe) private let fuzzer = DecoderFuzzer(.png)

/// libFuzzer's entry point: decodes the input as a PNG file (inputs that are not are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}

/// libFuzzer's mutation, then, three times in four, every chunk's CRC made right again, so
/// mutated chunks reach libpng's parsing instead of its checksum test; the fourth keeps the
/// checksum failures in play.
@_cdecl("LLVMFuzzerCustomMutator")
public func mutatePNG(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    let mutated = LLVMFuzzerMutate(data, size, maxSize)
    if seed % 4 != 0 { PNGChunks.fixCRCs(data, count: mutated) }
    return mutated
}
