import Foundation

/// Runs `transform` on up to `jobs` paths at once in child tasks and hands the results to
/// `emit` in input order, as soon as each next one is ready.
///
/// A thread of its own pulls the paths (a pipe on stdin may block it for as long as the
/// writer waits), so results are emitted while the next path is still to come. It stays at
/// most `4 × jobs` paths ahead of the last result emitted, so memory stays bounded. `emit`
/// runs in the calling task, one result at a time.
func orderedConcurrentMap<Output: Sendable>(
    _ paths: AnyIterator<String>, jobs: Int, transform: @escaping @Sendable (String) async -> Output, emit: (Output) -> Void
) async {
    let jobs = max(1, jobs), window = 4 * max(1, jobs)
    let (events, continuation) = AsyncStream.makeStream(of: MapEvent<Output>.self)
    // The reader waits while it is `window` paths ahead of what was emitted.
    let room = DispatchSemaphore(value: window)
    let pull = PathPull(paths)
    let reader = Thread {
        while let path = pull.next() {
            room.wait()
            continuation.yield(.input(path))
        }
        continuation.yield(.inputsEnded)
    }
    reader.stackSize = 1 << 20
    reader.start()

    await withDiscardingTaskGroup { group in
        var waiting: [String] = []
        var started = 0, emitted = 0, running = 0
        var ended = false
        var ready: [Int: Output] = [:]
        for await event in events {
            switch event {
            case .input(let path): waiting.append(path)
            case .inputsEnded: ended = true
            case .output(let index, let output):
                running -= 1
                ready[index] = output
                while let next = ready.removeValue(forKey: emitted) {
                    emit(next)
                    emitted += 1
                    room.signal()
                }
            }
            while running < jobs, !waiting.isEmpty {
                let path = waiting.removeFirst(), index = started
                group.addTask { continuation.yield(.output(index, await transform(path))) }
                started += 1
                running += 1
            }
            if ended && waiting.isEmpty && emitted == started { break }
        }
        continuation.finish()
    }
}

/// What reaches `orderedConcurrentMap`'s loop: a path from the reader, the end of the paths,
/// or a child task's result with its index.
private enum MapEvent<Output: Sendable>: Sendable {
    case input(String)
    case inputsEnded
    case output(Int, Output)
}

/// The paths' iterator, handed to the reader thread, the only one that advances it.
private final class PathPull: @unchecked Sendable {
    private let paths: AnyIterator<String>

    init(_ paths: AnyIterator<String>) { self.paths = paths }

    func next() -> String? { paths.next() }
}
