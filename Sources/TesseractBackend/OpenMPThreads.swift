private import CTesseract
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Keeps Tesseract's OpenMP parallel regions on the calling thread.
///
/// libtesseract parallelises small loops with OpenMP; on a few cores its threads spin
/// against each other and against imgquality's own jobs, and recognition runs 5–10 times
/// slower than with `OMP_THREAD_LIMIT=1`. libgomp reads that variable only when it loads
/// (with libtesseract, on first use) and for the whole process; instead the OpenMP runtime's maximum
/// number of active parallel levels is set to 0 (`omp_set_max_active_levels`), which makes
/// every parallel region run with a team of one. libgomp keeps that setting per thread,
/// so it is set on the thread of each recognition, before Tesseract runs. A user who sets
/// `OMP_THREAD_LIMIT`, `OMP_NUM_THREADS` or `OMP_MAX_ACTIVE_LEVELS` keeps their setting.
enum OpenMPThreads {
    /// The variables that mean a user configured OpenMP themselves.
    static let userVariables = ["OMP_THREAD_LIMIT", "OMP_NUM_THREADS", "OMP_MAX_ACTIVE_LEVELS"]

    /// `omp_set_max_active_levels` when this process limits OpenMP itself: the user set no
    /// OpenMP variable and libgomp is loaded (libtesseract brings it). Looked up once.
    static let limiter = setter(environment: ProcessInfo.processInfo.environment)

    /// Runs the calling thread's parallel regions with a team of one, unless the user
    /// configured OpenMP; whether it did.
    @discardableResult
    static func limitCurrentThread() -> Bool {
        guard let limiter else { return false }
        limiter(0)
        return true
    }

    /// `omp_set_max_active_levels`, or nil when `environment` configures OpenMP or the
    /// runtime cannot be loaded.
    static func setter(environment: [String: String]) -> (@convention(c) (Int32) -> Void)? {
        guard userVariables.allSatisfy({ environment[$0] == nil }) else { return nil }
        // The process's global scope holds libgomp once libtesseract, which brings it, is
        // loaded (it is opened on first use: CTesseract).
        guard iq_tesseract_load() == 0 else { return nil }
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }

    /// The calling thread's maximum number of active parallel levels
    /// (`omp_get_max_active_levels`), or nil without an OpenMP runtime.
    static var maxActiveLevels: Int? {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_get_max_active_levels") else { return nil }
        return Int(unsafeBitCast(symbol, to: (@convention(c) () -> Int32).self)())
    }
}
