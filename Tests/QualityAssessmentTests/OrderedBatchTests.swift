import Foundation
import QualityAssessment
import QualityGating
import Synchronization
import Testing

/// The batch engine: input order, a bounded window, results while the next input is
/// awaited, cancellation, and asynchronous stages.
@Suite("Ordered batch engine")
struct OrderedBatchTests {
    @Test(arguments: [1, 2, 4])
    func keepsInputOrderAndBoundsTheWindow(jobs: Int) {
        let inputs = Array(0..<200)
        let inFlight = Counter()
        var emitted: [Int] = []
        let window = 8
        OrderedBatch(AnyIterator(inputs.makeIterator()), jobs: jobs, window: window).run(
            makeWorker: {
                return { value in
                    inFlight.add(1)
                    // Later inputs tend to finish first.
                    usleep(UInt32((200 - value) % 7 * 300))
                    inFlight.add(-1)
                    return value * 10
                }
            },
            emit: { input, output in
                #expect(output == input * 10)
                emitted.append(input)
            })
        #expect(emitted == inputs)
        #expect(inFlight.peak <= jobs)
    }

    @Test func emptyInputFinishes() {
        var count = 0
        OrderedBatch(AnyIterator([Int]().makeIterator()), jobs: 3).run(
            makeWorker: { { $0 } }, emit: { _, _ in count += 1 })
        #expect(count == 0)
    }

    /// While the next input is still to come (a pipe with nothing more written yet), every
    /// result already made is emitted: a pipeline sees its records as the paths arrive.
    @Test(arguments: [1, 2])
    func resultsAreEmittedWhileTheNextInputIsAwaited(jobs: Int) {
        let emittedAll = DispatchSemaphore(value: 0)
        let waitedTooLong = Counter()
        var given = 0
        let inputs = AnyIterator<Int> {
            given += 1
            if given <= 3 { return given }
            // The fourth input comes only once the first three were emitted. A liveness
            // bound, not a timing: a working map ends the wait at once, and only an emitter
            // blocked behind this read reaches 300 s.
            if emittedAll.wait(timeout: .now() + 300) == .timedOut { waitedTooLong.add(1) }
            return nil
        }
        var emitted: [Int] = []
        OrderedBatch(inputs, jobs: jobs).run(
            makeWorker: { { $0 * 10 } },
            emit: { _, output in
                emitted.append(output)
                if emitted.count == 3 { emittedAll.signal() }
            })
        #expect(emitted == [10, 20, 30])
        #expect(waitedTooLong.value == 0, "the results waited for the next input")
    }

    /// Cancelled after the fifth result, the batch takes no more inputs: what was taken is
    /// emitted in order, and nothing after it.
    @Test(arguments: [1, 2])
    func cancellingStopsTakingInputs(jobs: Int) {
        let taken = Counter()
        let inputs = AnyIterator<Int>((0..<1000).lazy.map { value in
            taken.add(1)
            return value
        }.makeIterator())
        let batch = OrderedBatch<Int, Int>(inputs, jobs: jobs, window: 4)
        var emitted: [Int] = []
        batch.run(makeWorker: { { $0 } }, emit: { input, _ in
            emitted.append(input)
            if emitted.count == 5 { batch.cancel() }
        })
        #expect(batch.isCancelled)
        #expect(emitted == Array(0..<emitted.count), "in order, without a gap")
        // At most the window (4) was taken beyond the fifth result.
        #expect(emitted.count >= 5 && emitted.count <= 9, "\(emitted.count)")
        #expect(taken.value == emitted.count)
    }

    /// An asynchronous stage runs on up to `jobs` inputs at once, and results come in input order.
    @Test(arguments: [1, 3])
    func anAsyncStageKeepsOrderAndRunsJobsAtOnce(jobs: Int) async {
        let inFlight = Counter()
        let emitted = Mutex<[Int]>([])
        await OrderedBatch(AnyIterator((0..<40).makeIterator()), jobs: jobs).run { value in
            inFlight.add(1)
            try? await Task.sleep(for: .milliseconds((40 - value) % 5))
            inFlight.add(-1)
            return value * 2
        } emit: { input, output in
            #expect(output == input * 2)
            emitted.withLock { $0.append(input) }
        }
        #expect(emitted.withLock { $0 } == Array(0..<40))
        #expect(inFlight.peak <= jobs)
    }
}

/// A thread-safe counter that remembers its peak.
final class Counter: Sendable {
    private let state = Mutex<(value: Int, peak: Int)>((0, 0))

    var peak: Int { state.withLock { $0.peak } }
    var value: Int { state.withLock { $0.value } }

    func add(_ delta: Int) {
        state.withLock {
            $0.value += delta
            $0.peak = max($0.peak, $0.value)
        }
    }
}
