import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps Tesseract's OpenMP parallel regions on the calling thread.
///
/// libtesseract parallelises small loops with OpenMP; on a few cores its threads spin
/// against each other and against imgquality's own jobs, and recognition runs 5–10 times
/// slower than with `OMP_THREAD_LIMIT=1`. libgomp reads that variable only when it loads,
/// before `main`, so it cannot be set from here; instead the runtime's maximum number of
/// active parallel levels is set to 0 (`omp_set_max_active_levels`), which makes every
/// parallel region run with a team of one. A user who sets `OMP_THREAD_LIMIT`,
/// `OMP_NUM_THREADS` or `OMP_MAX_ACTIVE_LEVELS` keeps their setting.
enum OpenMPThreads {
    /// The variables that mean a user configured OpenMP themselves.
    static let userVariables = ["OMP_THREAD_LIMIT", "OMP_NUM_THREADS", "OMP_MAX_ACTIVE_LEVELS"]

    /// Whether parallel regions were limited to one thread (false when the user configured
    /// OpenMP, or the OpenMP runtime is not in the process). Evaluated once.
    static let limited = limit(environment: ProcessInfo.processInfo.environment)

    /// Limits parallel regions to one thread unless `environment` configures OpenMP;
    /// whether it did.
    static func limit(environment: [String: String]) -> Bool {
        guard userVariables.allSatisfy({ environment[$0] == nil }) else { return false }
        // The process's global scope holds libgomp, which libtesseract loads.
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_set_max_active_levels") else { return false }
        let setMaxActiveLevels = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
        setMaxActiveLevels(0)
        return true
    }

    /// The runtime's maximum number of active parallel levels (`omp_get_max_active_levels`),
    /// or nil without an OpenMP runtime.
    static var maxActiveLevels: Int? {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_get_max_active_levels") else { return nil }
        return Int(unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)())
    }
}
