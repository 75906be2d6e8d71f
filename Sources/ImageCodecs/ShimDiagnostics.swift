internal import _CImagingShims
import ImagingCore

/// Translation of the C shim's status codes and messages into Swift errors and warnings.
extension iq_diagnostics {
    var failureMessage: String {
        var copy = message
        return withUnsafeBytes(of: &copy) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The failure as an `ImagingError`, its message prefixed with the format name.
    func error(_ format: String, status: Int32) -> ImagingError {
        let kind: ImagingErrorKind
        switch status == IQ_OK ? failure : status {
        case Int32(IQ_FAIL_TRUNCATED): kind = .truncated
        case Int32(IQ_FAIL_UNSUPPORTED): kind = .unsupportedFeature
        case Int32(IQ_FAIL_MEMORY): kind = .outOfMemory
        case Int32(IQ_FAIL_LIMIT): kind = .limitExceeded
        case Int32(IQ_FAIL_TIME): kind = .timeLimit
        default: kind = .corrupt
        }
        let text = failureMessage
        return ImagingError(kind, "\(format): \(text.isEmpty ? "decoding failed" : text)")
    }

    /// The distinct warnings kept, in the order first seen.
    func decodeWarnings(_ format: String) -> [DecodeWarning] {
        var list = warnings
        let kept = Int(kept_warnings)
        var result: [DecodeWarning] = []
        withUnsafeBytes(of: &list) { raw in
            let items = raw.bindMemory(to: iq_warning.self)
            for index in 0..<min(kept, items.count) {
                var warning = items[index]
                let text = withUnsafeBytes(of: &warning.message) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                let kind: DecodeWarningKind
                switch warning.kind {
                case Int32(IQ_WARN_TRUNCATED): kind = .truncated
                case Int32(IQ_WARN_CORRUPT): kind = .corrupt
                default: kind = .other
                }
                result.append(DecodeWarning(kind, "\(format): \(text)"))
            }
        }
        let unkept = Int(warning_count) - kept
        if unkept > 0, !result.isEmpty {
            result[result.count - 1].message += " (and \(unkept) more warnings)"
        }
        return result
    }
}

/// Diagnostics at a stable address, for C objects that keep a pointer to them across calls.
final class DiagnosticsBox {
    let pointer: UnsafeMutablePointer<iq_diagnostics>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: iq_diagnostics())
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    var value: iq_diagnostics { pointer.pointee }
}
