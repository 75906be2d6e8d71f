/// Where the time of one assessment went: named stages in the order they finished, each
/// with its own time (a stage that needed another's result does not count that one's time).
///
/// Stage names: `read`, `decode` (the codec's work), `convert` (luma and RGB, rotation),
/// `prepare` (the analysis image: resampling, crops), the shared intermediates `tiles`,
/// `detail`, `colourfulness`, `textEstimate`, `textFinder`, `sheet` (only when the page rules
/// look for a sheet of paper on a desk), then the detectors `blur`,
/// `smudge`, `exposure`, `aesthetic`, `text`, then `probe` (a document's layout probe) and `gate`.
public struct StageTimings: Sendable, Equatable {
    public private(set) var stages: [(name: String, duration: Duration)] = []
    /// Time spent in stages nested inside the one being measured.
    private var nested = Duration.zero
    private let clock = ContinuousClock()

    public init() {}

    /// Records a stage measured elsewhere.
    public mutating func record(_ name: String, _ duration: Duration) {
        stages.append((name, duration))
    }

    /// Where a stage began, and the nested time of the stage around it.
    public struct Start: Sendable {
        let instant: ContinuousClock.Instant
        let outerNested: Duration
    }

    /// Starts a stage; `end(_:_:)` closes it. Stages nest: an inner stage's time is not the outer one's.
    public mutating func begin() -> Start {
        let start = Start(instant: clock.now, outerNested: nested)
        nested = .zero
        return start
    }

    /// Closes the stage begun at `start` as `name`.
    public mutating func end(_ name: String, _ start: Start) {
        let total = clock.now - start.instant
        stages.append((name, total - nested))
        nested = start.outerNested + total
    }

    /// Runs `body` as stage `name`.
    public mutating func measure<T>(_ name: String, _ body: () -> T) -> T {
        let start = begin()
        let result = body()
        end(name, start)
        return result
    }

    public static func == (a: StageTimings, b: StageTimings) -> Bool {
        a.stages.elementsEqual(b.stages) { $0.name == $1.name && $0.duration == $1.duration }
    }
}
