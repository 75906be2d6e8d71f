/// Runs `transform` on up to `jobs` inputs at once in child tasks and hands the results to
/// `emit` in input order, as soon as each next one is ready.
///
/// Inputs are pulled lazily, and no more than `4 × jobs` results wait for a slow earlier
/// one, so memory stays bounded. `emit` runs in the calling task, one result at a time.
func orderedConcurrentMap<Inputs: Sequence, Output: Sendable>(
    _ inputs: Inputs, jobs: Int, transform: @escaping @Sendable (Inputs.Element) async -> Output, emit: (Output) -> Void
) async where Inputs.Element: Sendable {
    let jobs = max(1, jobs), window = 4 * max(1, jobs)
    await withTaskGroup(of: (Int, Output).self) { group in
        var iterator = inputs.makeIterator()
        var started = 0, emitted = 0, running = 0
        var ready: [Int: Output] = [:]
        func fill() {
            while running < jobs, started - emitted < window, let input = iterator.next() {
                let index = started
                group.addTask { (index, await transform(input)) }
                started += 1
                running += 1
            }
        }
        fill()
        while let (index, output) = await group.next() {
            running -= 1
            ready[index] = output
            while let next = ready.removeValue(forKey: emitted) {
                emit(next)
                emitted += 1
            }
            fill()
        }
    }
}
