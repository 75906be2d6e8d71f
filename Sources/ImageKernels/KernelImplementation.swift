import Foundation

/// Which implementation of a kernel runs: the SIMD one, or its scalar reference.
///
/// Every SIMD kernel keeps a scalar twin that computes the same result the plain
/// way. Both are always compiled; this is the one place that chooses. Set
/// `IMGQUALITY_FORCE_SCALAR=1` in the environment to run the scalar references
/// everywhere (as libjpeg-turbo's `JSIMD_FORCENONE` does).
public enum KernelImplementation: String, Sendable, CaseIterable {
    case simd
    case scalar

    /// The implementation kernels use unless told otherwise.
    public static let current: KernelImplementation = {
        if let value = ProcessInfo.processInfo.environment["IMGQUALITY_FORCE_SCALAR"], value != "", value != "0" {
            return .scalar
        }
        return .simd
    }()
}
