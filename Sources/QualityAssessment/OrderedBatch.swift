import Foundation
import Synchronization

/// imgquality's batch engine: runs a per-input stage over a stream of inputs on `jobs`
/// threads and hands the results back in input order, as soon as each next one is ready.
/// `score`, `gate`, `ocr` and `calibrate` are thin commands over it, and a server or a
/// Swift caller can run it the same way.
///
/// Inputs are pulled lazily, by one thread at a time (a pipe on stdin streams, and a read
/// that blocks holds no worker), and no more than `window` results wait for a slow earlier
/// one, so memory stays bounded. Each thread builds its own worker with `makeWorker`, so
/// per-thread state (an `Assessor`'s decoder and its buffers) is never shared. `cancel()`
/// stops taking inputs: what is in flight finishes and is emitted, in order.
///
/// ```swift
/// let batch = OrderedBatch(AnyIterator(paths.makeIterator()), jobs: 2)
/// batch.run(makeWorker: {
///     let assessor = Assessor()
///     return { assessor.assess(contentsOf: $0) }
/// }, emit: { path, assessment in print(assessment.record.serialized) })
/// ```
public final class OrderedBatch<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Held by the one thread pulling from `inputs`, which may block on a pipe: `condition`
    /// stays free meanwhile, so finished results are stored and emitted while it waits.
    private let reading = NSLock()
    private var inputs: AnyIterator<Input>
    private let jobs: Int
    private let window: Int
    // Guarded by `condition`:
    private var nextToTake = 0
    private var nextToEmit = 0
    private var exhausted = false
    private var finishedWorkers = 0
    private var ready: [Int: (Input, Output)] = [:]
    private let cancelled = Atomic(false)

    /// - Parameters:
    ///   - inputs: pulled one at a time, from one thread at a time.
    ///   - jobs: the worker threads (at least 1).
    ///   - window: how many inputs may be taken ahead of the last result emitted (at
    ///     least `jobs`; 4 × `jobs` by default).
    public init(_ inputs: AnyIterator<Input>, jobs: Int, window: Int? = nil) {
        self.inputs = inputs
        self.jobs = max(1, jobs)
        self.window = max(self.jobs, window ?? 4 * self.jobs)
    }

    /// Stops taking inputs; those taken are still processed and emitted. Safe from any thread.
    public func cancel() {
        cancelled.store(true, ordering: .relaxed)
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Processes every input; `emit` runs on the calling thread, in input order, and returns
    /// when the last result is emitted.
    public func run(
        makeWorker: @escaping @Sendable () -> (Input) -> Output,
        emit: (Input, Output) -> Void
    ) {
        for _ in 0..<jobs {
            let thread = Thread { [self] in
                let work = makeWorker()
                while let (index, input) = take() {
                    let output = work(input)
                    condition.lock()
                    ready[index] = (input, output)
                    condition.broadcast()
                    condition.unlock()
                }
                condition.lock()
                finishedWorkers += 1
                condition.broadcast()
                condition.unlock()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }

        condition.lock()
        while true {
            if let (input, output) = ready.removeValue(forKey: nextToEmit) {
                nextToEmit += 1
                condition.broadcast()
                condition.unlock()
                emit(input, output)
                condition.lock()
                continue
            }
            if finishedWorkers == jobs && ready.isEmpty { break }
            condition.wait()
        }
        condition.unlock()
    }

    /// Processes every input with an asynchronous stage (a recognizer's), at most `jobs` at
    /// once, each awaited on its worker thread; `emit` runs on a thread of the batch, in
    /// input order. The calling task is suspended, not blocked, until the last result is
    /// emitted; cancelling it cancels the batch.
    public func run(
        stage: @escaping @Sendable (Input) async -> Output, emit: @escaping @Sendable (Input, Output) -> Void
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                let thread = Thread { [self] in
                    run(makeWorker: { { input in Self.waiting(for: { await stage(input) }) } }, emit: emit)
                    finished.resume()
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
        } onCancel: {
            cancel()
        }
    }

    /// Runs `body` in a task and blocks this thread (a worker of the batch, never one of the
    /// concurrency pool's) until it ends.
    private static func waiting(for body: @escaping @Sendable () async -> Output) -> Output {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Output?>(nil)
        Task {
            let output = await body()
            result.withLock { $0 = output }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    private func take() -> (Int, Input)? {
        reading.lock()
        defer { reading.unlock() }
        condition.lock()
        while !exhausted && !isCancelled && nextToTake - nextToEmit >= window { condition.wait() }
        if isCancelled { exhausted = true }
        let done = exhausted
        condition.unlock()
        if done { return nil }
        // Only the thread holding `reading` pulls inputs and advances `nextToTake`.
        let input = inputs.next()
        condition.lock()
        defer { condition.unlock() }
        guard let input else {
            exhausted = true
            condition.broadcast()
            return nil
        }
        defer { nextToTake += 1 }
        return (nextToTake, input)
    }
}
