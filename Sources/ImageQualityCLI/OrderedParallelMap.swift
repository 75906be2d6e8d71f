import Foundation

/// Runs a transform over a stream of inputs on `jobs` threads and hands the results
/// back in input order, as soon as each next one is ready.
///
/// Inputs are pulled lazily (a pipe on stdin streams), and no more than `window`
/// results wait for a slow earlier one, so memory stays bounded. Each thread builds
/// its own worker with `makeWorker`, so per-thread state (a decoder and its
/// buffers) is never shared.
final class OrderedParallelMap<Input: Sendable, Output: Sendable>: @unchecked Sendable {
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

    init(_ inputs: AnyIterator<Input>, jobs: Int, window: Int? = nil) {
        self.inputs = inputs
        self.jobs = max(1, jobs)
        self.window = max(self.jobs, window ?? 4 * self.jobs)
    }

    /// Processes every input; `emit` runs on the calling thread, in input order.
    func run(
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

    private func take() -> (Int, Input)? {
        reading.lock()
        defer { reading.unlock() }
        condition.lock()
        while !exhausted && nextToTake - nextToEmit >= window { condition.wait() }
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
