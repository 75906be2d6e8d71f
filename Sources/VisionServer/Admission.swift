import Foundation
import Synchronization

/// How many requests are worked on at once, and how many may wait: a request beyond both is
/// refused (429 with `Retry-After`) instead of held, so memory stays bounded under any load.
/// A waiting request has not had its body read yet: the client's bytes wait in the socket.
final class Admission: Sendable {
    let workers: Int
    let queueLimit: Int
    private let state = Mutex(State())

    private struct State {
        var running = 0
        /// Requests waiting for a worker, first come first served.
        var waiting: [CheckedContinuation<Bool, Never>] = []
    }

    init(workers: Int, queueLimit: Int) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
    }

    /// Requests waiting for a worker.
    var depth: Int { state.withLock { $0.waiting.count } }

    /// Takes a worker, waiting in the queue when all are busy; false when the queue is full.
    func enter() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = state.withLock { state in
                if state.running < workers {
                    state.running += 1
                    return true
                }
                guard state.waiting.count < queueLimit else { return false }
                state.waiting.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Gives the worker back, or hands it to the first request waiting.
    func leave() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume(returning: true)
    }
}

/// Threads that run the recognition work of admitted requests (decoding, the detectors,
/// Tesseract, the document analysis: seconds of CPU each), so that it never occupies the
/// concurrency pool's threads, which serve the HTTP side: `/healthz` answers under full load.
final class WorkerThreads: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var next = 0

    init(count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = "imgquality-worker-\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while next == jobs.count { condition.wait() }
            let job = jobs[next]
            next += 1
            if next == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
