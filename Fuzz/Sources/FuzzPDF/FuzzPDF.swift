import FuzzSupport
import PDFPages

nonisolated(unsafe) private let fuzzer: DecoderFuzzer = {
    PDFPageRenderer.register()
    return DecoderFuzzer(.pdf)
}()

/// libFuzzer's entry point: renders a page of the input as a PDF file (Poppler through the
/// PDFPages product; inputs that are not PDF are rejected).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPDF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzer.run(data, size)
}
