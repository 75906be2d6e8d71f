import FuzzSupport
import ImageCodecs
import QualityAssessment
import QualityGating

/// Two assessors, as the command line makes them: the detectors' reduced JPEG scale, and every
/// pixel decoded (what `ocr` asks for). Both decode with `FuzzLimits.decode`.
nonisolated(unsafe) private let assessors = [false, true].map { fullResolution in
    Assessor(Assessor.Configuration(decodeOptions: DecodeOptions(limits: FuzzLimits.decode), decodesFullResolution: fullResolution))
}

/// libFuzzer's entry point: assesses any bytes (every format, and none) and encodes the record as
/// `score` does. Bit 0 of the last byte picks the assessor. Every input must give a record,
/// assessed or failed, that serialises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssessment(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return -1 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let assessment = assessors[Int(bytes[size - 1] & 1)].assess(.encoded(bytes, name: "fuzz"))
    do {
        let record = try JSONValue.encoding(assessment)
        precondition(!record.serialized.isEmpty, "an empty record")
    } catch {
        preconditionFailure("the record does not encode: \(error)")
    }
    return 0
}
